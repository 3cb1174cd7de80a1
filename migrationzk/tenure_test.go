package migrationzk_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// endTenure raises /controller_epoch as another controller's election
// does, through the test's second session.
func (c *cluster) endTenure() {
	c.t.Helper()
	data, st := c.get("/controller_epoch")
	epoch, err := znode.DecodeControllerEpoch(data)
	if err != nil {
		c.t.Error(err)
		return
	}
	if _, err := c.admin.Set(c.p("/controller_epoch"), znode.EncodeControllerEpoch(epoch+1), st.Version); err != nil {
		c.t.Error(err)
	}
}

// checkFencedAndRetired fails unless err is a *FencedError from
// /controller_epoch and the Writer is retired with its confirmed offset
// short of offset.
func checkFencedAndRetired(t *testing.T, c *cluster, w *migrationzk.Writer, err error, offset int64) {
	t.Helper()
	var fe *migrationzk.FencedError
	if !errors.As(err, &fe) || fe.Path != "/controller_epoch" {
		t.Fatalf("err = %v, want fenced by /controller_epoch", err)
	}
	if retired, _ := w.Retired(); !retired {
		t.Fatal("not retired")
	}
	if w.ConfirmedOffset() == offset {
		t.Fatal("ConfirmedOffset moved to a checkpoint written under a tenure that ended")
	}
	if w.Stats().LostAcks != 0 {
		t.Fatalf("%d lost acknowledgements counted as recovered", w.Stats().LostAcks)
	}
}

// Fault: reply lost after the checkpoint committed, and /controller_epoch
// raised by another controller before the resend (the tenure ends during
// the lost acknowledgement). /migration does hold the checkpoint, but
// nothing proves it was written under the fence: the call says fenced, its
// outcome unknown, not done.
func TestTenureEndsDuringLostAckOfCheckpoint(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration"), Then: c.endTenure})
	s.KRaftMetadataOffset = 7000
	_, err := w.Update(testContext(t), s)
	checkFencedAndRetired(t, c, w, err, 7000)
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want its outcome unknown too", err)
	}
}

// Fault: rival controller: /controller_epoch raised before the checkpoint
// is sent. ZooKeeper refuses the only copy: fenced, and not in doubt. (A
// request lost on the way is in doubt like a lost reply: the client cannot
// tell them apart.)
func TestTenureEndedBeforeCheckpoint(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	c.endTenure()
	s.KRaftMetadataOffset = 7050
	_, err := w.Update(testContext(t), s)
	checkFencedAndRetired(t, c, w, err, 7050)
	if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v: a write refused at its only copy reported in doubt", err)
	}
}

// Fault: reply lost after a batch's transaction committed, and the tenure
// ends before the resend. Every op reports that its transaction may have
// landed, and the call says fenced.
func TestTenureEndsDuringLostAckOfBatch(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	ops := topicOps("tenure", 2)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration"), Then: c.endTenure})
	s.KRaftMetadataOffset = 7100
	_, res, err := w.Apply(testContext(t), s, ops...)
	checkFencedAndRetired(t, c, w, err, 7100)
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want its outcome unknown too", err)
	}
	if len(res) != len(ops) {
		t.Fatalf("%d results for %d ops", len(res), len(ops))
	}
	for i, r := range res {
		if !errors.Is(r.Err, migrationzk.ErrOutcomeUnknown) || !errors.Is(r.Err, migrationzk.ErrFenced) {
			t.Fatalf("op %d: %v, want outcome unknown and fenced", i, r.Err)
		}
	}
}

// Fault: reply lost after the claim committed, and /controller_epoch raised
// by another party before the resend. /controller still names this
// controller with its epoch, but the claim's tenure ended: the claim is
// refused, no fence adopted.
func TestTenureEndsDuringLostAckOfClaim(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/controller"), Then: c.endTenure})
	s, err := w.ClaimLeadership(testContext(t), kraft())
	var fe *migrationzk.FencedError
	if !errors.As(err, &fe) || fe.Path != "/controller" {
		t.Fatalf("err = %v (state %+v), want fenced by /controller", err, s)
	}
	if s.ZkControllerEpochZkVersion != -1 || w.Stats().LostAcks != 0 {
		t.Fatalf("a fence adopted (%+v) or a lost acknowledgement counted (%d)", s, w.Stats().LostAcks)
	}
}

// Fault: reply lost after the claim committed and the server stopped, so
// the call ends with the outcome unknown; then either nothing happens
// before the caller calls again (the claim is found, exactly as sent:
// recovered), or the tenure ends first (refused).
func TestClaimInDoubtAcrossCalls(t *testing.T) {
	for _, ended := range []bool{false, true} {
		name := map[bool]string{false: "claim-stands", true: "tenure-ended"}[ended]
		t.Run(name, func(t *testing.T) {
			c := newCluster(t)
			if c.srv.Pid() == 0 {
				t.Skip("needs a server of its own")
			}
			w := c.writer()
			c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/controller"), Then: c.stopServer})
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, err := w.ClaimLeadership(ctx, kraft())
			cancel()
			if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
				t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
			}
			c.restartServer()
			waitSession(t, c.admin)
			if ended {
				c.endTenure()
			}
			s, err := w.ClaimLeadership(testContext(t), kraft())
			if ended {
				if !errors.Is(err, migrationzk.ErrFenced) {
					t.Fatalf("err = %v, want fenced", err)
				}
				return
			}
			if err != nil || !s.Recovered || w.Stats().LostAcks != 1 {
				t.Fatalf("state %+v, err %v, lost acks %d: want the claim recovered", s, err, w.Stats().LostAcks)
			}
			c.checkClaimed(s)
		})
	}
}

// Fault: a batch's reply lost and the server stopped, so the call ends
// with the outcome unknown; meanwhile someone deletes one of its znodes and
// creates it again with the same bytes. Calling again, with one more op,
// finds the earlier transaction by /migration and by the op it created: all
// of its ops landed, the recreated one included, and the new op is sent.
func TestApplyEarlierTransactionOpRecreated(t *testing.T) {
	c := newCluster(t)
	if c.srv.Pid() == 0 {
		t.Skip("needs a server of its own")
	}
	w := c.writer()
	s := c.start(w)
	a := migrationzk.Create(znode.TopicsPath+"/a", []byte("x"))
	b := migrationzk.Create(znode.TopicsPath+"/b", []byte("y"))
	more := migrationzk.Create(znode.TopicsPath+"/c", []byte("z"))
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p(a.Path()), Then: c.stopServer})
	s.KRaftMetadataOffset = 7200
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, _, err := w.Apply(ctx, s, a, b)
	cancel()
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	c.restartServer()
	waitSession(t, c.admin)
	if err := c.admin.Delete(c.p(a.Path()), 0); err != nil {
		t.Fatal(err)
	}
	c.create(a.Path(), a.Data())
	next, res, err := w.Apply(testContext(t), s, a, b, more)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || !res[0].Recovered || res[1].Err != nil || !res[1].Recovered || res[2].Err != nil || res[2].Recovered || !next.Recovered {
		t.Fatalf("results %+v, recovered %v: want the earlier transaction's ops recovered and the new op sent", res, next.Recovered)
	}
	c.checkApplied([]migrationzk.Op{a, b, more})
	c.checkMatches(next)
}

// Fault: a batch's request dropped before it reached the server, and the
// server stopped, so the call ends with the outcome unknown; meanwhile
// another writer writes our exact checkpoint bytes to /migration, alone.
// Calling again finds /migration at the next version with our content
// under our fence, but the batch's znodes show that no transaction of ours
// wrote it: a conflict, not a recovery. A resend the stopped call left
// queued in the client would land once the server is back (its outcome was
// unknown, after all): it is dropped too, so that the other writer's
// write is the only one.
func TestApplyOurBytesWrittenByAnother(t *testing.T) {
	c := newCluster(t)
	if c.srv.Pid() == 0 {
		t.Skip("needs a server of its own")
	}
	w := c.writer()
	s := c.start(w)
	ops := topicOps("aba", 1)
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p("/migration"), Then: c.stopServer})
	s.KRaftMetadataOffset = 7300
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, _, err := w.Apply(ctx, s, ops...)
	cancel()
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the call stopped", err)
	}
	// The queued resend if there is one, else the next call's first copy.
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p("/migration")})
	c.restartServer()
	waitSession(t, c.admin)
	ours := s.Checkpoint().Encode()
	if _, err := c.admin.Set(c.p("/migration"), ours, s.MigrationZkVersion); err != nil {
		t.Fatal(err)
	}
	_, res, err := w.Apply(testContext(t), s, ops...)
	var ce *migrationzk.ConflictError
	if !errors.As(err, &ce) || ce.CurrentVersion != s.MigrationZkVersion+1 {
		t.Fatalf("err = %v, want a conflict at version %d", err, s.MigrationZkVersion+1)
	}
	if w.Stats().LostAcks != 0 || c.exists(ops[0].Path()) {
		t.Fatalf("lost acks %d, topic created %v: our bytes taken for our write", w.Stats().LostAcks, c.exists(ops[0].Path()))
	}
	for i, r := range res {
		if r.Err == nil {
			t.Fatalf("op %d reported applied", i)
		}
	}
}
