package torture

import (
	"context"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// partitionGap bounds a cut: long enough for a cut member to notice
// (ZooKeeper's syncLimit, 5 ticks of 500ms) and a majority to elect.
const (
	minCut = 3 * time.Second
	maxCut = 5 * time.Second
)

// canPartition reports whether members can be cut apart now: none is down
// or cut, and the last restart or healing is KillGap behind.
func (d *driver) canPartition() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.down == nil && !d.quiet && time.Since(d.lastUp) >= d.cfg.KillGap
}

// injectIsolateLeader cuts the ensemble's leader from both followers
// (their quorum and election links), for a few seconds: the followers
// elect one of them and the old leader stops serving, the writer's
// session moving on if it used it. Then it heals.
func (d *driver) injectIsolateLeader() []*zktest.Armed {
	ctx, cancel := context.WithTimeout(d.ctx, time.Second)
	leader, err := d.e.WaitLeader(ctx)
	cancel()
	if err != nil || !d.reserveDown(leader) {
		return nil // an election under way: no leader to isolate
	}
	d.cutAndHeal(leader, FaultIsolateLeader, minCut+time.Duration(d.rng.Int63n(int64(maxCut-minCut))))
	return nil
}

// cutAndHeal cuts m from the other members, counts a fault of kind, and
// heals after cut in the background.
func (d *driver) cutAndHeal(m *zktest.Member, kind string, cut time.Duration) {
	if err := d.e.Isolate(m.ID); err != nil {
		d.anomaly(CheckHarness, "harness: isolate member %d: %v", m.ID, err)
	}
	d.count(kind)
	go func() {
		defer d.restarts.Done()
		time.Sleep(cut)
		d.e.Heal()
		d.count(FaultHeal)
		d.mu.Lock()
		d.down, d.lastUp = nil, time.Now()
		d.mu.Unlock()
	}()
}

// injectClientMinority cuts the member g's session uses, a follower, from
// the other two, so that it is a minority of one that still answers reads
// from what it last applied for a while (until its syncLimit runs out). A
// rival with a higher KRaft epoch claims through the majority,
// acknowledged; then g's own controller, restarted with its identity,
// claims on g's session, served by the cut member. Its claim no longer
// stands: it must be refused, not resumed from a stale read. The cut heals
// a few seconds later; g, fenced, hands over to the rival.
func (d *driver) injectClientMinority(g *generation) []*zktest.Armed {
	m := d.e.Member(g.conn.Server())
	if m == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(d.ctx, time.Second)
	st, err := m.Status(ctx)
	cancel()
	if err != nil || st.Mode != "follower" || !d.reserveDown(m) {
		return nil
	}
	rival := d.spawnAvoiding(m, d.rng.Float64() < rollbackSafeShare)
	d.rival = rival
	twin := d.restartedOnSession(g)
	d.cutAndHeal(m, FaultClientMinority, minCut+time.Duration(d.rng.Int63n(int64(maxCut-minCut))))
	d.calls.Add(2)
	d.claim(rival)
	d.claim(twin)
	return nil
}

// spawnAvoiding connects a new controller, as spawn does, to the members
// other than m.
func (d *driver) spawnAvoiding(m *zktest.Member, rollbackSafe bool) *generation {
	g := d.spawn(rollbackSafe)
	var servers []string
	for _, s := range d.e.Servers {
		if s != m.Addr {
			servers = append(servers, s)
		}
	}
	g.conn.Close()
	g.conn = zktest.Connect(d.t, servers, g.faults.Option())
	g.w = g.newWriter()
	return g
}

// restartedOnSession returns a new Writer for g's controller and KRaft
// epoch on g's session, as a controller restarted in place, whose claim
// must be refused (a rival claims first).
func (d *driver) restartedOnSession(g *generation) *generation {
	twin := &generation{n: len(d.gens), id: g.id, epoch: g.epoch, rollbackSafe: g.rollbackSafe, faults: g.faults,
		conn: g.conn, claimed: make(chan struct{}), log: newRing(20), loser: true,
		why: "a rival's claim acknowledged by the majority while its session's member was cut from it"}
	twin.mustBeRefused.Store(true)
	twin.w = twin.newWriter()
	d.gens = append(d.gens, twin)
	return twin
}
