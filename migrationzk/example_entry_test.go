package migrationzk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// connectExample connects to the ZooKeeper the examples assume.
func connectExample(ctx context.Context) *zk.Conn {
	conn, err := zkconn.Connect(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	return conn
}

// leader claims leadership for KRaft controller 3000 with epoch 7 and
// reads the checkpoint, as a controller does when it becomes leader.
func leader(ctx context.Context, w *migrationzk.Writer) migrationzk.State {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	if s, err = w.GetOrCreate(ctx, s); err != nil {
		log.Fatal(err)
	}
	return s
}

// GetOrCreate reads the checkpoint, or creates it when the migration has
// not started. A /migration left holding null data is replaced with the
// initial state; any other data that does not decode is left alone.
func ExampleWriter_GetOrCreate() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))

	s, err := w.GetOrCreate(ctx, migrationzk.InitialState())
	var de *migrationzk.DecodeError
	switch {
	case errors.As(err, &de):
		log.Fatalf("%s holds data that is not a checkpoint (%v); it was not touched", de.Path, de.Reason)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Printf("offset %d at /migration version %d\n", s.KRaftMetadataOffset, s.MigrationZkVersion)
}

// ClaimLeadership registers a KRaft controller in /controller and raises
// /controller_epoch; the State it returns fences every later write.
func ExampleWriter_ClaimLeadership() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))

	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err := w.ClaimLeadership(ctx, s)
	if errors.Is(err, migrationzk.ErrFenced) {
		log.Fatalf("a newer KRaft controller holds /controller: %v", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("controller epoch %d, fenced at /controller_epoch version %d\n", s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
}

// ReleaseLeadership deletes /controller, fenced by the claim, so that a
// ZooKeeper-mode broker can be elected after a rollback.
func ExampleWriter_ReleaseLeadership() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	s := leader(ctx, w)
	if _, err := w.ReleaseLeadership(ctx, s); err != nil {
		log.Fatal(err)
	}
}

// Apply mirrors a batch of metadata changes and moves the checkpoint once
// all of them are in ZooKeeper. An op ZooKeeper refuses on its own account
// is reported in its result; the rest of the batch is applied.
func ExampleWriter_Apply() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	s := leader(ctx, w)

	state := znode.PartitionState{ControllerEpoch: 7, Leader: 2, LeaderEpoch: 5, ISR: []int32{2, 3}}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 2000, 7
	next, results, err := w.Apply(ctx, s,
		migrationzk.SetData(znode.PartitionStatePath("orders", 0), state.Encode(), 4),
		migrationzk.Delete("/brokers/topics/old/partitions/0/state", -1),
	)
	if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		// Call Apply again with s at next.MigrationZkVersion and the ops
		// whose result has a non-nil Err other than an *OpError.
		log.Fatal(err)
	}
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		var oe *migrationzk.OpError
		if errors.As(r.Err, &oe) {
			log.Printf("%s refused: %v", r.Op, oe.Err)
		}
	}
	fmt.Println("checkpoint at version", next.MigrationZkVersion)
}

// ConditionalDelete deletes a znode at the version read, telling a delete
// whose acknowledgement was lost apart from a conflict.
func ExampleConditionalDelete() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	_, st, err := conn.Get("/kafka/controller")
	if err != nil {
		log.Fatal(err)
	}
	err = migrationzk.ConditionalDelete(ctx, conn, "/controller", st.Version, migrationzk.WithRoot("/kafka"))
	var conflict *migrationzk.ConflictError
	if errors.As(err, &conflict) {
		log.Fatalf("/controller changed meanwhile (now version %d)", conflict.CurrentVersion)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// OpErrors gathers the ops of a batch that ZooKeeper refused on their own
// account.
func ExampleOpErrors() {
	create := migrationzk.Create("/brokers/topics/orders", nil)
	results := []migrationzk.OpResult{
		{Op: create, Err: &migrationzk.OpError{Index: 0, Op: create, Err: zk.ErrNodeExists}, Version: -1},
		{Op: migrationzk.Delete("/brokers/topics/old", -1), Version: -1},
	}
	err := migrationzk.OpErrors(results)
	fmt.Println(err)
	fmt.Println(errors.Is(err, zk.ErrNodeExists))
	// Output:
	// migrationzk: op 0 (create /brokers/topics/orders): zk: node already exists
	// true
}

// Stats and ConfirmedOffset tell how a Writer is doing; the zkmetrics
// package exports them to Prometheus.
func ExampleWriter_Stats() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithLogger(logger))
	if _, err := w.GetOrCreate(ctx, migrationzk.InitialState()); err != nil {
		log.Fatal(err)
	}
	st := w.Stats()
	fmt.Printf("%d ok, %d recovered, %d lost acknowledgements; confirmed offset %d\n",
		st.OK, st.Recovered, st.LostAcks, w.ConfirmedOffset())
}

// WithRollbackSafeEpochs makes the claim raise /controller_epoch to at
// least the KRaft controller epoch, which the controller stamps on every
// partition state it writes during dual-write: after a rollback the
// ZooKeeper-mode controller gets /controller_epoch + 1, above every stamp,
// and no partition is left offline.
func ExampleWithRollbackSafeEpochs() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := migrationzk.New(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithRollbackSafeEpochs())

	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 50
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	if s, err = w.GetOrCreate(ctx, s); err != nil {
		log.Fatal(err)
	}
	state := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 1234, 50
	if _, _, err = w.Apply(ctx, s, migrationzk.Create("/brokers/topics/orders/partitions/0/state", state.Encode())); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("controller epoch %d (KRaft epoch %d): a controller elected after a rollback gets %d\n",
		s.ZkControllerEpoch, s.KRaftControllerEpoch, s.ZkControllerEpoch+1)
}
