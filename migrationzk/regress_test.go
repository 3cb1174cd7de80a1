package migrationzk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none; every op of the batch is refused on its own account
// (NodeExists). The checkpoint must still be written: a transaction left
// with no op but the /migration write is not one that landed. (Found by the
// torture suite: Apply reported such a batch as recovered at the old
// version while /migration kept the previous checkpoint.)
func TestApplyEveryOpRefusedStillCheckpoints(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	c.create("/brokers/topics/taken", []byte("theirs"))
	s.KRaftMetadataOffset = 777
	next, res, err := w.Apply(testContext(t), s, migrationzk.Create("/brokers/topics/taken", []byte("ours")))
	if err != nil {
		t.Fatal(err)
	}
	var oe *migrationzk.OpError
	if len(res) != 1 || !errors.As(res[0].Err, &oe) || !errors.Is(res[0].Err, zk.ErrNodeExists) {
		t.Fatalf("results %+v, want the op refused with NodeExists", res)
	}
	if next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
		t.Fatalf("recovered %v at version %d, want a plain write at %d", next.Recovered, next.MigrationZkVersion, s.MigrationZkVersion+1)
	}
	c.checkMatches(next)
	if st := w.Stats(); st.LostAcks != 0 || st.Recovered != 0 {
		t.Fatalf("stats %+v: nothing was lost", st)
	}
	if data, _ := c.get("/brokers/topics/taken"); string(data) != "theirs" {
		t.Fatalf("refused op overwrote the znode: %q", data)
	}
}

// Fault: reply dropped after the server committed a batch, then, before the
// resend, a conflicting write to /migration (or a rival's leadership
// claim). The call must report the conflict (or the fence), and the ops of
// the transaction whose copy may have landed must not be reported as not
// applied: here they did land. (Found by the torture suite: they were
// reported ErrNotApplied.)
func TestApplyStoppedAfterLostAckReportsOpsUnknown(t *testing.T) {
	for _, by := range []string{"conflict", "fence"} {
		t.Run(by, func(t *testing.T) {
			c := newCluster(t)
			w := c.writer()
			s := c.start(w)
			ops := topicOps("landed", 1)
			c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration"), Then: func() {
				var err error
				if by == "conflict" {
					foreign := znode.Migration{KRaftMetadataOffset: 1, KRaftControllerID: 4000, KRaftMetadataEpoch: 5, KRaftControllerEpoch: 5}
					_, err = c.admin.Set(c.p("/migration"), foreign.Encode(), -1)
				} else {
					_, err = c.admin.Set(c.p("/controller_epoch"), znode.EncodeControllerEpoch(9), -1)
				}
				if err != nil {
					t.Error(err)
				}
			}})
			s.KRaftMetadataOffset = 888
			_, res, err := w.Apply(testContext(t), s, ops...)
			want := map[string]error{"conflict": migrationzk.ErrConflict, "fence": migrationzk.ErrFenced}[by]
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			if !c.exists(ops[0].Path()) {
				t.Fatal("the batch's first copy did not land; the test proves nothing")
			}
			for i, r := range res {
				if errors.Is(r.Err, migrationzk.ErrNotApplied) || !errors.Is(r.Err, migrationzk.ErrOutcomeUnknown) || !errors.Is(r.Err, want) {
					t.Fatalf("op %d (%v) landed but its result is %v; want ErrOutcomeUnknown and %v", i, r.Op, r.Err, want)
				}
			}
		})
	}
}

// Fault: the reply of a batch of deletes lost after commit, the call's
// context ending before the reread; the call made again with creates
// appended (a caller merging its next delta), its request lost and its
// context ending; then made a third time. Two transactions are in doubt
// and the first landed. Its deletes leave no zxid to prove them, and the
// second's creates are absent: only the first transaction explains what
// ZooKeeper holds, and the Writer must remember it, not only the newest
// doubt, or it reports a false conflict. (Found by the torture suite.)
func TestApplyEarlierDoubtLandedWithMergedOps(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	for _, p := range []string{"/brokers/topics/gone", "/brokers/topics/gone/partitions"} {
		c.create(p, nil)
	}
	deletes := []migrationzk.Op{migrationzk.Delete("/brokers/topics/gone/partitions", -1), migrationzk.Delete("/brokers/topics/gone", -1)}
	merged := append(append([]migrationzk.Op(nil), deletes...), migrationzk.Create("/brokers/topics/new", []byte("n")))
	s.KRaftMetadataOffset = 1300

	ctx, cancel := context.WithCancel(context.Background())
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration"), Then: cancel})
	if _, _, err := w.Apply(ctx, s, deletes...); !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("first call: %v, want ErrOutcomeUnknown", err)
	}
	if c.exists("/brokers/topics/gone") {
		t.Fatal("the first call's transaction did not land; the test needs it to")
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p("/migration"), Then: cancel})
	if _, _, err := w.Apply(ctx, s, merged...); err != nil && !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("second call: %v", err)
	}
	next, _, err := w.Apply(testContext(t), s, merged...)
	if err != nil {
		t.Fatalf("third call: %v", err)
	}
	if !next.Recovered || !c.exists("/brokers/topics/new") {
		t.Fatalf("recovered %v, new topic present %v", next.Recovered, c.exists("/brokers/topics/new"))
	}
	c.checkMatches(next)
}
