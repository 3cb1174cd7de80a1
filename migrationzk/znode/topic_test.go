package znode

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goldenTopic is the reference's topic znode example (KAFKA-DUALWRITE.md,
// section 3), as a Scala 2.13 build writes it.
const goldenTopic = `{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`

// goldenTopicUuid is the id of goldenTopic.
var goldenTopicUuid = Uuid{0x0123456789ABCDEF, -0x0123456789ABCDF0}

// testReplicas returns the replicas the tests give partition p.
func testReplicas(p int) []int32 { return []int32{int32(p%5 + 1), int32((p+1)%5 + 1)} }

// denseTopic returns a topic with partitions 0 to n-1 and testReplicas.
func denseTopic(n int) Topic {
	t := Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{}}
	for p := 0; p < n; p++ {
		t.Partitions[int32(p)] = ReplicaAssignment{Replicas: testReplicas(p)}
	}
	return t
}

// topicJSON returns the encoding of a topic with goldenTopicUuid, no
// reassignment and testReplicas, its partitions written in order, a
// space-separated list.
func topicJSON(order string) string {
	var b strings.Builder
	b.WriteString(`{"partitions":{`)
	for i, key := range strings.Fields(order) {
		if i > 0 {
			b.WriteByte(',')
		}
		p, _ := strconv.Atoi(key)
		r := testReplicas(p)
		b.WriteString(`"` + key + `":[` + strconv.Itoa(int(r[0])) + "," + strconv.Itoa(int(r[1])) + "]")
	}
	b.WriteString(`},"topic_id":"` + goldenTopicID + `","adding_replicas":{},"removing_replicas":{},"version":3}`)
	return b.String()
}

// ascending returns "0 1 ... n-1".
func ascending(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	return strings.Join(ids, " ")
}

type topicGolden struct {
	name string
	t    Topic
	json string
}

func checkTopicGolden(t *testing.T, tests []topicGolden) {
	t.Helper()
	for _, tt := range tests {
		if got := string(tt.t.Encode()); got != tt.json {
			t.Errorf("%s: Encode() =\n%s\nwant\n%s", tt.name, got, tt.json)
		}
		got, err := DecodeTopic([]byte(tt.json))
		if err != nil || !got.Equal(tt.t) {
			t.Errorf("%s: DecodeTopic(%s) = %+v, %v; want %+v", tt.name, tt.json, got, err, tt.t)
		}
	}
}

// Vectors from the reference: its example, and partition maps in
// ascending order up to 11 entries (KAFKA-DUALWRITE.md, 2.3 and 3).
func TestTopicGoldenReference(t *testing.T) {
	tests := []topicGolden{{
		"reference example",
		Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2, 3}}, 1: {Replicas: []int32{2, 3, 1}}}},
		goldenTopic,
	}}
	for _, n := range []int{1, 2, 3, 5, 11} {
		tests = append(tests, topicGolden{strconv.Itoa(n) + " partitions", denseTopic(n), topicJSON(ascending(n))})
	}
	checkTopicGolden(t, tests)
}

// Vectors derived by hand from the Scala 2.13 mutable.HashMap rules (see
// internal/scalaorder for the bucket arithmetic).
func TestTopicGoldenDerived(t *testing.T) {
	sparse := Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{}}
	for _, p := range []int{100, 17, 5, 0} {
		sparse.Partitions[int32(p)] = ReplicaAssignment{Replicas: testReplicas(p)}
	}
	checkTopicGolden(t, []topicGolden{
		{"12 partitions", denseTopic(12), topicJSON("11 0 1 2 3 4 5 6 7 8 9 10")},
		{"13 partitions", denseTopic(13), topicJSON("11 12 0 1 2 3 4 5 6 7 8 9 10")},
		// Buckets 0 and 31 of 32 hold two ids each, sorted by hash.
		{"23 partitions", denseTopic(23), topicJSON("11 22 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 10 21")},
		{"24 partitions", denseTopic(24), topicJSON("22 23 10 11 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 21")},
		{"25 partitions", denseTopic(25), topicJSON("22 23 24 10 11 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 21")},
		{"sparse ids", sparse, topicJSON("0 100 5 17")},
	})
}

// More derived vectors: reassignments, a topic without id, empty lists.
func TestTopicGoldenShapes(t *testing.T) {
	reassigning := Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{
		0: {Replicas: []int32{1, 2, 3, 4}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}},
		1: {Replicas: []int32{2, 3, 1}, AddingReplicas: []int32{}},
		2: {Replicas: []int32{3, 1, 2, 5}, AddingReplicas: []int32{5}},
	}}
	// 12 partitions take 32 buckets ("11" first), but adding_replicas
	// with 2 entries takes 16, where "0" comes before "11".
	twelve := denseTopic(12)
	for _, p := range []int32{11, 0} {
		a := twelve.Partitions[p]
		a.AddingReplicas = []int32{9}
		twelve.Partitions[p] = a
	}
	twelveJSON := strings.Replace(topicJSON("11 0 1 2 3 4 5 6 7 8 9 10"), `"adding_replicas":{}`, `"adding_replicas":{"0":[9],"11":[9]}`, 1)
	checkTopicGolden(t, []topicGolden{
		{"reassignment", reassigning, `{"partitions":{"0":[1,2,3,4],"1":[2,3,1],"2":[3,1,2,5]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{"0":[4],"2":[5]},"removing_replicas":{"0":[1]},"version":3}`},
		{"inner maps ordered apart", twelve, twelveJSON},
		{"no topic id", Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1}}}}, `{"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{},"version":3}`},
		{"no partitions", Topic{ID: goldenTopicUuid}, `{"partitions":{},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`},
		{"no replicas", Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {}}}, `{"partitions":{"0":[]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`},
		{"extreme ids", Topic{ID: Uuid{-1, -1}, Partitions: map[int32]ReplicaAssignment{2147483647: {Replicas: []int32{-2147483648, 2147483647}}}}, `{"partitions":{"2147483647":[-2147483648,2147483647]},"topic_id":"_____________________w","adding_replicas":{},"removing_replicas":{},"version":3}`},
	})
}

func TestTopicDecodeOtherOrders(t *testing.T) {
	twoPartitions := Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2, 3}}, 1: {Replicas: []int32{2, 3, 1}}}}
	tests := []struct {
		name string
		json string
		want Topic
	}{
		// Scala 2.12 orders from the reference: the outer keys, and 2
		// partitions as "1,0".
		{"Scala 2.12", `{"removing_replicas":{},"partitions":{"1":[2,3,1],"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"version":3}`, twoPartitions},
		// Scala 2.12 partition orders for 3 and 5 partitions.
		{"Scala 2.12, 3 partitions", topicJSON("2 1 0"), denseTopic(3)},
		{"Scala 2.12, 5 partitions", topicJSON("2 1 4 0 3"), denseTopic(5)},
		{"reversed", `{"version":3,"removing_replicas":{},"adding_replicas":{},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","partitions":{"1":[2,3,1],"0":[1,2,3]}}`, twoPartitions},
		{"extra keys", `{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3,"x":[null],"y":{"z":1.5}}`, twoPartitions},
		{"whitespace", " {\n \"partitions\" : { \"0\" : [ 1 , 2 , 3 ] , \"1\" : [2,3,1] } ,\t\"topic_id\" : \"ASNFZ4mrze_-3LqYdlQyEA\" , \"adding_replicas\" : { } , \"removing_replicas\" : {} , \"version\" : 3 } \n", twoPartitions},
		{"escaped keys", `{"partitions":{"\u0030":[1,2,3],"1":[2,3,1]},"topic\u005fid":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`, twoPartitions},
		{"duplicate key, last wins", `{"partitions":{"0":[9],"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","version":3}`, twoPartitions},
		// Versions 1 and 2, written before topic ids.
		{"version 1", `{"version":1,"partitions":{"0":[0,1,3]}}`, Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{0, 1, 3}}}}},
		{"version 1 with spaces", `{ "version": 1, "partitions": {"0": [0, 1, 3] } }`, Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{0, 1, 3}}}}},
		{"version 2", `{"version":2,"partitions":{"0":[1,2,3,4]},"adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]}}`, Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2, 3, 4}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}}}}},
		// Fields are read whatever the version, as Kafka does.
		{"version 1 with an id", `{"version":1,"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA"}`, twoPartitions},
		{"version 3 without id", `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`, Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1}}}}},
		// An empty reassignment list is the same as none.
		{"empty adding list", `{"version":3,"partitions":{"0":[1]},"adding_replicas":{"0":[]},"removing_replicas":{"0":[]}}`, Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1}}}}},
		{"minus zero replica", `{"version":3,"partitions":{"0":[-0]}}`, Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{0}}}}},
	}
	for _, tt := range tests {
		got, err := DecodeTopic([]byte(tt.json))
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%s: DecodeTopic(%s) = %+v, %v; want %+v", tt.name, tt.json, got, err, tt.want)
			continue
		}
		checkDecodedTopicShape(t, got)
	}
}

// checkDecodedTopicShape checks the promises DecodeTopic makes about the
// shape of what it returns.
func checkDecodedTopicShape(t *testing.T, got Topic) {
	t.Helper()
	if got.Partitions == nil {
		t.Fatal("decoded a nil partition map")
	}
	for p, a := range got.Partitions {
		if p < 0 {
			t.Fatalf("decoded partition %d", p)
		}
		if a.Replicas == nil {
			t.Fatalf("partition %d: nil Replicas", p)
		}
		if (a.AddingReplicas != nil && len(a.AddingReplicas) == 0) || (a.RemovingReplicas != nil && len(a.RemovingReplicas) == 0) {
			t.Fatalf("partition %d: empty, non-nil reassignment list: %+v", p, a)
		}
	}
}

func TestTopicEqual(t *testing.T) {
	base := Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2}, AddingReplicas: []int32{2}}}}
	if !base.Equal(base) {
		t.Error("topic not equal to itself")
	}
	if !(Topic{}).Equal(Topic{Partitions: map[int32]ReplicaAssignment{}}) {
		t.Error("nil partition map not equal to an empty one")
	}
	if !(Topic{Partitions: map[int32]ReplicaAssignment{0: {}}}).Equal(Topic{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{}, RemovingReplicas: []int32{}}}}) {
		t.Error("nil lists not equal to empty ones")
	}
	for _, o := range []Topic{
		{ID: Uuid{}, Partitions: base.Partitions},
		{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{1: base.Partitions[0]}},
		{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{2, 1}, AddingReplicas: []int32{2}}}},
		{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2}}}},
		{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2}, AddingReplicas: []int32{2}, RemovingReplicas: []int32{1}}}},
		{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: base.Partitions[0], 1: base.Partitions[0]}},
	} {
		if base.Equal(o) || o.Equal(base) {
			t.Errorf("%+v equal to %+v", base, o)
		}
	}
}

func TestTopicPaths(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{TopicPath("orders"), "/brokers/topics/orders"},
		{TopicPartitionsPath("orders"), "/brokers/topics/orders/partitions"},
		{PartitionPath("orders", 7), "/brokers/topics/orders/partitions/7"},
		{PartitionPath("orders", 7) + "/state", PartitionStatePath("orders", 7)},
	} {
		if tt.got != tt.want {
			t.Errorf("path %q, want %q", tt.got, tt.want)
		}
	}
}

func TestTopicAppendEncode(t *testing.T) {
	topics := []Topic{denseTopic(0), denseTopic(3), denseTopic(30), {Partitions: map[int32]ReplicaAssignment{-2147483648: {Replicas: []int32{-2147483648}, AddingReplicas: []int32{-2147483648}, RemovingReplicas: []int32{-2147483648}}}}}
	for _, tp := range topics {
		enc := tp.Encode()
		if got := tp.AppendEncode([]byte("prefix:")); string(got) != "prefix:"+string(enc) {
			t.Errorf("AppendEncode = %q, want prefix:%q", got, enc)
		}
		if n := maxTopicLen(tp.assignments()); len(enc) > n {
			t.Errorf("encoding of %d partitions: len %d > %d", len(tp.Partitions), len(enc), n)
		}
	}
}

// appendInt32 writes what strconv.AppendInt writes, across its short
// cases' edges and beyond.
func TestAppendInt32(t *testing.T) {
	for _, v := range []int32{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 65535, math.MaxInt32, -1, -9, -10, -999, -1000, math.MinInt32} {
		if got, want := string(appendInt32([]byte("x"), v)), "x"+strconv.Itoa(int(v)); got != want {
			t.Errorf("appendInt32(%d) = %q, want %q", v, got, want)
		}
	}
}

// EncodeTopic encodes a list of partitions as Topic.Encode encodes the
// map that holds them, whatever the list's order.
func TestEncodeTopic(t *testing.T) {
	sparse := Topic{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{
		7: {Replicas: []int32{1, 2}, AddingReplicas: []int32{2}}, 1400090000: {Replicas: []int32{3}}, 1093703041: {Replicas: []int32{4}, RemovingReplicas: []int32{4}}, 0: {Replicas: []int32{}},
	}}
	for _, tp := range []Topic{denseTopic(0), denseTopic(3), denseTopic(30), denseTopic(1000), sparse} {
		list := tp.assignments()
		slices.SortFunc(list, func(a, b PartitionAssignment) int { return cmp.Compare(a.Partition, b.Partition) })
		ascending := EncodeTopic(tp.ID, list)
		slices.Reverse(list)
		descending := EncodeTopic(tp.ID, list)
		if want := tp.Encode(); string(ascending) != string(want) || string(descending) != string(want) {
			t.Errorf("EncodeTopic of %d partitions =\n%s\n%s\nwant\n%s", len(list), ascending, descending, want)
		}
		// The room allocated at once holds the encoding, with little to
		// spare.
		if n := maxTopicLen(list); len(ascending) > n || n > len(ascending)+64 {
			t.Errorf("EncodeTopic of %d partitions: %d bytes in a room of %d", len(list), len(ascending), n)
		}
	}
}

// goldenTopicBad returns a function making a bad input from goldenTopic
// with old replaced by new.
func goldenTopicBad(t *testing.T) func(name, old, new string, reason error, field string) badInput {
	return func(name, old, new string, reason error, field string) badInput {
		return badInput{name, replace(t, goldenTopic, old, new), reason, field}
	}
}

// topicBadStructure returns inputs DecodeTopic refuses for their version,
// their partitions object or its keys.
func topicBadStructure(t *testing.T) []badInput {
	in := goldenTopicBad(t)
	p0 := `"0":[1,2,3]`
	return []badInput{
		in("partitions null", `{"0":[1,2,3],"1":[2,3,1]}`, "null", ErrWrongType, "partitions"),
		in("partitions array", `{"0":[1,2,3],"1":[2,3,1]}`, "[[1,2,3]]", ErrWrongType, "partitions"),
		in("partitions string", `{"0":[1,2,3],"1":[2,3,1]}`, `"0"`, ErrWrongType, "partitions"),
		in("partition key letters", p0, `"a":[1,2,3]`, ErrWrongType, "partitions.a"),
		in("partition key empty", p0, `"":[1,2,3]`, ErrWrongType, "partitions."),
		in("partition key space", p0, `" 0":[1,2,3]`, ErrWrongType, "partitions. 0"),
		in("partition key float", p0, `"0.0":[1,2,3]`, ErrWrongType, "partitions.0.0"),
		in("partition key negative", p0, `"-1":[1,2,3]`, ErrOutOfRange, "partitions.-1"),
		in("partition key too big", p0, `"`+tooBig32+`":[1,2,3]`, ErrOutOfRange, "partitions."+tooBig32),
	}
}

// topicBadValues returns inputs DecodeTopic refuses for a replica list,
// the topic id or a reassignment map.
func topicBadValues(t *testing.T) []badInput {
	in := goldenTopicBad(t)
	id := `"topic_id":"ASNFZ4mrze_-3LqYdlQyEA"`
	p0 := `"0":[1,2,3]`
	return []badInput{
		in("replicas null", p0, `"0":null`, ErrWrongType, "partitions.0"),
		in("replicas number", p0, `"0":1`, ErrWrongType, "partitions.0"),
		in("replicas object", p0, `"0":{"1":2}`, ErrWrongType, "partitions.0"),
		in("replica string", p0, `"0":[1,"2",3]`, ErrWrongType, "partitions.0"),
		in("replica float", p0, `"0":[1,2.0,3]`, ErrWrongType, "partitions.0"),
		in("replica exponent", p0, `"0":[1e0]`, ErrWrongType, "partitions.0"),
		in("replica null", p0, `"0":[null]`, ErrWrongType, "partitions.0"),
		in("replica too big", p0, `"0":[`+tooBig32+`]`, ErrOutOfRange, "partitions.0"),
		in("replica too small", p0, `"0":[-2147483649]`, ErrOutOfRange, "partitions.0"),
		in("topic_id number", id, `"topic_id":1`, ErrWrongType, "topic_id"),
		in("topic_id null", id, `"topic_id":null`, ErrWrongType, "topic_id"),
		in("topic_id object", id, `"topic_id":{}`, ErrWrongType, "topic_id"),
		in("topic_id empty", id, `"topic_id":""`, ErrWrongType, "topic_id"),
		in("topic_id short", id, `"topic_id":"ASNFZ4mrze_-3LqYdlQyE"`, ErrWrongType, "topic_id"),
		in("topic_id standard alphabet", id, `"topic_id":"ASNFZ4mrze/+3LqYdlQyEA"`, ErrWrongType, "topic_id"),
		in("topic_id Java form", id, `"topic_id":"01234567-89ab-cdef-fedc-ba9876543210"`, ErrWrongType, "topic_id"),
		in("topic_id zero", id, `"topic_id":"AAAAAAAAAAAAAAAAAAAAAA"`, ErrOutOfRange, "topic_id"),
		in("adding_replicas null", `"adding_replicas":{}`, `"adding_replicas":null`, ErrWrongType, "adding_replicas"),
		in("adding_replicas array", `"adding_replicas":{}`, `"adding_replicas":[]`, ErrWrongType, "adding_replicas"),
		in("adding_replicas list null", `"adding_replicas":{}`, `"adding_replicas":{"0":null}`, ErrWrongType, "adding_replicas.0"),
		in("adding_replicas bad replica", `"adding_replicas":{}`, `"adding_replicas":{"0":[true]}`, ErrWrongType, "adding_replicas.0"),
		in("removing_replicas string", `"removing_replicas":{}`, `"removing_replicas":"0"`, ErrWrongType, "removing_replicas"),
	}
}

func TestDecodeTopicBad(t *testing.T) {
	tests := append(commonBad(goldenTopic, ""), topicBadStructure(t)...)
	tests = append(tests, topicBadValues(t)...)
	for _, in := range tests {
		got, err := DecodeTopic(in.data)
		if got.Partitions != nil || !got.ID.IsZero() {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/brokers/topics/<topic>", in)
	}
}

func TestDecodeTopicErrorMessages(t *testing.T) {
	for _, tt := range []struct{ json, want string }{
		{`{"version":3,"partitions":{"0":[1,"2"]}}`, `decode /brokers/topics/<topic>: field "partitions.0": wrong type: element 1: got string, want integer`},
		{`{"version":3,"partitions":{},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA"}`, `decode /brokers/topics/<topic>: field "topic_id": number out of range: the zero Uuid is reserved for no id`},
	} {
		_, err := DecodeTopic([]byte(tt.json))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want+" (data: ") {
			t.Errorf("DecodeTopic(%s) error =\n%v\nwant\n%s (data: ...)", tt.json, err, tt.want)
		}
	}
	// The first bad key in the document is reported, every time.
	data := []byte(`{"version":3,"partitions":{"z":[1],"b":[1],"a":[1],"y":[1]}}`)
	for i := 0; i < 20; i++ {
		_, err := DecodeTopic(data)
		if de, ok := err.(*DecodeError); !ok || de.Field != "partitions.z" {
			t.Fatalf("error %v, want one about partitions.z", err)
		}
	}
}

// topicSeeds returns inputs for the fuzz targets of DecodeTopic.
func topicSeeds() []string {
	return append(jsonSeeds(),
		goldenTopic,
		`{"version":3}`,
		`{"version":1,"partitions":{"0":[0,1,3]}}`,
		`{"removing_replicas":{},"partitions":{"1":[2,3,1],"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"version":3}`,
		`{"version":2,"partitions":{"0":[1,2,3,4]},"adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]}}`,
		`{"version":3,"partitions":{"00":[1],"0":[2]}}`,
		`{"version":3,"partitions":{"0":[]},"adding_replicas":{"0":[]}}`,
		`{"version":3,"partitions":{"0":[1]},"adding_replicas":{"1":[2]}}`,
		`{"version":3,"partitions":{},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA"}`,
		topicJSON(ascending(12)),
		// Encode's form, and near misses of it for the shortcut to refuse.
		`{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{"1":[4]},"removing_replicas":{"0":[1]},"version":3}`,
		`{"partitions":{"0":[],"1":[]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"-1":[1]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1],"0":[2]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"adding_replicas":{"1":[2]},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"adding_replicas":{"0":[]},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[01]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA==","adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEB","adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"1":[1],"0":[2]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[2147483648]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"topic_id":"ASNFZ4mr`,
	)
}

// threeReplicas returns n partitions, from 0, of three replicas each.
func threeReplicas(n int32) map[int32]ReplicaAssignment {
	ps := map[int32]ReplicaAssignment{}
	for i := int32(0); i < n; i++ {
		ps[i] = ReplicaAssignment{Replicas: []int32{i%3 + 1, (i+1)%3 + 1, (i+2)%3 + 1}}
	}
	return ps
}

// TestCanonicalTopicShortcut holds the shortcut of DecodeTopic to what it
// is for: it reads Encode's form of every kind of topic, sharing nothing
// between lists, and gives up on the near misses of it.
func TestCanonicalTopicShortcut(t *testing.T) {
	for _, tp := range []Topic{
		{Partitions: map[int32]ReplicaAssignment{}},
		{ID: goldenTopicUuid, Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{}}}},
		{ID: goldenTopicUuid, Partitions: threeReplicas(12)},
		{Partitions: map[int32]ReplicaAssignment{0: {Replicas: []int32{1, 2, 3, 4}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}}, 7: {Replicas: []int32{-5, 2147483647}}}},
	} {
		got, ok := decodeCanonicalTopic(tp.Encode())
		if !ok || !got.Equal(tp) {
			t.Fatalf("shortcut of %s: %+v, %v", tp.Encode(), got, ok)
		}
		checkDecodedTopicShape(t, got)
		for id, a := range got.Partitions {
			if len(a.Replicas) > 0 && cap(a.Replicas) != len(a.Replicas) {
				t.Fatalf("partition %d: a list of %d with room for %d", id, len(a.Replicas), cap(a.Replicas))
			}
		}
	}
	for _, s := range []string{
		`{"partitions":{"-1":[1]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1],"0":[2]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"adding_replicas":{"1":[2]},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"1":[1],"0":[2]},"adding_replicas":{},"removing_replicas":{},"version":3}`,
		`{"partitions":{"0":[1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA==","adding_replicas":{},"removing_replicas":{},"version":3}`,
	} {
		if got, ok := decodeCanonicalTopic([]byte(s)); ok {
			t.Errorf("shortcut took %s: %+v", s, got)
		}
	}
}

func FuzzDecodeTopic(f *testing.F) {
	for _, s := range topicSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := DecodeTopic(data)
		if fast, ok := decodeCanonicalTopic(data); ok {
			// The canonical form's shortcut agrees with the JSON decoder.
			general, gerr := decodeTopicJSON(data)
			if gerr != nil || !general.Equal(fast) {
				t.Fatalf("%q: shortcut %+v, JSON decoder %+v, %v", data, fast, general, gerr)
			}
			checkDecodedTopicShape(t, fast)
		}
		if err != nil {
			checkFuzzError(t, err, topicPattern, data)
			if tp.Partitions != nil || !tp.ID.IsZero() {
				t.Fatalf("decoded %+v along with error %v", tp, err)
			}
			return
		}
		checkAccepted(t, data)
		checkDecodedTopicShape(t, tp)
		enc := tp.Encode()
		tp2, err := DecodeTopic(enc)
		if err != nil || !tp2.Equal(tp) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", tp, tp2, err)
		}
		if enc2 := tp2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

// topicFromBytes builds a valid topic from fuzz input: each 9-byte record
// holds a partition id (made non-negative), a byte choosing the list and
// a replica to append to it.
func topicFromBytes(msb, lsb int64, raw []byte) Topic {
	tp := Topic{ID: Uuid{msb, lsb}, Partitions: map[int32]ReplicaAssignment{}}
	for ; len(raw) >= 9; raw = raw[9:] {
		id := int32(binary.LittleEndian.Uint32(raw) & 0x7FFFFFFF)
		replica := int32(binary.LittleEndian.Uint32(raw[5:]))
		a := tp.Partitions[id]
		switch raw[4] % 3 {
		case 0:
			a.Replicas = append(a.Replicas, replica)
		case 1:
			a.AddingReplicas = append(a.AddingReplicas, replica)
		default:
			a.RemovingReplicas = append(a.RemovingReplicas, replica)
		}
		tp.Partitions[id] = a
	}
	return tp
}

func FuzzTopicRoundTrip(f *testing.F) {
	f.Add(int64(0x0123456789ABCDEF), int64(-0x0123456789ABCDF0), []byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0})
	f.Add(int64(0), int64(0), []byte{})
	f.Add(int64(-1), int64(1), []byte{0xff, 0xff, 0xff, 0x7f, 1, 0xff, 0xff, 0xff, 0xff, 0x0e, 0xe3, 0xa3, 0, 2, 9, 0, 0, 0})
	f.Add(int64(1), int64(2), bytes.Repeat([]byte{11, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 23, 0, 0, 0, 0, 5, 0, 0, 0}, 4))
	f.Fuzz(func(t *testing.T, msb, lsb int64, raw []byte) {
		tp := topicFromBytes(msb, lsb, raw)
		enc := tp.Encode()
		got, err := DecodeTopic(enc)
		if err != nil || !got.Equal(tp) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v\n%s", tp, got, err, enc)
		}
		if n := maxTopicLen(tp.assignments()); len(enc) > n {
			t.Fatalf("len %d > maxTopicLen %d", len(enc), n)
		}
	})
}
