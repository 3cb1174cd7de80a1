package migrationzk_test

import (
	"errors"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: none. One Sync, then reads that send no sync of their own; an
// invalid path fails Sync with nothing sent.
func TestReadAfterSync(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	c.create("/brokers/topics/t0", []byte("a"))
	c.faults.ResetCounts()
	if err := w.Sync(testContext(t), "/brokers/topics/t0"); err != nil {
		t.Fatal(err)
	}
	zs, err := w.ReadAfterSync(testContext(t), "/brokers/topics/t0", "/brokers/topics/none")
	if err != nil || !zs[0].Exists || string(zs[0].Data) != "a" || zs[1].Exists {
		t.Fatalf("read %+v %v", zs, err)
	}
	ls, err := w.ChildrenAfterSync(testContext(t), "/brokers/topics")
	if err != nil || len(ls[0].Names) != 1 || ls[0].Names[0] != "t0" {
		t.Fatalf("children %+v %v", ls, err)
	}
	if n := c.faults.Count(zktest.OpSync); n != 1 {
		t.Fatalf("%d syncs, want 1 (%v)", n, c.faults.Counts())
	}
	c.faults.ResetCounts()
	if err := w.Sync(testContext(t), "bad"); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("invalid path: %v", err)
	}
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("invalid path: %d requests sent", n)
	}
}
