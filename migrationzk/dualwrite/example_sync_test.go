package dualwrite_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// exampleImage is the image a KRaft controller holds in the examples:
// topic orders, its config, a user's quota and a producer-id block.
func exampleImage() dualwrite.Image {
	img := dualwrite.NewImage()
	img.Topics["orders"] = exampleTopic()
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}] = map[string]string{"retention.ms": "3600000"}
	img.ClientQuotas[dualwrite.QuotaEntity{User: "alice"}] = map[string]float64{"producer_byte_rate": 1048576}
	block := znode.MigrationProducerIDBlock(7000)
	img.ProducerIDBlock = &block
	return img
}

// NewImage returns an image with its maps made, ready to fill.
func ExampleNewImage() {
	img := dualwrite.NewImage()
	img.Topics["orders"] = exampleTopic()
	fmt.Println(len(img.Topics), "topic,", len(img.Configs), "configs")
	// Output: 1 topic, 0 configs
}

// An Image is what the migration mirrors: built from KRaft's metadata to
// Sync, or read from ZooKeeper.
func ExampleImage() {
	img := exampleImage()
	fmt.Println(len(img.Topics["orders"].Partitions), "partitions, next producer id block", img.ProducerIDBlock.BlockStart)
	// Output: 2 partitions, next producer id block 7000
}

// Read reads what ZooKeeper holds; znodes that do not decode are listed,
// not fatal.
func ExampleClient_Read() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, _ := exampleLeader(ctx, conn)

	img, err := c.Read(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range img.Undecodable {
		log.Printf("%s does not decode: %v", u.Path, u.Err)
	}
	fmt.Println(len(img.Topics), "topics")
}

// Diff plans what makes one image into another; it needs no ZooKeeper.
func ExampleDiff() {
	current, desired := exampleImage(), exampleImage()
	t := desired.Topics["orders"]
	t.Partitions[2] = dualwrite.Partition{Replicas: []int32{3, 1, 2}, State: dualwrite.PartitionState{Leader: 3, ISR: []int32{3, 1, 2}}}
	desired.Topics["orders"] = t
	delete(desired.ClientQuotas, dualwrite.QuotaEntity{User: "alice"})
	fmt.Print(dualwrite.Diff(current, desired))
	// Output:
	// update-topic orders
	//     partition 2 replicas: (none) -> [3,1,2]
	// create-partitions orders partitions [2]
	//     partition 2 leader: (none) -> 3
	//     partition 2 leader_epoch: (none) -> 0
	//     partition 2 isr: (none) -> [3,1,2]
	//     partition 2 leader_recovery_state: (none) -> 0
	// write-client-quotas users/alice
	//     producer_byte_rate: 1048576 -> (none)
	// 3 changes (create-partitions 1, update-topic 1, write-client-quotas 1), 0 znodes skipped
}

// A Plan lists its changes in a fixed order.
func ExamplePlan() {
	desired := exampleImage()
	p := dualwrite.Diff(dualwrite.NewImage(), desired)
	for _, c := range p.Changes {
		fmt.Println(c.Kind, c.Subject)
	}
	// Output:
	// create-topic orders
	// write-configs topics/orders
	// write-client-quotas users/alice
	// write-producer-id [7000, 7999]
}

// String prints one change a line, each value it alters below it, old
// and new, then the counts.
func ExamplePlan_String() {
	desired := exampleImage()
	desired.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}] = map[string]string{"retention.ms": "60000"}
	fmt.Print(dualwrite.Diff(exampleImage(), desired).String())
	// Output:
	// write-configs topics/orders
	//     retention.ms: 3600000 -> 60000
	// 1 change (write-configs 1), 0 znodes skipped
}

// Counts counts the changes by kind.
func ExamplePlan_Counts() {
	p := dualwrite.Diff(dualwrite.NewImage(), exampleImage())
	fmt.Println(p.Counts()[dualwrite.ChangeCreateTopic], "topic to create")
	// Output: 1 topic to create
}

// Empty tells a plan with nothing to do; images that differ only in
// order, such as of ACL entries, plan nothing.
func ExamplePlan_Empty() {
	read := znode.ACLEntry{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}
	write := znode.ACLEntry{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationWrite, Host: "*"}
	pattern := dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}
	a, b := exampleImage(), exampleImage()
	a.ACLs[pattern] = []znode.ACLEntry{read, write}
	b.ACLs[pattern] = []znode.ACLEntry{write, read}
	fmt.Println(dualwrite.Diff(a, b).Empty())
	// Output: true
}

// AddTo adds a plan's changes to a Batch, to apply with more changes or
// a checkpoint of the caller's choosing.
func ExamplePlan_AddTo() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	current, err := c.Read(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	b := c.Batch()
	if err := dualwrite.Diff(current, exampleImage()).AddTo(b); err != nil {
		log.Fatal(err)
	}
	s.KRaftMetadataOffset = 1300
	if s, _, err = b.Apply(ctx, s); err != nil {
		log.Fatal(err)
	}
	fmt.Println("/migration version", s.MigrationZkVersion)
}

// A Change names what it does and to what.
func ExampleChange() {
	p := dualwrite.Diff(dualwrite.NewImage(), exampleImage())
	c := p.Changes[0]
	fmt.Printf("%s %s\n", c.Kind, c.Subject)
	// Output: create-topic orders
}

// ChangeKind names a change after the Client method that makes it.
func ExampleChangeKind() {
	fmt.Println(dualwrite.ChangeDeletePartitions)
	// Output: delete-partitions
}

// Sync makes ZooKeeper hold the image, as Kafka's full sync does when a
// KRaft controller takes over, and moves the checkpoint with its last
// transaction. A Sync right after writes nothing; one stopped by a fault
// is finished by the next.
func ExampleClient_Sync() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 1400, 7
	s, rep, err := c.Sync(ctx, s, exampleImage())
	switch {
	case errors.Is(err, migrationzk.ErrFenced):
		log.Fatal("another controller took over; this one writes nothing more")
	case err != nil:
		log.Fatalf("stopped; the next Sync finishes the job: %v", err)
	}
	fmt.Print(rep.Plan)
	fmt.Println("/migration version", s.MigrationZkVersion)
}

// A SyncReport holds the plan applied and what the Sync took.
func ExampleSyncReport() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	_, rep, err := c.Sync(ctx, s, exampleImage())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rep.Plan.Changes), "changes,", len(rep.Plan.Skipped), "znodes skipped,", rep.Partitions, "partitions read")
	fmt.Println("read", rep.ReadTime, "apply", rep.ApplyTime)
}

// OverwriteUndecodable makes a Sync write over znodes whose data does
// not decode, once an operator decided that the image is right.
func ExampleOverwriteUndecodable() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	_, rep, err := c.Sync(ctx, s, exampleImage())
	if err != nil {
		log.Fatal(err)
	}
	if len(rep.Plan.Skipped) > 0 {
		if _, _, err = c.Sync(ctx, s, exampleImage(), dualwrite.OverwriteUndecodable()); err != nil {
			log.Fatal(err)
		}
	}
}

// WithReadProgress reports how far the Sync's read is, a page of topics
// at a time.
func ExampleWithReadProgress() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	progress := dualwrite.WithReadProgress(func(p dualwrite.ReadProgress) {
		log.Printf("read %d of %d topics, %d partitions", p.Topics, p.TopicsTotal, p.Partitions)
	})
	if _, _, err := c.Sync(ctx, s, exampleImage(), progress); err != nil {
		log.Fatal(err)
	}
}

// ReadProgress counts topics read of those listed, and partitions.
func ExampleReadProgress() {
	p := dualwrite.ReadProgress{Topics: 500, TopicsTotal: 1200, Partitions: 6000}
	fmt.Printf("%d%% of topics\n", 100*p.Topics/p.TopicsTotal)
	// Output: 41% of topics
}

// SyncOptions combine.
func ExampleSyncOption() {
	opts := []dualwrite.SyncOption{dualwrite.OverwriteUndecodable(), dualwrite.WithReadProgress(func(dualwrite.ReadProgress) {})}
	fmt.Println(len(opts), "options")
	// Output: 2 options
}

// An UndecodableZnode names a znode Read could not decode, and why.
func ExampleUndecodableZnode() {
	current := exampleImage()
	delete(current.Configs, dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"})
	current.Undecodable = []dualwrite.UndecodableZnode{{Path: "/config/topics/orders", Err: errors.New("invalid JSON")}}
	fmt.Print(dualwrite.Diff(current, exampleImage()))
	// Output:
	// skipped /config/topics/orders: invalid JSON
	// 0 changes, 1 znode skipped
}

// Each Change of a Plan holds the values it alters, old and new; a
// password config or a SCRAM credential shows only that it changed.
func ExampleFieldChange() {
	current, desired := exampleImage(), exampleImage()
	orders := dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}
	current.Configs[orders]["listener.name.internal.sasl.jaas.config"] = "old"
	desired.Configs[orders] = map[string]string{"retention.ms": "60000", "listener.name.internal.sasl.jaas.config": "new"}
	for _, c := range dualwrite.Diff(current, desired).Changes {
		for _, f := range c.Fields {
			switch {
			case f.Secret:
				fmt.Println(c.Subject, f.Field, "changed, value withheld")
			case f.Old != nil && f.New != nil:
				fmt.Println(c.Subject, f.Field, "from", *f.Old, "to", *f.New)
			}
		}
	}
	// Output:
	// topics/orders listener.name.internal.sasl.jaas.config changed, value withheld
	// topics/orders retention.ms from 3600000 to 60000
}

// ACLEntryText is how a FieldChange names an ACL entry.
func ExampleACLEntryText() {
	e := znode.ACLEntry{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}
	fmt.Println(dualwrite.ACLEntryText(e))
	// Output: User:alice Allow Read from host *
}
