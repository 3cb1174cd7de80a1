package migrationzk_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: server killed (SIGKILL) right after it committed the checkpoint,
// before the reply went out, then restarted; and killed before the request
// reached it.
func TestServerKilledMidWrite(t *testing.T) {
	for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
		t.Run(action.String(), func(t *testing.T) {
			c := newCluster(t)
			if c.srv.Pid() == 0 {
				t.Skip("needs a server of its own")
			}
			w := c.writer()
			s := c.start(w)
			restarted := make(chan struct{})
			c.faults.Arm(zktest.Fault{Action: action, Op: zktest.OpMulti, Path: c.p("/migration"), Then: func() {
				if err := c.srv.Kill(); err != nil {
					t.Errorf("Kill: %v", err)
				}
				go func() {
					defer close(restarted)
					time.Sleep(300 * time.Millisecond)
					if err := c.srv.Restart(); err != nil {
						t.Errorf("Restart: %v", err)
					}
				}()
			}})
			s.KRaftMetadataOffset = 2000
			next, err := w.Update(testContext(t), s)
			<-restarted
			if err != nil {
				t.Fatal(err)
			}
			if next.Recovered != (action == zktest.DropReply) {
				t.Fatalf("recovered = %v", next.Recovered)
			}
			waitSession(t, c.admin)
			c.checkMatches(next)
			c.tenMoreWrites(w, next)
		})
	}
}

// Fault: the ensemble member the client is connected to is killed right
// after the write committed; the client moves to another member, which may
// lag, so the reread must sync first.
func TestEnsembleMemberKilledMidWrite(t *testing.T) {
	e := zktest.StartEnsemble(t, 3)
	faults := zktest.NewFaultDialer(t)
	conn := e.Connect(t, faults.Option())
	admin := e.Connect(t)
	c := &cluster{t: t, faults: faults, conn: conn, admin: admin}
	c.seed()
	w := c.writer()
	s := c.start(w)

	victim := e.Member(conn.Server())
	if victim == nil {
		t.Fatalf("client on %q, not a member", conn.Server())
	}
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: "/migration", Then: func() {
		if err := victim.Kill(); err != nil {
			t.Errorf("Kill: %v", err)
		}
	}})
	s.KRaftMetadataOffset = 3000
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatal(err)
	}
	if !next.Recovered {
		t.Fatal("not recovered")
	}
	if conn.Server() == victim.Addr {
		t.Fatal("client still on the killed member")
	}
	waitSession(t, admin)
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
	if err := victim.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitServing(); err != nil {
		t.Fatal(err)
	}
}

// Fault: session expired right after the server committed the write; the
// resend and the reread happen on a new session.
func TestSessionExpiredMidWrite(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	id, pw := c.faults.Session()
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration"), Then: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := zktest.ExpireSession(ctx, c.srv.Addr(), id, pw); err != nil {
			t.Error(err)
		}
	}})
	s.KRaftMetadataOffset = 4000
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatal(err)
	}
	if !next.Recovered || c.conn.SessionID() == id {
		t.Fatalf("recovered %v, session %x (was %x)", next.Recovered, c.conn.SessionID(), id)
	}
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// Fault: connection cut after commit, then the server stops, so the call
// runs out of time with ErrOutcomeUnknown; calling again with the same
// state after the restart finds the write landed.
func TestUpdateOutcomeUnknownThenRetry(t *testing.T) {
	c := newCluster(t)
	if c.srv.Pid() == 0 {
		t.Skip("needs a server of its own")
	}
	w := c.writer()
	s := c.start(w)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration"), Then: c.stopServer})
	s.KRaftMetadataOffset = 5000
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := w.Update(ctx, s)
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown from the deadline", err)
	}
	if w.ConfirmedOffset() == 5000 {
		t.Fatal("ConfirmedOffset moved for an unconfirmed write")
	}
	c.restartServer()
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatal(err)
	}
	if !next.Recovered || w.ConfirmedOffset() != 5000 {
		t.Fatalf("recovered %v confirmed %d", next.Recovered, w.ConfirmedOffset())
	}
	waitSession(t, c.admin)
	c.checkMatches(next)
	c.tenMoreWrites(w, next)
}

// Fault: connection cut after commit, and a rival writer: the generic
// ConditionalUpdate with Kafka's partition-state checker.
func TestConditionalUpdate(t *testing.T) {
	c := newCluster(t)
	path := znode.PartitionStatePath("foo", 0)
	c.create("/brokers/topics/foo", nil)
	c.create("/brokers/topics/foo/partitions", nil)
	c.create("/brokers/topics/foo/partitions/0", nil)
	st := znode.PartitionState{ControllerEpoch: 5, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	c.create(path, st.Encode())
	ctx := testContext(t)
	w := c.writer()

	st.LeaderEpoch = 1
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: c.p(path)})
	res, err := w.ConditionalUpdate(ctx, path, st.Encode(), 0, checker.LeaderAndIsr{})
	if err != nil || res != (migrationzk.UpdateResult{Version: 1, Recovered: true}) {
		t.Fatalf("after dropped reply: %+v, %v", res, err)
	}

	// A rival (a ZooKeeper-mode leader shrinking the ISR) moves it on.
	rival := st
	rival.ISR = []int32{1}
	if _, err := c.admin.Set(c.p(path), rival.Encode(), 1); err != nil {
		t.Fatal(err)
	}
	st.LeaderEpoch = 2
	_, err = w.ConditionalUpdate(ctx, path, st.Encode(), 1, checker.LeaderAndIsr{})
	var ce *migrationzk.ConflictError
	if !errors.As(err, &ce) || ce.CurrentVersion != 2 || string(ce.CurrentData) != string(rival.Encode()) {
		t.Fatalf("err = %v, want conflict at version 2", err)
	}
	if _, err := w.ConditionalUpdate(ctx, "/brokers/topics/none", []byte("x"), 0, nil); err == nil {
		t.Fatal("update of a missing znode succeeded")
	}
	if _, err := w.ConditionalUpdate(ctx, path, []byte("x"), -1, nil); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("version -1: %v", err)
	}
}

// Fault: connection cut after commit, on a conditional delete; and a rival
// that moved the znode on.
func TestConditionalDelete(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	w := c.writer()
	c.create("/doomed", []byte("x"))
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/doomed")})
	if _, err := w.ConditionalDelete(ctx, "/doomed", 0); err != nil {
		t.Fatalf("after dropped reply: %v", err)
	}
	if c.exists("/doomed") {
		t.Fatal("not deleted")
	}
	c.create("/moved", []byte("x"))
	if _, err := c.admin.Set(c.p("/moved"), []byte("y"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := w.ConditionalDelete(ctx, "/moved", 0)
	var ce *migrationzk.ConflictError
	if !errors.As(err, &ce) || ce.CurrentVersion != 1 || !c.exists("/moved") {
		t.Fatalf("err = %v, want conflict at version 1 and the znode kept", err)
	}
	if _, err := w.ConditionalDelete(ctx, "/never", 0); err != nil {
		t.Fatalf("delete of a missing znode: %v", err)
	}
}

// Fault: the server answers "session expired" on a connection it keeps open
// while the client goes on using the session: the call gives up with
// ErrStaleSession instead of resending until its context ends, and a call
// after the client recovers finds nothing lost.
func TestStaleSession(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	var armed []*zktest.Armed
	for i := 0; i < 50; i++ {
		armed = append(armed, c.faults.Arm(zktest.Fault{Action: zktest.RejectExpired, Op: zktest.OpMulti, Path: c.p("/migration")}))
	}
	s.KRaftMetadataOffset = 6000
	_, err := w.Update(testContext(t), s)
	if !errors.Is(err, migrationzk.ErrStaleSession) || !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrStaleSession (outcome unknown)", err)
	}
	fired := 0
	for _, a := range armed {
		if a.HasFired() {
			fired++
		}
		a.Disarm()
	}
	if fired > 10 {
		t.Fatalf("%d rejected attempts before giving up", fired)
	}
	next, err := w.Update(testContext(t), s)
	if err != nil || next.Recovered {
		t.Fatalf("after the session mended: %+v, %v", next, err)
	}
	c.checkMatches(next)
}

// Fault: none. Under a root, the path "/" is the root znode itself.
func TestConditionalUpdateOfRoot(t *testing.T) {
	c := newCluster(t)
	c.create("/chroot", []byte("a"))
	w := c.writer(migrationzk.WithRoot(c.p("/chroot")))
	res, err := w.ConditionalUpdate(testContext(t), "/", []byte("b"), 0, nil)
	if err != nil || res != (migrationzk.UpdateResult{Version: 1}) {
		t.Fatalf("%+v, %v", res, err)
	}
	if data, _ := c.get("/chroot"); string(data) != "b" {
		t.Fatalf("/chroot holds %q", data)
	}
	if _, err := w.ConditionalDelete(testContext(t), "/", 1); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("delete of the root: %v", err)
	}
}

// Fault: reply lost after the checkpoint committed, then the request of
// the sync that opens the reread lost too. The reread syncs /migration
// before reading it (a member that lags would otherwise answer from before
// the write; the FaultDialer reports the sync fault if it never fires),
// and the call still recovers its write.
func TestRereadSyncsFirst(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration")})
	synced := c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSync, Path: c.p("/migration")})
	s.KRaftMetadataOffset = 2100
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-synced.Fired():
	default:
		t.Fatal("the reread read /migration without syncing it first")
	}
	if !next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
		t.Fatalf("recovered = %v at version %d, want recovered at %d", next.Recovered, next.MigrationZkVersion, s.MigrationZkVersion+1)
	}
	c.checkMatches(next)
}
