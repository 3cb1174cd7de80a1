package dualwrite_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// mirrorDelta is "Mirroring a delta" in the library reference,
// docs/library.md. TestMirrorDeltaInLibraryReference keeps the two the
// same.
func mirrorDelta(ctx context.Context, w *migrationzk.Writer, s migrationzk.State, id znode.Uuid) (migrationzk.State, error) {
	c, err := dualwrite.New(w)
	if err != nil {
		return s, err
	}

	// One change, one fenced transaction: the topic znode, its empty
	// config, its partitions and their states, and the checkpoint at 44.
	orders := dualwrite.Topic{Name: "orders", ID: id, Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1, 2, 3}}},
		1: {Replicas: []int32{2, 3, 1}, State: dualwrite.PartitionState{Leader: 2, ISR: []int32{2, 3, 1}}},
	}}
	s.KRaftMetadataOffset = 44
	s, err = c.CreateTopic(ctx, s, orders)
	if err != nil {
		return s, err
	}

	// A whole delta, one fenced transaction: broker 1 leaves both ISRs,
	// a topic config changes (with its config_change_ notification), and
	// the checkpoint moves to 45.
	s.KRaftMetadataOffset = 45
	s, _, err = c.Batch().
		UpdatePartitions("orders", map[int32]dualwrite.PartitionState{
			0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}},
			1: {Leader: 2, LeaderEpoch: 0, ISR: []int32{2, 3}},
		}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"},
			map[string]string{"retention.ms": "86400000"}).
		Apply(ctx, s)
	return s, err
}

// Fault: none. The library reference's delta lands as it says; run
// again, it ends the same, without a second notification.
func TestMirrorDelta(t *testing.T) {
	c := newCluster(t)
	id := znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321}
	s, err := mirrorDelta(testContext(t), c.w, c.s, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.MigrationZkVersion != c.s.MigrationZkVersion+2 {
		t.Fatalf("/migration version %d from %d: want two transactions", s.MigrationZkVersion, c.s.MigrationZkVersion)
	}
	c.checkState(s)
	if s, err = mirrorDelta(testContext(t), c.w, s, id); err != nil {
		t.Fatalf("again: %v", err)
	}
	c.checkState(s)
	data, _, _ := c.get(znode.PartitionStatePath("orders", 0))
	st, err := znode.DecodePartitionState(data)
	if err != nil || st.Leader != 2 || st.LeaderEpoch != 1 || len(st.ISR) != 2 || st.ControllerEpoch != 5 {
		t.Fatalf("partition 0: %s (%v)", data, err)
	}
	if data, _, _ := c.get("/config/topics/orders"); string(data) != `{"version":1,"config":{"retention.ms":"86400000"}}` {
		t.Fatalf("config %s", data)
	}
	want := `{"version":2,"entity_path":"topics/orders"}`
	if got := c.notifications("/config/changes", "config_change_"); len(got) != 1 || got[0] != want {
		t.Fatalf("notifications %q, want one %s", got, want)
	}
}

// Fault: none. The library reference shows mirrorDelta's code as it is here.
func TestMirrorDeltaInLibraryReference(t *testing.T) {
	src, err := os.ReadFile("mirror_test.go")
	if err != nil {
		t.Fatal(err)
	}
	reference, err := os.ReadFile("../../docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	from := strings.Index(code, "func mirrorDelta(")
	to := strings.Index(code, "\n// Fault: none. The library reference's delta")
	if from < 0 || to < 0 {
		t.Fatal("mirrorDelta not found")
	}
	if !strings.Contains(string(reference), code[from:to]) {
		t.Fatal("docs/library.md does not show mirrorDelta as mirror_test.go has it")
	}
}
