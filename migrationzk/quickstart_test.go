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
func quickStart(ctx context.Context, conn *zk.Conn, root string) error {
	w := migrationzk.New(conn, migrationzk.WithRoot(root))

	// Kafka's chroot and persistent paths must exist: create what is missing.
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		return err
	}

	// Become the active controller: KRaft controller 3000, KRaft epoch 7.
	// The State returned fences every later write.
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 7
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		return err
	}
	// Read the checkpoint, or create it.
	if s, err = w.GetOrCreate(ctx, s); err != nil {
		return err
	}

	// Mirror a KRaft delta in one fenced transaction; it moves the
	// checkpoint to offset 42 only if every op is in.
	topic := []byte(`{"partitions":{"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`)
	state := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 42, 7
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
		// Another writer moved /migration (conflict.CurrentVersion):
		// reload it with GetOrCreate before writing again.
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
	if err := quickStart(testContext(t), c.conn, root); err != nil {
		t.Fatal(err)
	}
	if err := quickStart(testContext(t), c.conn, root); err != nil {
		t.Fatalf("second run: %v", err)
	}
	m, _ := (&cluster{t: t, admin: c.admin, root: root}).migration()
	if m.KRaftMetadataOffset != 43 {
		t.Fatalf("checkpoint %+v", m)
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
