package migrationzk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// A KRaft controller taking over a migration, as the README's quick start
// does: claim leadership, read the checkpoint and name itself in it, then
// mirror KRaft's changes in Kafka's vocabulary through package dualwrite,
// each call one fenced transaction that also moves the checkpoint.
// Writer.Apply writes ops a caller builds itself (see its example), for
// what dualwrite does not cover.
func Example() {
	ctx := context.Background()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithLogger(slog.Default()))
	if err != nil {
		log.Fatal(err) // an invalid option
	}
	if err := w.CreateTopLevelPaths(ctx); err != nil { // the chroot and Kafka's persistent paths
		log.Fatal(err)
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	if s, err = w.ClaimLeadership(ctx, s); err != nil {
		log.Fatal(err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		log.Fatal(err)
	}
	if s, err = w.Update(ctx, s); err != nil { // names this controller in /migration
		log.Fatal(err)
	}

	c, err := dualwrite.New(w)
	if err != nil {
		log.Fatal(err)
	}
	orders := dualwrite.Topic{Name: "orders", ID: znode.NewUuid(), Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1, 2, 3}}},
	}}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 1234, 7
	s, err = c.CreateTopic(ctx, s, orders)
	var conflict *migrationzk.ConflictError
	switch {
	case errors.Is(err, migrationzk.ErrFenced):
		log.Fatal("another controller took over: step down")
	case errors.As(err, &conflict):
		log.Fatal("another writer moved /migration: reload with GetOrCreate(ctx, s), then call again")
	case errors.Is(err, migrationzk.ErrOutcomeUnknown):
		log.Fatal("the outcome is unknown: call CreateTopic again with the same s and topic")
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("checkpoint at /migration version", s.MigrationZkVersion)
}

// Update writes a checkpoint. The State it returns carries the version
// ZooKeeper holds, also when the acknowledgement was lost.
func ExampleWriter_Update() {
	ctx := context.Background()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	s := leader(ctx, w) // claimed as KRaft controller 3000, epoch 7

	s.KRaftMetadataOffset = 42
	next, err := w.Update(ctx, s)
	var conflict *migrationzk.ConflictError
	switch {
	case errors.As(err, &conflict):
		log.Fatalf("another writer moved /migration to version %d", conflict.CurrentVersion)
	case errors.Is(err, migrationzk.ErrFenced):
		log.Fatal("another controller took over; this writer is retired")
	case errors.Is(err, migrationzk.ErrOutcomeUnknown):
		log.Fatal("context ended before the outcome was known; calling Update again with s is safe")
	case err != nil:
		log.Fatal(err)
	}
	if next.Recovered {
		fmt.Println("the acknowledgement was lost, but the write landed")
	}
	fmt.Println("version", next.MigrationZkVersion)
}

// ConditionalUpdate is the same guarantee for any znode, with a checker
// that knows its format.
func ExampleWriter_ConditionalUpdate() {
	ctx := context.Background()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	path := znode.PartitionStatePath("orders", 0)
	state := znode.PartitionState{ControllerEpoch: 7, Leader: 2, LeaderEpoch: 4, ISR: []int32{2, 3}}
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	res, err := w.ConditionalUpdate(ctx, path, state.Encode(), 3, checker.LeaderAndIsr{})
	if err != nil {
		log.Fatal(err)
	}
	if res.Recovered {
		fmt.Println("the acknowledgement was lost, but the write landed")
	}
	fmt.Println("partition state at version", res.Version)
}

// The initial state is what Kafka writes to /migration first.
func ExampleInitialState() {
	s := migrationzk.InitialState()
	fmt.Println(s.KRaftMetadataOffset, s.MigrationZkVersion, s.ZkControllerEpochZkVersion)
	// Output: -1 -1 -1
}

// A State's checkpoint is the /migration content Update writes for it,
// to compare with what a read found.
func ExampleState_Checkpoint() {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 1234, 7
	fmt.Printf("%s\n", s.Checkpoint().Encode())
	// Output: {"version":0,"kraft_metadata_offset":1234,"kraft_controller_id":3000,"kraft_metadata_epoch":7,"kraft_controller_epoch":7}
}

// Sorting the ops of a batch by what they do to their znodes.
func ExampleOp_Kind() {
	ops := []migrationzk.Op{
		migrationzk.Create("/brokers/topics/foo", nil),
		migrationzk.SetData("/brokers/topics/bar/partitions/0/state", []byte(`{}`), 4),
		migrationzk.Delete("/brokers/topics/baz", -1),
	}
	for _, o := range ops {
		switch o.Kind() {
		case migrationzk.OpCreate:
			fmt.Println("creates", o.Path())
		case migrationzk.OpSetData:
			fmt.Println("sets", o.Path(), "at version", o.Version())
		case migrationzk.OpDelete:
			fmt.Println("deletes", o.Path())
		}
	}
	// Output:
	// creates /brokers/topics/foo
	// sets /brokers/topics/bar/partitions/0/state at version 4
	// deletes /brokers/topics/baz
}
