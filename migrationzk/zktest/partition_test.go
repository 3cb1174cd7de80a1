package zktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// partitionTick is the tick of the ensembles partitioned here: a cut
// follower notices within syncLimit (5) ticks.
const partitionTick = 200 * time.Millisecond

func partitionContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitMode waits until member m reports mode.
func waitMode(ctx context.Context, t *testing.T, m *Member, mode string) MemberStatus {
	t.Helper()
	for {
		st, err := m.Status(ctx)
		if err == nil && st.Mode == mode {
			return st
		}
		select {
		case <-ctx.Done():
			t.Fatalf("member %d: mode %q (%v), want %q", m.ID, st.Mode, err, mode)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// others returns the IDs of the ensemble's members but id.
func others(e *Ensemble, id int) []int {
	var ids []int
	for _, m := range e.Members {
		if m.ID != id {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// Fault: the leader is cut from both followers. A write sent to it right
// after the cut, while it still takes requests, never lands: it cannot
// reach a majority. The followers elect one of them and the old leader
// stops serving; a write sent to the majority lands. After healing, the
// old leader follows the new one at the same zxid, holds the majority's
// write and not its own.
func TestIsolatedLeaderIsReplaced(t *testing.T) {
	e := StartEnsemble(t, 3, WithTickTime(partitionTick))
	ctx := partitionContext(t)
	old, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	onOld := Connect(t, []string{old.Addr})
	if _, err := onOld.Create("/before", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	if err := e.Isolate(old.ID); err != nil {
		t.Fatal(err)
	}
	if err := createOn(onOld, "/on-old-leader", 3*time.Second); err == nil {
		t.Fatal("the isolated leader acknowledged a write")
	}
	onOld.Close() // so that no client sends it again after healing
	leader, err := e.WaitLeader(ctx, others(e, old.ID)...)
	if err != nil {
		t.Fatal(err)
	}
	if leader.ID == old.ID {
		t.Fatalf("member %d still leads the majority", old.ID)
	}
	t.Logf("member %d leads %v after the cut", leader.ID, time.Since(cut).Round(time.Millisecond))
	waitMode(ctx, t, old, "")
	if err := createVia(old.Addr, "/on-old-leader-later", 3*time.Second); err == nil {
		t.Fatal("the isolated old leader applied a write")
	}
	majority := Connect(t, []string{leader.Addr})
	if _, err := majority.Create("/on-new-leader", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	healed := time.Now()
	e.Heal()
	if l, err := e.WaitLeader(ctx); err != nil || l.ID != leader.ID {
		t.Fatalf("after healing: leader %v, %v; want member %d", l, err, leader.ID)
	}
	checkConverged(ctx, t, e)
	t.Logf("converged %v after healing", time.Since(healed).Round(time.Millisecond))
	if ok, _, err := Connect(t, []string{old.Addr}).Exists("/on-new-leader"); err != nil || !ok {
		t.Fatalf("the old leader after healing: /on-new-leader exists %v, %v", ok, err)
	}
	for _, p := range []string{"/on-old-leader", "/on-old-leader-later"} {
		if ok, _, err := majority.Exists(p); err != nil || ok {
			t.Fatalf("%s exists %v, %v", p, ok, err)
		}
	}
}

// Fault: every member is cut from every other. None has a majority, so
// none serves and no write lands anywhere; after healing they elect a
// leader again and take writes.
func TestNoMajorityNoService(t *testing.T) {
	e := StartEnsemble(t, 3, WithTickTime(partitionTick))
	ctx := partitionContext(t)
	if _, err := e.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Partition(); err != nil {
		t.Fatal(err)
	}
	for _, m := range e.Members {
		waitMode(ctx, t, m, "")
	}
	for _, m := range e.Members {
		if err := createVia(m.Addr, "/split", 2*time.Second); err == nil {
			t.Fatalf("member %d applied a write with no majority", m.ID)
		}
	}
	e.Heal()
	leader, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := createVia(leader.Addr, "/healed", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	checkConverged(ctx, t, e)
	if ok, _, err := Connect(t, e.Servers).Exists("/split"); err != nil || ok {
		t.Fatalf("/split exists %v, %v", ok, err)
	}
}

// checkConverged waits until every member serves at one zxid.
func checkConverged(ctx context.Context, t *testing.T, e *Ensemble) {
	t.Helper()
	for {
		zxids := map[int64]bool{}
		serving := 0
		for _, m := range e.Members {
			if st, err := m.Status(ctx); err == nil && st.Mode != "" {
				serving++
				zxids[st.Zxid] = true
			}
		}
		if serving == len(e.Members) && len(zxids) == 1 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("members did not converge: %d serving, zxids %v", serving, zxids)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var errNoAnswer = errors.New("no answer")

// createVia creates path through a session with addr alone, and returns
// what the create returned, or errNoAnswer after wait. The session is
// closed before it returns, so that no client resends the create later.
func createVia(addr, path string, wait time.Duration) error {
	conn, _, err := zk.Connect([]string{addr}, SessionTimeout, zk.WithLogger(quiet{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() {
		_, err := conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		return errNoAnswer
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// Fault: a follower is cut from the other two, which keep a majority.
// Until its syncLimit runs out it still answers reads from what it last
// applied: a client of that member reads a value the majority has since
// overwritten, and its lower zxid shows it. A write through it never
// lands. After healing, every member serves at the majority's zxid and the
// client reads the new value.
func TestMinorityMemberServesStaleReads(t *testing.T) {
	// syncLimit 25 ticks: the cut follower serves for 5s before it gives up.
	e := StartEnsemble(t, 3, WithTickTime(partitionTick), WithSetting("syncLimit", "25"))
	ctx := partitionContext(t)
	leader, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lagging := e.Members[others(e, leader.ID)[0]-1]
	onLeader := Connect(t, []string{leader.Addr})
	onLagging := Connect(t, []string{lagging.Addr})
	if _, err := onLeader.Create("/x", []byte("old"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := onLagging.Sync("/x"); err != nil {
		t.Fatal(err)
	}
	if err := e.Isolate(lagging.ID); err != nil {
		t.Fatal(err)
	}
	st, err := onLeader.Set("/x", []byte("new"), 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := onLagging.Get("/x")
	if err != nil || string(data) != "old" {
		t.Fatalf("the cut member: /x holds %q (%v), want the stale %q", data, err, "old")
	}
	if ls, err := lagging.Status(ctx); err != nil || ls.Zxid >= st.Mzxid {
		t.Fatalf("the cut member at zxid %#x (%v), want below the write's %#x", ls.Zxid, err, st.Mzxid)
	}
	if err := createOn(onLagging, "/through-minority", 2*time.Second); err == nil {
		t.Fatal("a write through the cut member landed")
	}
	waitMode(ctx, t, lagging, "")
	e.Heal()
	checkConverged(ctx, t, e)
	if _, err := onLagging.Sync("/x"); err != nil {
		t.Fatal(err)
	}
	if data, _, err := onLagging.Get("/x"); err != nil || string(data) != "new" {
		t.Fatalf("after healing: /x holds %q (%v), want %q", data, err, "new")
	}
	if ok, _, err := onLeader.Exists("/through-minority"); err != nil || ok {
		t.Fatalf("/through-minority exists %v, %v", ok, err)
	}
}

// createOn creates path through conn and returns what the create returned,
// or errNoAnswer after wait.
func createOn(conn *zk.Conn, path string, wait time.Duration) error {
	done := make(chan error, 1)
	go func() {
		_, err := conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		return errNoAnswer
	}
}

// Fault: none. A conditional write that ZooKeeper rejects is still a
// transaction: it takes the next zxid, on the leader and on the follower
// that answered it, after the write that made it fail. So a session that
// got a rejection has seen that write, and no member that serves the
// session later lags behind it. A Writer rereads only after a rejection
// to judge a write in doubt; this is why a stale member cannot show such a
// reread the znode from before that write.
func TestRejectedWriteTakesAZxid(t *testing.T) {
	e := StartEnsemble(t, 3, WithTickTime(partitionTick))
	ctx := partitionContext(t)
	leader, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	follower := e.Members[others(e, leader.ID)[0]-1]
	onLeader := Connect(t, []string{leader.Addr})
	onFollower := Connect(t, []string{follower.Addr})
	if _, err := onLeader.Create("/a", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	st, err := onLeader.Set("/a", []byte("landed"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := onFollower.Set("/a", []byte("again"), 0); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("setData at the old version: %v, want %v", err, zk.ErrBadVersion)
	}
	if _, err := onFollower.Multi(&zk.CheckVersionRequest{Path: "/a", Version: 0}, &zk.SetDataRequest{Path: "/a", Data: []byte("again"), Version: 0}); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("multi at the old version: %v, want %v", err, zk.ErrBadVersion)
	}
	for _, m := range []*Member{leader, follower} {
		got, err := m.Status(ctx)
		if err != nil || got.Zxid != st.Mzxid+2 {
			t.Errorf("member %d at zxid %#x (%v) after two rejections of a write at %#x, want %#x", m.ID, got.Zxid, err, st.Mzxid, st.Mzxid+2)
		}
	}
}
