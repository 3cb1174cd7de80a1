package dualwrite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// A partition znode outside its topic's assignment, as Read finds it, is
// in the topic's Unassigned: kept by an image that holds it, deleted by
// one that lacks it, never written into the topic znode.
func ExampleUnassignedPartition() {
	export := `{"schema_version":2,"topics":[{"name":"orders","partitions":[{"id":0,"replicas":[1],"state":null}],"unassigned_partitions":[{"id":1,"state":null}]}]}`
	current, err := dualwrite.ReadImageJSON(strings.NewReader(export))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(current.Topics["orders"].Partitions), "assigned,", len(current.Topics["orders"].Unassigned), "unassigned")
	fmt.Print(dualwrite.Diff(current, current))

	desired := dualwrite.NewImage()
	desired.Topics["orders"] = dualwrite.Topic{Name: "orders", Partitions: current.Topics["orders"].Partitions}
	fmt.Print(dualwrite.Diff(current, desired))
	// Output:
	// 1 assigned, 1 unassigned
	// no changes
	// delete-partitions orders partitions [1]
	// 1 change (delete-partitions 1), 0 znodes skipped
}

// A topic whose id differs between the images is replaced, a change of
// its own kind naming both ids, so that it shows before Sync applies it.
func ExampleDiff_topicID() {
	topic := func(id znode.Uuid) dualwrite.Image {
		img := dualwrite.NewImage()
		img.Topics["orders"] = dualwrite.Topic{Name: "orders", ID: id, Partitions: map[int32]dualwrite.Partition{
			0: {Replicas: []int32{1}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1}}}}}
		return img
	}
	none, a, b := znode.Uuid{}, znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 1}, znode.Uuid{MostSignificantBits: 2, LeastSignificantBits: 2}
	fmt.Print(dualwrite.Diff(topic(a), topic(b)))
	fmt.Print(dualwrite.Diff(topic(none), topic(a)))
	// Output:
	// replace-topic orders id AAAAAAAAAAEAAAAAAAAAAQ to AAAAAAAAAAIAAAAAAAAAAg
	//     topic_id: AAAAAAAAAAEAAAAAAAAAAQ -> AAAAAAAAAAIAAAAAAAAAAg
	// 1 change (replace-topic 1), 0 znodes skipped
	// update-topic orders
	//     topic_id: (none) -> AAAAAAAAAAEAAAAAAAAAAQ
	// 1 change (update-topic 1), 0 znodes skipped
}

// CreateTopic of a topic ZooKeeper holds under another id leaves it as
// it is and names both ids.
func ExampleTopicIDError() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	t := exampleTopic()
	t.ID = znode.Uuid{MostSignificantBits: 2, LeastSignificantBits: 2}
	_, err := c.CreateTopic(ctx, s, t)
	var idErr *dualwrite.TopicIDError
	if errors.As(err, &idErr) {
		fmt.Println("orders is held as", idErr.Held, "not", idErr.Requested)
	}
}

// A Plan decoded from its JSON names its changes but cannot make them:
// AddTo says so, and the Batch writes nothing.
func ExampleErrNotPlanned() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	var plan dualwrite.Plan
	if err := json.Unmarshal([]byte(`{"changes":[{"kind":"delete-topic","subject":"orders"}]}`), &plan); err != nil {
		log.Fatal(err)
	}
	b := c.Batch()
	fmt.Println(errors.Is(plan.AddTo(b), dualwrite.ErrNotPlanned))
	_, _, err := b.Apply(ctx, s)
	fmt.Println(errors.Is(err, dualwrite.ErrNotPlanned))
}
