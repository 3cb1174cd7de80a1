package znode

import (
	"maps"
	"slices"
	"strconv"

	"github.com/kraftmigration/zkwriter/internal/scalaorder"
)

// ReplicaAssignment is where the replicas of one partition are, and where
// a reassignment in progress moves them.
type ReplicaAssignment struct {
	// Replicas lists the replicas in order, the preferred leader first.
	Replicas []int32
	// AddingReplicas lists the replicas a reassignment in progress adds,
	// nil when there are none.
	AddingReplicas []int32
	// RemovingReplicas lists the replicas a reassignment in progress
	// removes, nil when there are none.
	RemovingReplicas []int32
}

// Equal reports whether a and b list the same replicas in the same
// order. A nil list equals an empty one.
func (a ReplicaAssignment) Equal(b ReplicaAssignment) bool {
	return slices.Equal(a.Replicas, b.Replicas) &&
		slices.Equal(a.AddingReplicas, b.AddingReplicas) &&
		slices.Equal(a.RemovingReplicas, b.RemovingReplicas)
}

// Topic is the content of /brokers/topics/<topic>: the topic's id and the
// replica assignment of each of its partitions.
type Topic struct {
	// ID is the topic id. The zero Uuid means the topic has none, as
	// written by ZooKeeper-mode clusters older than Kafka 2.8.
	ID Uuid
	// Partitions maps each partition id, from 0, to its assignment.
	Partitions map[int32]ReplicaAssignment
}

// topicPattern is the path reported by DecodeTopic, which does not know
// the topic.
const topicPattern = TopicsPath + "/<topic>"

// TopicPath returns the path of the znode of a topic,
// "/brokers/topics/<topic>".
func TopicPath(topic string) string {
	return TopicsPath + "/" + topic
}

// TopicPartitionsPath returns the path of the parent of a topic's
// partition znodes, "/brokers/topics/<topic>/partitions". It holds no data.
func TopicPartitionsPath(topic string) string {
	return TopicsPath + "/" + topic + "/partitions"
}

// PartitionPath returns the path of the znode of a partition,
// "/brokers/topics/<topic>/partitions/<partition>", the parent of its
// state znode. It holds no data.
func PartitionPath(topic string, partition int32) string {
	return partitionPath(topic, partition, "")
}

// Equal reports whether t and u have the same id and the same partitions
// with equal assignments. A nil map equals an empty one.
func (t Topic) Equal(u Topic) bool {
	return t.ID == u.ID && maps.EqualFunc(t.Partitions, u.Partitions, ReplicaAssignment.Equal)
}

// Encode returns the JSON encoding of t as Kafka 3.9 writes it, version
// 3, for example
//
//	{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}
//
// The outer keys come in the order of Kafka's Scala 2.13 mutable map;
// topic_id is left out when t.ID is zero. adding_replicas and
// removing_replicas list only the partitions with a non-empty list. Each
// of the three maps lists its partitions in the iteration order of a
// Scala 2.13 mutable.HashMap of their decimal ids, filled in ascending id
// order: "0" to "10" ascending for up to 11 entries, another order beyond,
// as the map outgrows its table. (Kafka fills the maps in the order of its
// own partition map; that matters only for ids whose decimal strings have
// equal hash codes, which takes ids of 8 digits or more.)
//
// A negative partition id is written as it is, although DecodeTopic
// refuses it.
func (t Topic) Encode() []byte {
	return EncodeTopic(t.ID, t.assignments())
}

// AppendEncode appends the encoding of t, as returned by Encode, to dst
// and returns the extended slice.
func (t Topic) AppendEncode(dst []byte) []byte {
	return appendTopic(dst, t.ID, t.assignments())
}

// assignments returns t's partitions as a list, in no order.
func (t Topic) assignments() []PartitionAssignment {
	parts := make([]PartitionAssignment, 0, len(t.Partitions))
	for id, a := range t.Partitions {
		parts = append(parts, PartitionAssignment{Partition: id, ReplicaAssignment: a})
	}
	return parts
}

// PartitionAssignment is one partition of a topic znode, its id with its
// assignment, as EncodeTopic takes them.
type PartitionAssignment struct {
	Partition int32
	ReplicaAssignment
}

// EncodeTopic returns the encoding of the topic znode of a topic with id
// and partitions, as Topic.Encode returns it for the same topic, from a
// list rather than a map: for a caller that holds its partitions in one.
// The partition ids must be distinct; their order does not matter.
func EncodeTopic(id Uuid, partitions []PartitionAssignment) []byte {
	return appendTopic(make([]byte, 0, maxTopicLen(partitions)), id, partitions)
}

// maxTopicLen bounds the length of the encoding of a topic with
// partitions, closely: the room is allocated at once.
func maxTopicLen(partitions []PartitionAssignment) int {
	const fixed = len(`{"partitions":{},"topic_id":"","adding_replicas":{},"removing_replicas":{},"version":3}`) + uuidTextLen
	n := fixed
	for i := range partitions {
		a := &partitions[i]
		n += entryLen(a.Partition, a.Replicas)
		if len(a.AddingReplicas) > 0 {
			n += entryLen(a.Partition, a.AddingReplicas)
		}
		if len(a.RemovingReplicas) > 0 {
			n += entryLen(a.Partition, a.RemovingReplicas)
		}
	}
	return n
}

// entryLen bounds the length of the entry of partition id in a replica
// map, list its replicas, and the comma before it.
func entryLen(id int32, list []int32) int {
	n := len(`,"":[]`) + decimalLen(id) + max(len(list)-1, 0) // and the commas between replicas
	for _, r := range list {
		n += decimalLen(r)
	}
	return n
}

// decimalLen bounds the length of v in decimal.
func decimalLen(v int32) int {
	switch {
	case v < 0:
		return len("-2147483648")
	case v < 10:
		return 1
	case v < 100:
		return 2
	case v < 1000:
		return 3
	case v < 10000:
		return 4
	}
	return len("2147483647")
}

// appendTopic appends the encoding of the topic with id and partitions.
func appendTopic(dst []byte, id Uuid, partitions []PartitionAssignment) []byte {
	dst = append(dst, `{"partitions":`...)
	dst = appendReplicaMap(dst, partitions, func(a *PartitionAssignment) []int32 { return a.Replicas }, true)
	if !id.IsZero() {
		dst = append(dst, `,"topic_id":"`...)
		dst = append(id.AppendText(dst), '"')
	}
	dst = append(dst, `,"adding_replicas":`...)
	dst = appendReplicaMap(dst, partitions, func(a *PartitionAssignment) []int32 { return a.AddingReplicas }, false)
	dst = append(dst, `,"removing_replicas":`...)
	dst = appendReplicaMap(dst, partitions, func(a *PartitionAssignment) []int32 { return a.RemovingReplicas }, false)
	return append(dst, `,"version":3}`...)
}

// appendReplicaMap appends a JSON object mapping the decimal partition ids
// to the list replicas picks from each assignment, in Scala 2.13
// mutable.HashMap order. Unless all is set, partitions whose list is
// empty are left out.
func appendReplicaMap(dst []byte, partitions []PartitionAssignment, replicas func(*PartitionAssignment) []int32, all bool) []byte {
	var listed []*PartitionAssignment
	for i := range partitions {
		if all || len(replicas(&partitions[i])) > 0 {
			listed = append(listed, &partitions[i])
		}
	}
	if len(listed) == 0 {
		return append(dst, '{', '}')
	}
	ids := make([]int32, len(listed))
	for i, a := range listed {
		ids[i] = a.Partition
	}
	dst = append(dst, '{')
	for i, at := range scalaorder.MutableHashMapOrderOfDecimals(ids) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = appendInt32(dst, ids[at])
		dst = append(dst, `":`...)
		dst = appendReplicaList(dst, replicas(listed[at]))
	}
	return append(dst, '}')
}

// appendReplicaList appends vs as a JSON array.
func appendReplicaList(dst []byte, vs []int32) []byte {
	dst = append(dst, '[')
	for i, v := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendInt32(dst, v)
	}
	return append(dst, ']')
}

// appendInt32 appends v in decimal, as strconv.AppendInt does, with a
// shorter way for the values below 1000 that most broker and partition
// ids and epochs are.
func appendInt32(dst []byte, v int32) []byte {
	switch {
	case v < 0 || v >= 1000:
		return strconv.AppendInt(dst, int64(v), 10)
	case v < 10:
		return append(dst, byte('0'+v))
	case v < 100:
		return append(dst, byte('0'+v/10), byte('0'+v%10))
	}
	return append(dst, byte('0'+v/100), byte('0'+v/10%10), byte('0'+v%10))
}

// DecodeTopic decodes the content of a topic znode as Kafka 3.9's
// TopicZNode.decode reads it. The version is never read. partitions,
// topic_id, adding_replicas and removing_replicas are optional; a missing
// partitions is a topic without partitions. Partition ids are read as
// Integer.parseInt reads them ("007", "+1", digits of any script) and
// must not be negative; of two keys naming one partition the later one
// wins. A replica list must be an array of int32. adding_replicas and
// removing_replicas are looked up under each key of partitions, as
// written there; their other entries are never read, and an empty list is
// the same as none. topic_id must be Base64 of 16 bytes as Kafka's
// Uuid.fromString reads it (padding allowed, unused low bits ignored),
// other than the zero Uuid.
//
// The returned map is never nil; each Replicas is non-nil, possibly empty,
// and AddingReplicas and RemovingReplicas are nil unless non-empty. The
// lists may share one array, each capped at its length, so that an
// append to one never changes another. The
// Path of a returned *DecodeError is "/brokers/topics/<topic>", literally,
// and its Field names a nested key as "partitions.0".
func DecodeTopic(data []byte) (Topic, error) {
	if t, ok := decodeCanonicalTopic(data); ok {
		return t, nil
	}
	return decodeTopicJSON(data)
}

// decodeTopicJSON is DecodeTopic for any JSON.
func decodeTopicJSON(data []byte) (Topic, error) {
	o := parseObject(topicPattern, data)
	t := Topic{ID: o.topicID(), Partitions: map[int32]ReplicaAssignment{}}
	adding, removing := o.optSub("adding_replicas"), o.optSub("removing_replicas")
	if o.failed() || !o.has("partitions") {
		return t.orNone(o.err())
	}
	partitions := o.sub("partitions")
	for _, m := range partitions.members {
		id := partitions.partitionID(m.key)
		t.Partitions[id] = ReplicaAssignment{
			Replicas:         partitions.int32s(m.key),
			AddingReplicas:   adding.reassigned(m.key),
			RemovingReplicas: removing.reassigned(m.key),
		}
	}
	return t.orNone(o.err())
}

// orNone returns t, or the zero Topic when err is not nil, and err.
func (t Topic) orNone(err error) (Topic, error) {
	if err != nil {
		return Topic{}, err
	}
	return t, nil
}

// optSub returns an optional field holding an object, nil when it is
// absent.
func (o *object) optSub(field string) *object {
	if !o.has(field) {
		return nil
	}
	return o.sub(field)
}

// reassigned returns the non-empty replica list of a reassignment map, o,
// under key; nil when o is nil or has no such list.
func (o *object) reassigned(key string) []int32 {
	if o == nil || !o.has(key) {
		return nil
	}
	if r := o.int32s(key); len(r) > 0 {
		return r
	}
	return nil
}

// topicID returns the optional topic_id field, the zero Uuid when absent.
func (o *object) topicID() Uuid {
	const field = "topic_id"
	if !o.has(field) {
		return Uuid{}
	}
	s := o.str(field)
	if o.failed() {
		return Uuid{}
	}
	id, problem := parseKafkaUuid(s)
	switch {
	case problem != "":
		o.fail(field, ErrWrongType, problem)
	case id.IsZero():
		o.fail(field, ErrOutOfRange, "the zero Uuid is reserved for no id")
	}
	return id
}

// partitionID parses key, a member name, as a partition id the way
// Integer.parseInt does; it must not be negative.
func (o *object) partitionID(key string) int32 {
	field, quoted := shorten(key), strconv.Quote(shorten(key))
	v, isNumber, fits := parseJavaInt(key, 32)
	switch {
	case !isNumber:
		o.fail(field, ErrWrongType, "partition id "+quoted+" is not a decimal integer")
	case !fits:
		o.fail(field, ErrOutOfRange, "partition id "+quoted+" does not fit in int32")
	case v < 0:
		o.fail(field, ErrOutOfRange, "partition id "+quoted+" is negative")
	}
	return int32(v)
}
