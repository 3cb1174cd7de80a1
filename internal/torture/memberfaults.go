package torture

import (
	"context"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A cut lasts long enough for a cut member to notice (ZooKeeper's
// syncLimit, 5 ticks of 500ms) and a majority to elect.
const (
	minCut = 3 * time.Second
	maxCut = 5 * time.Second
)

// killMember kills a random member (SIGKILL), unless one is away already,
// at once or a few milliseconds into the coming call, and restarts it
// soon after.
type killMember struct{}

func (killMember) name() string { return FaultKillMember }

func (killMember) available(cl *cluster, _ coming) bool {
	return cl.members.canDisrupt(FaultKillMember)
}

func (killMember) inject(cl *cluster, _ coming) []*zktest.Armed {
	m := cl.members.e.Members[cl.rng.Intn(len(cl.members.e.Members))]
	if !cl.members.reserve(m) {
		return nil
	}
	delay := time.Duration(cl.rng.Intn(15)) * time.Millisecond
	down := time.Duration(100+cl.rng.Intn(700)) * time.Millisecond
	if cl.rng.Float64() < 0.5 {
		cl.members.killAndRestart(m, FaultKillMember, down)
	} else {
		go func() {
			time.Sleep(delay)
			cl.members.killAndRestart(m, FaultKillMember, down)
		}()
	}
	return nil
}

// killClientMember kills the member the caller's client is connected to,
// unless one is away already, at once or when the coming call's
// transaction reaches it or its reply comes back (then dropped), and
// restarts it soon after.
type killClientMember struct{}

func (killClientMember) name() string { return FaultKillClientMember }

func (killClientMember) available(cl *cluster, _ coming) bool {
	return cl.members.canDisrupt(FaultKillClientMember)
}

func (killClientMember) inject(cl *cluster, c coming) []*zktest.Armed {
	down := time.Duration(100+cl.rng.Intn(700)) * time.Millisecond
	kill := func() {
		m := cl.members.e.Member(c.g.conn.Server())
		if m != nil && cl.members.reserve(m) {
			cl.members.killAndRestart(m, FaultKillClientMember, down)
		}
	}
	if cl.rng.Float64() < 0.4 {
		kill()
		return nil
	}
	w := callWrite()
	w.Action = cl.randomDrop()
	w.Then = kill
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// expireSession expires the caller's session from another connection, at
// once or when the reply to the coming call's transaction comes back
// (then dropped).
type expireSession struct{ always }

func (expireSession) name() string { return FaultExpireSession }

func (f expireSession) inject(cl *cluster, c coming) []*zktest.Armed {
	if cl.rng.Float64() < 0.4 {
		f.expire(cl, c.g)
		return nil
	}
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = func() { f.expire(cl, c.g) }
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// expire closes g's session from a new connection to a running member, as
// the server does to a session that timed out.
func (expireSession) expire(cl *cluster, g *generation) {
	id, pw := g.faults.Session()
	addr := cl.members.running()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := zktest.ExpireSession(ctx, addr, id, pw); err != nil {
		cl.log.add(CheckHarness, "harness: expire session %x: %v", id, err)
		return
	}
	cl.tally.count(FaultExpireSession)
}

// isolateLeader cuts the ensemble's leader from both followers (their
// quorum and election links) for a few seconds: the followers elect one
// of them and the old leader stops serving, the caller's session moving
// on if it used it. Then it heals.
type isolateLeader struct{}

func (isolateLeader) name() string { return FaultIsolateLeader }

func (isolateLeader) available(cl *cluster, _ coming) bool {
	return cl.members.canDisrupt(FaultIsolateLeader)
}

func (isolateLeader) inject(cl *cluster, _ coming) []*zktest.Armed {
	ctx, cancel := context.WithTimeout(cl.ctx, time.Second)
	leader, err := cl.members.e.WaitLeader(ctx)
	cancel()
	if err != nil || !cl.members.reserve(leader) {
		return nil // an election under way: no leader to isolate
	}
	cl.members.cutAndHeal(leader, FaultIsolateLeader, minCut+time.Duration(cl.rng.Int63n(int64(maxCut-minCut))))
	return nil
}

// clientMinority cuts the member the caller's session uses, a follower,
// from the other two, so that it is a minority of one that still answers
// reads from what it last applied for a while (until its syncLimit runs
// out). A rival with a higher KRaft epoch claims through the majority,
// acknowledged; then the caller's own controller, restarted with its
// identity, claims on the caller's session, served by the cut member. Its
// claim no longer stands: it must be refused, not resumed from a stale
// read. The cut heals a few seconds later; the caller, fenced, hands over
// to the rival.
type clientMinority struct{}

func (clientMinority) name() string { return FaultClientMinority }

func (clientMinority) available(cl *cluster, _ coming) bool {
	return cl.noRival() && cl.members.canDisrupt(FaultClientMinority)
}

func (clientMinority) inject(cl *cluster, c coming) []*zktest.Armed {
	m := cl.members.e.Member(c.g.conn.Server())
	if m == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(cl.ctx, time.Second)
	st, err := m.Status(ctx)
	cancel()
	if err != nil || st.Mode != "follower" || !cl.members.reserve(m) {
		return nil
	}
	rival := cl.ctl.spawnAvoiding(m, cl.rng.Float64() < rollbackSafeShare)
	cl.ctl.rival = rival
	twin := cl.ctl.restartedOnSession(c.g)
	cl.members.cutAndHeal(m, FaultClientMinority, minCut+time.Duration(cl.rng.Int63n(int64(maxCut-minCut))))
	cl.calls.Add(2)
	rival.claim()
	twin.claim()
	return nil
}
