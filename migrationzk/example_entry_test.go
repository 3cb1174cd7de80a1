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
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	return conn
}

// newWriter makes the Writer of an example.
func newWriter(conn *zk.Conn, opts ...migrationzk.Option) *migrationzk.Writer {
	w, err := migrationzk.New(conn, opts...)
	if err != nil {
		log.Fatal(err)
	}
	return w
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
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		log.Fatal(err)
	}
	return s
}

// GetOrCreate reads the checkpoint, or creates it when the migration has
// not started. A /migration left holding null data is replaced with the
// initial state; any other data that does not decode is left alone. The
// State returned keeps the claim's identity; the result tells what
// /migration held.
func ExampleWriter_GetOrCreate() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3001, 8
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		log.Fatal(err)
	}

	s, res, err := w.GetOrCreate(ctx, s)
	var de *migrationzk.DecodeError
	switch {
	case errors.As(err, &de):
		log.Fatalf("%s holds data that is not a checkpoint (%v); it was not touched", de.Path, de.Reason)
	case err != nil:
		log.Fatal(err)
	}
	switch {
	case res.Created:
		fmt.Println("created /migration")
	case res.ReplacedEmpty:
		fmt.Println("replaced an empty /migration")
	default:
		fmt.Printf("last written by KRaft controller %d (epoch %d)\n", res.Stored.KRaftControllerID, res.Stored.KRaftControllerEpoch)
	}
	// Name this controller in /migration at once, as Kafka does.
	if s, err = w.Update(ctx, s); err != nil {
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
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))

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
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
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
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
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
func ExampleWriter_ConditionalDelete() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	zs, err := w.Read(ctx, "/controller")
	if err != nil {
		log.Fatal(err)
	}
	res, err := w.ConditionalDelete(ctx, "/controller", zs[0].Version)
	var conflict *migrationzk.ConflictError
	if errors.As(err, &conflict) {
		log.Fatalf("/controller changed meanwhile (now version %d)", conflict.CurrentVersion)
	}
	if err != nil {
		log.Fatal(err)
	}
	if res.Recovered {
		fmt.Println("the acknowledgement was lost, but the delete landed")
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
	w := newWriter(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithLogger(logger))
	if _, _, err := w.GetOrCreate(ctx, migrationzk.InitialState()); err != nil {
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
	w := newWriter(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithRollbackSafeEpochs())

	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 50
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
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

// An UpdateResult says which version ConditionalUpdate left and whether
// its acknowledgement was lost on the way.
func ExampleUpdateResult() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	res, err := w.ConditionalUpdate(ctx, "/controller_epoch", znode.EncodeControllerEpoch(50), 43, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("/controller_epoch at version %d (recovered: %v)\n", res.Version, res.Recovered)
}

// A DeleteResult tells a delete that landed from one whose znode was gone
// already.
func ExampleDeleteResult() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))
	res, err := w.ConditionalDelete(ctx, "/controller", 0)
	switch {
	case err != nil:
		log.Fatal(err)
	case res.AlreadyGone:
		fmt.Println("nothing to delete")
	default:
		fmt.Println("deleted; recovered:", res.Recovered)
	}
}

// A GetOrCreateResult says whether GetOrCreate wrote /migration and, when
// it did not, which controller wrote it last.
func ExampleGetOrCreateResult() {
	stored := znode.Migration{KRaftMetadataOffset: 48213, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 7}
	for _, res := range []migrationzk.GetOrCreateResult{{Created: true}, {Stored: &stored}} {
		if res.Wrote() {
			fmt.Println("created /migration")
			continue
		}
		fmt.Printf("found offset %d, last written by KRaft controller %d\n", res.Stored.KRaftMetadataOffset, res.Stored.KRaftControllerID)
	}
	// Output:
	// created /migration
	// found offset 48213, last written by KRaft controller 3000
}

// A Writer that claimed leadership refuses a State naming another
// controller or epoch, such as one taken from /migration after a
// takeover, before sending anything.
func ExampleIdentityError() {
	err := error(&migrationzk.IdentityError{
		Claimed: migrationzk.Identity{ControllerID: 3001, ControllerEpoch: 8},
		Given:   migrationzk.Identity{ControllerID: 3000, ControllerEpoch: 7},
	})
	var ie *migrationzk.IdentityError
	fmt.Println(errors.As(err, &ie), errors.Is(err, migrationzk.ErrInvalidArgument))
	fmt.Println(err)
	// Output:
	// true true
	// migrationzk: invalid argument: the State names KRaft controller 3000 epoch 7, but this Writer claimed leadership as KRaft controller 3001 epoch 8
}

// IdentityOf gives the identity a State writes under.
func ExampleIdentityOf() {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3001, 8
	fmt.Println(migrationzk.IdentityOf(s))
	// Output: KRaft controller 3001 epoch 8
}

// WithBackOff takes any policy with NextBackOff and Reset, such as
// cenkalti/backoff's; a negative pause (backoff.Stop) gives up.
func ExampleWithBackOff() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	tenTries := func() migrationzk.BackOff { return &limited{left: 10, pause: 50 * time.Millisecond} }
	w := newWriter(conn, migrationzk.WithRoot("/kafka"), migrationzk.WithBackOff(tenTries))
	if _, _, err := w.GetOrCreate(ctx, migrationzk.InitialState()); err != nil {
		log.Fatal(err)
	}
}

// limited pauses a fixed time, a limited number of times.
type limited struct {
	left  int
	pause time.Duration
}

func (l *limited) NextBackOff() time.Duration {
	if l.left == 0 {
		return -1 // backoff.Stop
	}
	l.left--
	return l.pause
}

func (l *limited) Reset() { l.left = 10 }

// New refuses an invalid option rather than fall back to a default.
func ExampleNew() {
	_, err := migrationzk.New(&zk.Conn{}, migrationzk.WithLogger(nil))
	fmt.Println(errors.Is(err, migrationzk.ErrInvalidArgument))
	// Output: true
}

// Read returns what ZooKeeper holds after every write committed before the
// call. A missing znode is not an error, and EphemeralOwner tells a
// ZooKeeper-mode broker's ephemeral /controller from a KRaft controller's
// persistent one.
func ExampleWriter_Read() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))

	got, err := w.Read(ctx, "/controller", "/migration")
	if err != nil {
		log.Fatal(err)
	}
	for _, z := range got {
		switch {
		case !z.Exists:
			fmt.Printf("%s: absent\n", z.Path)
		case z.EphemeralOwner != 0:
			fmt.Printf("%s: version %d, ephemeral, owned by session %#x\n", z.Path, z.Version, z.EphemeralOwner)
		default:
			fmt.Printf("%s: version %d, persistent\n", z.Path, z.Version)
		}
	}
}

// Before a leadership claim, which deletes /controller, a controller can
// find out that its credentials allow it, without deleting anything.
func ExampleWriter_CheckDeletable() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))

	err := w.CheckDeletable(ctx) // /controller
	var denied *migrationzk.NotAuthorizedError
	switch {
	case errors.As(err, &denied):
		log.Fatalf("these credentials may not delete %s: fix the ACL of its parent", denied.Path)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("/controller may be deleted")
}

// Credentials that CheckCredentials approves prove nothing when the znodes
// let anyone write: ReadACL shows it.
func ExampleWriter_ReadACL() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	w := newWriter(conn, migrationzk.WithRoot("/kafka"))

	acls, err := w.ReadACL(ctx, "/controller_epoch", "/migration")
	if err != nil {
		log.Fatal(err)
	}
	for _, z := range acls {
		for _, e := range z.ACL {
			if e.Scheme == "world" && e.Perms&zk.PermWrite != 0 {
				fmt.Printf("%s: anyone may write it\n", z.Path)
			}
		}
	}
}
