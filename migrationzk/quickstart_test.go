package migrationzk_test

import (
	"context"
	"errors"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// quickStart is the README's quick start. TestQuickStartInReadme keeps the
// two the same.
func quickStart(ctx context.Context, conn *zk.Conn, root string, id, epoch int32, ordersID znode.Uuid) error {
	w, err := migrationzk.New(conn, migrationzk.WithRoot(root))
	if err != nil {
		return err // an invalid option
	}

	// The Writer needs its chroot: create it, and Kafka's persistent paths,
	// where missing, as a broker does at startup.
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

	// Mirror KRaft's deltas in Kafka's vocabulary: each Client call, and
	// each Batch for the changes of a whole delta, is one transaction
	// fenced by the claim that also moves the checkpoint. The topic, its
	// empty config, its partition and its state land with offset 42, or
	// nothing does.
	c, err := dualwrite.New(w)
	if err != nil {
		return err
	}
	orders := dualwrite.Topic{Name: "orders", ID: ordersID, Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1, 2, 3}}},
	}}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 42, epoch
	if s, err = c.CreateTopic(ctx, s, orders); err != nil {
		return handle(err)
	}

	// A whole delta, with the checkpoint at 43: broker 1 leaves the ISR
	// and hands over the leadership, and a topic config changes (with
	// its config_change_ notification).
	s.KRaftMetadataOffset = 43
	s, _, err = c.Batch().
		UpdatePartitions("orders", map[int32]dualwrite.PartitionState{0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}}}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}, map[string]string{"retention.ms": "86400000"}).
		Apply(ctx, s)
	if err != nil {
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
	case errors.Is(err, migrationzk.ErrConflict):
		// Other writers kept changing the znodes a dual-write call
		// writes, through every round it read and planned anew; the
		// checkpoint did not move. Find what else writes them, then
		// call again with the same State and changes.
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
	ordersID := znode.NewUuid()
	if err := quickStart(testContext(t), c.conn, root, 3000, 7, ordersID); err != nil {
		t.Fatal(err)
	}
	if err := quickStart(testContext(t), c.conn, root, 3000, 7, ordersID); err != nil {
		t.Fatalf("second run: %v", err)
	}
	at := &cluster{t: t, admin: c.admin, root: root}
	m, _ := at.migration()
	if m != (znode.Migration{KRaftMetadataOffset: 43, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 7}) {
		t.Fatalf("checkpoint %+v", m)
	}
	checkQuickStartTopic(t, at, ordersID, 7)
}

// checkQuickStartTopic checks what the quick start leaves of topic
// orders: its id, its partition's state after the delta, stamped with
// the KRaft epoch of the last controller, and its config.
func checkQuickStartTopic(t *testing.T, at *cluster, id znode.Uuid, epoch int32) {
	t.Helper()
	data, _ := at.get("/brokers/topics/orders")
	topic, err := znode.DecodeTopic(data)
	if err != nil || topic.ID != id {
		t.Fatalf("topic znode %s: %+v, %v; want id %s", data, topic, err, id)
	}
	data, _ = at.get(znode.PartitionStatePath("orders", 0))
	state, err := znode.DecodePartitionState(data)
	if err != nil || state.Leader != 2 || state.LeaderEpoch != 1 || !slices.Equal(state.ISR, []int32{2, 3}) || state.ControllerEpoch != epoch {
		t.Fatalf("partition state %s: %+v, %v", data, state, err)
	}
	if data, _ = at.get("/config/topics/orders"); !strings.Contains(string(data), `"retention.ms":"86400000"`) {
		t.Fatalf("topic config %s", data)
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
	ordersID := znode.NewUuid()
	if err := quickStart(testContext(t), c.conn, root, 3000, 7, ordersID); err != nil {
		t.Fatal(err)
	}
	second := c.srv.Connect(t)
	if err := quickStart(testContext(t), second, root, 3001, 8, ordersID); err != nil {
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
	checkQuickStartTopic(t, at, ordersID, 8)
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

// Fault: none. The README's quick start, its imports and both of its
// blocks as they stand there, compiles as a program of its own.
func TestQuickStartReadmeCompiles(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	_, section, ok := strings.Cut(section, "## Quick start\n")
	if !ok {
		t.Fatal("README.md has no quick start section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for _, part := range strings.Split(section, "```go\n")[1:] {
		code, _, ok := strings.Cut(part, "```")
		if !ok {
			t.Fatal("a quick start block does not end")
		}
		blocks = append(blocks, code)
	}
	if len(blocks) != 2 || !strings.HasPrefix(blocks[0], "import (") {
		t.Fatalf("the quick start has %d Go blocks, want the imports and run, then quickStart", len(blocks))
	}
	// A directory inside the module, so that its imports resolve; the
	// leading dot keeps it out of ./... patterns.
	dir, err := os.MkdirTemp("..", ".quickstart-readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	program := "package main\n\n" + blocks[0] + "\n" + blocks[1] + "\nfunc main() { _ = run }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", os.DevNull, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's quick start does not compile: %v\n%s\n%s", err, out, program)
	}
}
