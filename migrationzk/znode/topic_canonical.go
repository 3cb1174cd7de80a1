package znode

import "bytes"

// decodeCanonicalTopic reads data written exactly as Topic.Encode writes
// it, the form Kafka writes and nearly every topic znode holds. It
// returns the topic and true only when the topic's partition ids are not
// negative and Encode of the topic gives data back byte for byte; since
// DecodeTopic reads Encode's bytes of such a topic back to that topic, it
// then agrees with the general decoder. Anything else, valid or not,
// returns false for the general decoder to judge. The replica lists of
// the returned topic share one array, each capped at its own length.
func decodeCanonicalTopic(data []byte) (Topic, bool) {
	c := canonicalReader{data: data}
	t := Topic{Partitions: make(map[int32]ReplicaAssignment, bytes.Count(data, []byte{'['}))}
	r := replicaLists{backing: make([]int32, 0, bytes.Count(data, []byte{','})+3)}
	c.expect(`{"partitions":`)
	r.readMap(&c, func(id int32, list []int32) bool {
		t.Partitions[id] = ReplicaAssignment{Replicas: list}
		return true
	})
	if c.has(`,"topic_id":"`) && !c.failed && c.at+uuidTextLen < len(data) {
		id, problem := parseKafkaUuid(string(data[c.at : c.at+uuidTextLen]))
		c.at += uuidTextLen
		c.expect(`"`)
		c.failed = c.failed || problem != ""
		t.ID = id
	}
	c.expect(`,"adding_replicas":`)
	r.readMap(&c, t.reassignment(func(a *ReplicaAssignment, list []int32) { a.AddingReplicas = list }))
	c.expect(`,"removing_replicas":`)
	r.readMap(&c, t.reassignment(func(a *ReplicaAssignment, list []int32) { a.RemovingReplicas = list }))
	c.expect(`,"version":3}`)
	if c.failed || c.at != len(data) {
		return Topic{}, false
	}
	room := make([]byte, 0, len(data))
	if !bytes.Equal(t.AppendEncode(room), data) {
		return Topic{}, false
	}
	return t, true
}

// reassignment returns the function that sets, with set, a non-empty
// list of a partition t holds; it refuses any other.
func (t Topic) reassignment(set func(*ReplicaAssignment, []int32)) func(int32, []int32) bool {
	return func(id int32, list []int32) bool {
		a, ok := t.Partitions[id]
		if !ok || len(list) == 0 {
			return false
		}
		set(&a, list)
		t.Partitions[id] = a
		return true
	}
}

// replicaLists reads the replica lists of a topic into one array.
type replicaLists struct{ backing []int32 }

// readMap reads a JSON object of decimal partition ids to replica lists,
// as Encode writes one, and hands each entry to add; it fails c on a
// negative id or when add refuses an entry.
func (r *replicaLists) readMap(c *canonicalReader, add func(id int32, list []int32) bool) {
	c.expect("{")
	for n := 0; !c.failed && !c.has("}"); n++ {
		if n > 0 {
			c.expect(",")
		}
		c.expect(`"`)
		id := c.int32()
		c.expect(`":[`)
		start := len(r.backing)
		for !c.failed && !c.has("]") {
			if len(r.backing) > start {
				c.expect(",")
			}
			r.backing = append(r.backing, c.int32())
		}
		if c.failed || id < 0 || !add(id, r.backing[start:len(r.backing):len(r.backing)]) {
			c.failed = true
		}
	}
}
