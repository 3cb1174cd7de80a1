package znode

import (
	"bytes"
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

// topicVersion is the version Kafka 3.9 writes; 1 and 2 are read too.
const topicVersion = 3

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
	return t.AppendEncode(make([]byte, 0, t.maxEncodedLen()))
}

// maxEncodedLen bounds the length of the encoding of t.
func (t Topic) maxEncodedLen() int {
	const fixed = len(`{"partitions":{},"topic_id":"","adding_replicas":{},"removing_replicas":{},"version":3}`) + uuidTextLen
	n := fixed
	for _, a := range t.Partitions {
		const perMap = len(`,"-2147483648":[]`)
		n += 3*perMap + 12*(len(a.Replicas)+len(a.AddingReplicas)+len(a.RemovingReplicas))
	}
	return n
}

// AppendEncode appends the encoding of t, as returned by Encode, to dst
// and returns the extended slice.
func (t Topic) AppendEncode(dst []byte) []byte {
	ids := slices.Sorted(maps.Keys(t.Partitions))
	dst = append(dst, `{"partitions":`...)
	dst = t.appendReplicaMap(dst, ids, func(a ReplicaAssignment) []int32 { return a.Replicas }, true)
	if !t.ID.IsZero() {
		dst = append(dst, `,"topic_id":"`...)
		dst = append(t.ID.AppendText(dst), '"')
	}
	dst = append(dst, `,"adding_replicas":`...)
	dst = t.appendReplicaMap(dst, ids, func(a ReplicaAssignment) []int32 { return a.AddingReplicas }, false)
	dst = append(dst, `,"removing_replicas":`...)
	dst = t.appendReplicaMap(dst, ids, func(a ReplicaAssignment) []int32 { return a.RemovingReplicas }, false)
	return append(dst, `,"version":3}`...)
}

// appendReplicaMap appends a JSON object mapping the decimal partition ids
// to the list replicas picks from each assignment, in Scala 2.13
// mutable.HashMap order. ids are t's partition ids in ascending order;
// unless all is set, partitions whose list is empty are left out.
func (t Topic) appendReplicaMap(dst []byte, ids []int32, replicas func(ReplicaAssignment) []int32, all bool) []byte {
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		if all || len(replicas(t.Partitions[id])) > 0 {
			keys = append(keys, strconv.FormatInt(int64(id), 10))
		}
	}
	dst = append(dst, '{')
	for i, key := range scalaorder.MutableHashMapOrder(keys) {
		if i > 0 {
			dst = append(dst, ',')
		}
		id, _ := strconv.ParseInt(key, 10, 32)
		dst = append(dst, '"')
		dst = append(dst, key...)
		dst = append(dst, `":`...)
		dst = appendReplicaList(dst, replicas(t.Partitions[int32(id)]))
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
		dst = strconv.AppendInt(dst, int64(v), 10)
	}
	return append(dst, ']')
}

// DecodeTopic decodes the content of a topic znode. Versions 1, 2 and 3
// are read, and every field is read whatever the version, as Kafka does:
// partitions is required; topic_id, adding_replicas and removing_replicas
// are optional. Partition ids must be non-negative int32 in canonical
// decimal form ("7", not "07" or "-0"), so that no two keys name the same
// partition; replica lists must be arrays of int32. Every partition that
// adding_replicas or removing_replicas lists must be in partitions; an
// empty list there is the same as none. topic_id must be the text of a
// Uuid other than the zero one. (Kafka's own reader ignores the version,
// takes a missing partitions as no partitions and any key Integer.parseInt
// reads as an id; this one refuses all three rather than guess.)
//
// The returned map is never nil; each Replicas is non-nil, possibly empty,
// and AddingReplicas and RemovingReplicas are nil unless non-empty. The
// Path of a returned *DecodeError is "/brokers/topics/<topic>", literally,
// and its Field names a nested key as "partitions.0".
func DecodeTopic(data []byte) (Topic, error) {
	o, err := parseObject(topicPattern, data)
	if err != nil {
		return Topic{}, err
	}
	if _, err := o.version(1, 2, topicVersion); err != nil {
		return Topic{}, err
	}
	replicas, err := o.replicaMap("partitions", true)
	if err != nil {
		return Topic{}, err
	}
	id, err := o.topicID()
	if err != nil {
		return Topic{}, err
	}
	adding, err := o.replicaMap("adding_replicas", false)
	if err != nil {
		return Topic{}, err
	}
	removing, err := o.replicaMap("removing_replicas", false)
	if err != nil {
		return Topic{}, err
	}
	partitions, err := o.assignments(replicas, adding, removing)
	if err != nil {
		return Topic{}, err
	}
	return Topic{ID: id, Partitions: partitions}, nil
}

// topicID returns the optional topic_id field, the zero Uuid when absent.
func (o *object) topicID() (Uuid, error) {
	const field = "topic_id"
	if _, ok := o.members[field]; !ok {
		return Uuid{}, nil
	}
	s, err := o.str(field)
	if err != nil {
		return Uuid{}, err
	}
	id, problem := parseUuid(s)
	if problem != "" {
		return Uuid{}, o.fail(field, ErrWrongType, problem)
	}
	if id.IsZero() {
		return Uuid{}, o.fail(field, ErrOutOfRange, "the zero Uuid is reserved for no id")
	}
	return id, nil
}

// replicaMap returns a field holding an object that maps partition ids to
// replica lists, nil when it is absent and not required.
func (o *object) replicaMap(field string, required bool) (map[int32][]int32, error) {
	if _, ok := o.members[field]; !ok && !required {
		return nil, nil
	}
	sub, err := o.sub(field)
	if err != nil {
		return nil, err
	}
	// Sorted keys make the reported error, if any, the same every time.
	keys := slices.Sorted(maps.Keys(sub.members))
	m := make(map[int32][]int32, len(keys))
	for _, key := range keys {
		id, err := sub.partitionID(key)
		if err != nil {
			return nil, err
		}
		if m[id], err = sub.replicaList(key); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// partitionID parses key, a member name, as a partition id: a
// non-negative int32 in canonical decimal form.
func (o *object) partitionID(key string) (int32, error) {
	field, quoted := shorten(key), strconv.Quote(shorten(key))
	if !isDecimal(key) {
		return 0, o.fail(field, ErrWrongType, "partition id "+quoted+" is not a decimal integer")
	}
	v, err := o.parseDecimal(field, key, 32)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, o.fail(field, ErrOutOfRange, "partition id "+quoted+" is negative")
	}
	if strconv.FormatInt(v, 10) != key {
		return 0, o.fail(field, ErrWrongType, "partition id "+quoted+" is not in canonical decimal form")
	}
	return int32(v), nil
}

// replicaList returns a required field holding an array of int32.
func (o *object) replicaList(field string) ([]int32, error) {
	elems, err := o.elems(field)
	if err != nil {
		return nil, err
	}
	replicas := make([]int32, 0, len(elems))
	for i, e := range elems {
		v, err := o.parseInt(field, bytes.TrimSpace(e), 32)
		if err != nil {
			if de, ok := err.(*DecodeError); ok {
				de.Detail = "element " + strconv.Itoa(i) + ": " + de.Detail
			}
			return nil, err
		}
		replicas = append(replicas, int32(v))
	}
	return replicas, nil
}

// assignments combines the three replica maps of a topic znode. Every
// partition listed in adding or removing must be in replicas.
func (o *object) assignments(replicas, adding, removing map[int32][]int32) (map[int32]ReplicaAssignment, error) {
	partitions := make(map[int32]ReplicaAssignment, len(replicas))
	for id, r := range replicas {
		partitions[id] = ReplicaAssignment{Replicas: r}
	}
	err := o.attachReplicas(partitions, "adding_replicas", adding, func(a *ReplicaAssignment, r []int32) { a.AddingReplicas = r })
	if err != nil {
		return nil, err
	}
	err = o.attachReplicas(partitions, "removing_replicas", removing, func(a *ReplicaAssignment, r []int32) { a.RemovingReplicas = r })
	if err != nil {
		return nil, err
	}
	return partitions, nil
}

// attachReplicas sets, with set, the non-empty lists of the replica map
// of field on the partitions they belong to.
func (o *object) attachReplicas(partitions map[int32]ReplicaAssignment, field string, lists map[int32][]int32, set func(*ReplicaAssignment, []int32)) error {
	for _, id := range slices.Sorted(maps.Keys(lists)) {
		a, ok := partitions[id]
		if !ok {
			key := strconv.FormatInt(int64(id), 10)
			return o.fail("partitions."+key, ErrMissingField, field+" lists partition "+key)
		}
		if len(lists[id]) > 0 {
			set(&a, lists[id])
			partitions[id] = a
		}
	}
	return nil
}
