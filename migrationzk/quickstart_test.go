package migrationzk_test

import (
	"context"
	"errors"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// quickStart is the README's quick start. TestQuickStartInReadme keeps the
// two the same.
func quickStart(ctx context.Context, conn *zk.Conn, root string, id, epoch int32) error {
	w, err := migrationzk.New(conn, migrationzk.WithRoot(root))
	if err != nil {
		return err // an invalid option
	}

	// Kafka's chroot and persistent paths must exist: create what is missing.
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		return err
	}

	// Become the active controller: KRaft controller id, in KRaft epoch
	// epoch (the leader epoch of the KRaft quorum). The State returned
	// fences every later write, and the Writer writes only under this
	// identity.
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = id, epoch
	s, err = w.ClaimLeadership(ctx, s)
	if err != nil {
		return err
	}
	// Read the checkpoint, or create it. s keeps this controller's identity;
	// found.Stored says which controller wrote /migration last.
	s, found, err := w.GetOrCreate(ctx, s)
	if err != nil {
		return err
	}
	if found.Stored != nil && found.Stored.KRaftControllerID != id {
		log.Printf("taking over from KRaft controller %d (epoch %d)", found.Stored.KRaftControllerID, found.Stored.KRaftControllerEpoch)
	}
	// Name this controller in /migration at once, as Kafka does after its
	// claim: the checkpoint stays where it is.
	if s, err = w.Update(ctx, s); err != nil {
		return handle(err)
	}

	// Mirror a KRaft delta in one fenced transaction; it moves the
	// checkpoint to offset 42 only if every op is in.
	topic := []byte(`{"partitions":{"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`)
	state := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 42, epoch
	s, results, err := w.Apply(ctx, s,
		migrationzk.Create("/brokers/topics/orders", topic),
		migrationzk.Create("/brokers/topics/orders/partitions", nil),
		migrationzk.Create("/brokers/topics/orders/partitions/0", nil),
		migrationzk.Create(znode.PartitionStatePath("orders", 0), state.Encode()),
	)
	if err != nil {
		return handle(err)
	}
	if err := migrationzk.OpErrors(results); err != nil {
		log.Printf("ops ZooKeeper refused on their own account: %v", err)
	}

	// A checkpoint alone.
	s.KRaftMetadataOffset = 43
	if s, err = w.Update(ctx, s); err != nil {
		return handle(err)
	}
	log.Printf("checkpoint at offset %d, /migration version %d", s.KRaftMetadataOffset, s.MigrationZkVersion)
	return nil
}

// handle says what a controller does with a failed write.
func handle(err error) error {
	var conflict *migrationzk.ConflictError
	switch {
	case errors.Is(err, migrationzk.ErrFenced):
		// Another controller took over: this Writer is retired. Step down.
	case errors.As(err, &conflict):
		// Another writer moved /migration (conflict.CurrentVersion, and
		// conflict.Current names it): reload with GetOrCreate, passing the
		// State of this tenure, before writing again. The reloaded State
		// keeps this controller's identity; never write one taken from
		// /migration or from conflict.Current.
	case errors.Is(err, migrationzk.ErrOutcomeUnknown):
		// The context ended before the outcome was known: calling again
		// with the same arguments is safe and tells which it was.
	}
	return err
}

// Fault: none. The README's quick start runs against a fresh server with
// nothing but the root missing, twice (the second run resumes the standing
// claim and finds the topic's znodes there).
func TestQuickStart(t *testing.T) {
	c := newCluster(t)
	root := c.p("/quickstart/kafka")
	if err := quickStart(testContext(t), c.conn, root, 3000, 7); err != nil {
		t.Fatal(err)
	}
	if err := quickStart(testContext(t), c.conn, root, 3000, 7); err != nil {
		t.Fatalf("second run: %v", err)
	}
	m, _ := (&cluster{t: t, admin: c.admin, root: root}).migration()
	if m != (znode.Migration{KRaftMetadataOffset: 43, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 7}) {
		t.Fatalf("checkpoint %+v", m)
	}
}

// Fault: none. The quick start run by a controller that takes over from
// another: KRaft controller 3000 (epoch 7), then 3001 (epoch 8) on a
// session of its own. /migration names the one that took over, and
// /controller agrees with it.
func TestQuickStartTakeover(t *testing.T) {
	c := newCluster(t)
	root := c.p("/quickstart/kafka")
	at := &cluster{t: t, admin: c.admin, root: root}
	if err := quickStart(testContext(t), c.conn, root, 3000, 7); err != nil {
		t.Fatal(err)
	}
	second := c.srv.Connect(t)
	if err := quickStart(testContext(t), second, root, 3001, 8); err != nil {
		t.Fatalf("the controller that takes over: %v", err)
	}
	m, _ := at.migration()
	if m != (znode.Migration{KRaftMetadataOffset: 43, KRaftControllerID: 3001, KRaftMetadataEpoch: 8, KRaftControllerEpoch: 8}) {
		t.Fatalf("/migration %+v, want it to name KRaft controller 3001 in epoch 8", m)
	}
	data, _ := at.get("/controller")
	ctl, err := znode.DecodeController(data)
	if err != nil || ctl.BrokerID != 3001 || ctl.KRaftControllerEpoch != 8 {
		t.Fatalf("/controller %+v, %v", ctl, err)
	}
}

// Fault: none. The README shows quickStart's code as it is here.
func TestQuickStartInReadme(t *testing.T) {
	src, err := os.ReadFile("quickstart_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	from := strings.Index(code, "func quickStart(")
	to := strings.Index(code, "\n// Fault: none. The README's quick start")
	if from < 0 || to < 0 {
		t.Fatal("quickStart and handle not found")
	}
	if !strings.Contains(string(readme), code[from:to]) {
		t.Fatal("README.md does not show quickStart and handle as quickstart_test.go has them")
	}
}
