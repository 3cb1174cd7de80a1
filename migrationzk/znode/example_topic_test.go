package znode_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleTopic_Encode() {
	id, _ := znode.ParseUuid("ASNFZ4mrze_-3LqYdlQyEA")
	t := znode.Topic{ID: id, Partitions: map[int32]znode.ReplicaAssignment{
		0: {Replicas: []int32{1, 2, 3}},
		1: {Replicas: []int32{2, 3, 1}},
	}}
	fmt.Printf("%s\n", t.Encode())

	// A reassignment in progress on partition 1.
	t.Partitions[1] = znode.ReplicaAssignment{Replicas: []int32{2, 3, 1, 4}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{2}}
	fmt.Printf("%s\n", t.Encode())
	// Output:
	// {"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}
	// {"partitions":{"0":[1,2,3],"1":[2,3,1,4]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{"1":[4]},"removing_replicas":{"1":[2]},"version":3}
}

func ExampleTopic_Encode_partitionOrder() {
	// Kafka's Scala 2.13 maps list up to 11 partitions in ascending
	// order; from the 12th on, the map's larger table reorders them.
	t := znode.Topic{Partitions: map[int32]znode.ReplicaAssignment{}}
	for p := int32(0); p < 12; p++ {
		t.Partitions[p] = znode.ReplicaAssignment{Replicas: []int32{1}}
	}
	fmt.Printf("%s\n", t.Encode())
	// Output:
	// {"partitions":{"11":[1],"0":[1],"1":[1],"2":[1],"3":[1],"4":[1],"5":[1],"6":[1],"7":[1],"8":[1],"9":[1],"10":[1]},"adding_replicas":{},"removing_replicas":{},"version":3}
}

func ExampleEncodeTopic() {
	// A caller that holds its partitions in a list, in any order, writes
	// the bytes Topic.Encode writes for the same topic.
	id, _ := znode.ParseUuid("ASNFZ4mrze_-3LqYdlQyEA")
	partitions := []znode.PartitionAssignment{
		{Partition: 1, ReplicaAssignment: znode.ReplicaAssignment{Replicas: []int32{2, 3, 1}}},
		{Partition: 0, ReplicaAssignment: znode.ReplicaAssignment{Replicas: []int32{1, 2, 3}}},
	}
	fmt.Printf("%s\n", znode.EncodeTopic(id, partitions))
	// Output:
	// {"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}
}

func ExampleDecodeTopic() {
	// A Scala 2.12 build writes another key order; both read the same.
	t, err := znode.DecodeTopic([]byte(`{"removing_replicas":{},"partitions":{"1":[2,3,1],"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"version":3}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.ID)
	for _, p := range slices.Sorted(maps.Keys(t.Partitions)) {
		fmt.Println(p, t.Partitions[p].Replicas)
	}

	// A topic written before Kafka 2.8 has no id.
	t, err = znode.DecodeTopic([]byte(`{"version":1,"partitions":{"0":[1,2]}}`))
	fmt.Println(t.ID.IsZero(), t.Partitions[0].Replicas, err)

	// Partition ids are read as Kafka reads them, with Integer.parseInt.
	t, err = znode.DecodeTopic([]byte(`{"version":3,"partitions":{"00":[1]}}`))
	fmt.Println(t.Partitions[0].Replicas, err)
	// Output:
	// ASNFZ4mrze_-3LqYdlQyEA
	// 0 [1 2 3]
	// 1 [2 3 1]
	// true [1 2] <nil>
	// [1] <nil>
}

func ExampleParseUuid() {
	u, err := znode.ParseUuid("ASNFZ4mrze_-3LqYdlQyEA")
	fmt.Printf("%016x %016x %v\n", uint64(u.MostSignificantBits), uint64(u.LeastSignificantBits), err)
	fmt.Println(u)

	zero, err := znode.ParseUuid("AAAAAAAAAAAAAAAAAAAAAA")
	fmt.Println(zero.IsZero(), err)

	_, err = znode.ParseUuid("ASNFZ4mrze_-3LqYdlQyEA==")
	fmt.Println(err)
	// Output:
	// 0123456789abcdef fedcba9876543210 <nil>
	// ASNFZ4mrze_-3LqYdlQyEA
	// true <nil>
	// decode: wrong type: not a Uuid: length 24, want 22 (data: "ASNFZ4mrze_-3LqYdlQyEA==")
}

func ExampleTopicPath() {
	fmt.Println(znode.TopicPath("orders"))
	fmt.Println(znode.TopicPartitionsPath("orders"))
	fmt.Println(znode.PartitionPath("orders", 3))
	// Output:
	// /brokers/topics/orders
	// /brokers/topics/orders/partitions
	// /brokers/topics/orders/partitions/3
}

func ExampleNewUuid() {
	id := znode.NewUuid()
	back, _ := znode.ParseUuid(id.String())
	fmt.Println(len(id.String()), id.IsReserved(), back == id)
	fmt.Println(znode.OneUuid, znode.OneUuid.IsReserved())
	// Output:
	// 22 false true
	// AAAAAAAAAAAAAAAAAAAAAQ true
}

// The zero Uuid and OneUuid are reserved: no topic gets them.
func ExampleUuid_IsReserved() {
	for _, u := range []znode.Uuid{{}, znode.OneUuid, znode.NewUuid()} {
		fmt.Println(u.IsReserved())
	}
	// Output:
	// true
	// true
	// false
}
