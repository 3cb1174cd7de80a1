package znode

import (
	"slices"
	"strconv"
)

// PartitionState is the content of /brokers/topics/T/partitions/P/state:
// the leader and in-sync replicas of a partition.
type PartitionState struct {
	// ControllerEpoch is the epoch of the controller that wrote the
	// state. During dual-write the KRaft controller writes its own epoch.
	ControllerEpoch int32
	Leader          int32
	LeaderEpoch     int32
	// ISR lists the in-sync replicas in order.
	ISR []int32
	// LeaderRecoveryState is 0 when the leader is recovered and 1 while it
	// is recovering.
	LeaderRecoveryState int8
}

// Equal reports whether p and q have equal fields, comparing the ISR in
// order. A nil ISR equals an empty one.
func (p PartitionState) Equal(q PartitionState) bool {
	return p.ControllerEpoch == q.ControllerEpoch &&
		p.Leader == q.Leader &&
		p.LeaderEpoch == q.LeaderEpoch &&
		p.LeaderRecoveryState == q.LeaderRecoveryState &&
		slices.Equal(p.ISR, q.ISR)
}

// Encode returns the JSON encoding of p as Kafka writes it, for example
//
//	{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
//
// leader_recovery_state is written between version and leader_epoch only
// when it is not 0, that is when the leader is recovering:
//
//	{"controller_epoch":2,"leader":1,"version":1,"leader_recovery_state":1,"leader_epoch":0,"isr":[1,2,3]}
//
// A nil or empty ISR is written as [].
func (p PartitionState) Encode() []byte {
	return p.AppendEncode(make([]byte, 0, maxPartitionStateLen(len(p.ISR))))
}

// maxPartitionStateLen bounds the length of an encoded PartitionState
// with n in-sync replicas.
func maxPartitionStateLen(n int) int {
	const fixed = len(`{"controller_epoch":,"leader":,"version":1,"leader_recovery_state":,"leader_epoch":,"isr":[]}`)
	return fixed + 3*11 + 4 + 12*n
}

// AppendEncode appends the encoding of p, as returned by Encode, to dst
// and returns the extended slice.
func (p PartitionState) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"controller_epoch":`...)
	dst = appendInt32(dst, p.ControllerEpoch)
	dst = append(dst, `,"leader":`...)
	dst = appendInt32(dst, p.Leader)
	dst = append(dst, `,"version":1`...)
	if p.LeaderRecoveryState != 0 {
		dst = append(dst, `,"leader_recovery_state":`...)
		dst = strconv.AppendInt(dst, int64(p.LeaderRecoveryState), 10)
	}
	dst = append(dst, `,"leader_epoch":`...)
	dst = appendInt32(dst, p.LeaderEpoch)
	dst = append(dst, `,"isr":[`...)
	for i, r := range p.ISR {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendInt32(dst, r)
	}
	return append(dst, "]}"...)
}

// DecodePartitionState decodes the content of a partition state znode as
// Kafka 3.9's TopicPartitionStateZNode.decode reads it. The version is
// never read. controller_epoch, leader, leader_epoch and isr are required
// int32 and an array of int32. leader_recovery_state is optional (0 when
// absent), an int32 whose low byte, as Kafka's toByte keeps it, must be 0
// or 1. An empty ISR decodes as an empty, non-nil slice.
//
// The Path of a returned *DecodeError is
// "/brokers/topics/<topic>/partitions/<partition>/state", literally.
func DecodePartitionState(data []byte) (PartitionState, error) {
	if p, ok := decodeCanonicalPartitionState(data); ok {
		return p, nil
	}
	return decodePartitionStateJSON(data)
}

// decodePartitionStateJSON is DecodePartitionState for any JSON.
func decodePartitionStateJSON(data []byte) (PartitionState, error) {
	o := parseObject(partitionStatePattern, data)
	p := PartitionState{
		ControllerEpoch:     o.int32("controller_epoch"),
		Leader:              o.int32("leader"),
		LeaderRecoveryState: o.leaderRecoveryState(),
		LeaderEpoch:         o.int32("leader_epoch"),
		ISR:                 o.int32s("isr"),
	}
	if o.failed() {
		return PartitionState{}, o.err()
	}
	return p, nil
}

// leaderRecoveryState returns the optional leader_recovery_state field,
// truncated to a byte, as LeaderRecoveryState.of reads it.
func (o *object) leaderRecoveryState() int8 {
	const field = "leader_recovery_state"
	v := int8(o.optInt32(field, 0))
	if v != 0 && v != 1 {
		o.fail(field, ErrOutOfRange, "low byte "+strconv.Itoa(int(v))+" is neither 0 nor 1")
	}
	return v
}
