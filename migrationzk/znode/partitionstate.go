package znode

import (
	"bytes"
	"encoding/json"
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

// partitionStateVersion is the only known version of a partition state.
const partitionStateVersion = 1

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
	dst = strconv.AppendInt(dst, int64(p.ControllerEpoch), 10)
	dst = append(dst, `,"leader":`...)
	dst = strconv.AppendInt(dst, int64(p.Leader), 10)
	dst = append(dst, `,"version":1`...)
	if p.LeaderRecoveryState != 0 {
		dst = append(dst, `,"leader_recovery_state":`...)
		dst = strconv.AppendInt(dst, int64(p.LeaderRecoveryState), 10)
	}
	dst = append(dst, `,"leader_epoch":`...)
	dst = strconv.AppendInt(dst, int64(p.LeaderEpoch), 10)
	dst = append(dst, `,"isr":[`...)
	for i, r := range p.ISR {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(r), 10)
	}
	return append(dst, "]}"...)
}

// DecodePartitionState decodes the content of a partition state znode.
// controller_epoch, leader, version, leader_epoch and isr are required and
// the version must be 1. leader_recovery_state is optional (0 when absent)
// and must be 0 or 1. An empty ISR decodes as an empty, non-nil slice.
//
// The Path of a returned *DecodeError is
// "/brokers/topics/<topic>/partitions/<partition>/state", literally.
func DecodePartitionState(data []byte) (PartitionState, error) {
	o, err := parseObject(partitionStatePattern, data)
	if err != nil {
		return PartitionState{}, err
	}
	if _, err := o.version(partitionStateVersion); err != nil {
		return PartitionState{}, err
	}
	cepoch, err := o.int("controller_epoch", 32)
	if err != nil {
		return PartitionState{}, err
	}
	leader, err := o.int("leader", 32)
	if err != nil {
		return PartitionState{}, err
	}
	lrs, err := o.optInt("leader_recovery_state", 8, 0)
	if err != nil {
		return PartitionState{}, err
	}
	if lrs != 0 && lrs != 1 {
		return PartitionState{}, o.fail("leader_recovery_state", ErrOutOfRange, strconv.FormatInt(lrs, 10)+" is neither 0 nor 1")
	}
	epoch, err := o.int("leader_epoch", 32)
	if err != nil {
		return PartitionState{}, err
	}
	isr, err := o.isr()
	if err != nil {
		return PartitionState{}, err
	}
	return PartitionState{
		ControllerEpoch:     int32(cepoch),
		Leader:              int32(leader),
		LeaderEpoch:         int32(epoch),
		ISR:                 isr,
		LeaderRecoveryState: int8(lrs),
	}, nil
}

// isr returns the required isr field, an array of int32.
func (o *object) isr() ([]int32, error) {
	const field = "isr"
	raw, err := o.get(field)
	if err != nil {
		return nil, err
	}
	if k := kind(raw); k != "array" {
		return nil, o.fail(field, ErrWrongType, "got "+k+", want array")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, o.fail(field, ErrInvalidJSON, err.Error())
	}
	isr := make([]int32, 0, len(elems))
	for i, e := range elems {
		v, err := o.parseInt(field, bytes.TrimSpace(e), 32)
		if err != nil {
			if de, ok := err.(*DecodeError); ok {
				de.Detail = "element " + strconv.Itoa(i) + ": " + de.Detail
			}
			return nil, err
		}
		isr = append(isr, int32(v))
	}
	return isr, nil
}
