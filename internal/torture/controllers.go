package torture

import (
	"fmt"
	"math/rand"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// rollbackSafeShare is the share of generations whose writer claims with
// rollback-safe epochs.
const rollbackSafeShare = 0.5

// controllers are the KRaft controllers of a run, each with its own
// Writer and connection: the one whose calls the workload makes (cur), a
// rival about to take over from it, if any, and all those that came
// before or lost.
type controllers struct {
	r     *recording
	rng   *rand.Rand
	gens  []*generation
	cur   *generation
	rival *generation
}

// newGeneration connects a new KRaft controller, each one with a higher
// epoch than the last, whose writer claims with rollback-safe epochs or
// not, a seeded choice.
func (c *controllers) newGeneration() *generation {
	return c.spawn(c.rng.Float64() < rollbackSafeShare)
}

// spawn connects a new KRaft controller with a KRaft epoch 1 to
// maxKRaftEpochGap above the last one's, its writer claiming with
// rollback-safe epochs when rollbackSafe.
func (c *controllers) spawn(rollbackSafe bool) *generation {
	epoch := int32(baseKRaftEpoch)
	if len(c.gens) > 0 {
		highest := int32(0)
		for _, g := range c.gens {
			highest = max(highest, g.epoch)
		}
		epoch = highest + 1 + int32(c.rng.Intn(maxKRaftEpochGap))
	}
	return c.spawnAs(baseControllerID+int32(len(c.gens)), epoch, rollbackSafe)
}

// spawnAs connects a new KRaft controller with id and KRaft epoch, its
// writer claiming with rollback-safe epochs when rollbackSafe.
func (c *controllers) spawnAs(id, epoch int32, rollbackSafe bool) *generation {
	g := &generation{r: c.r, n: len(c.gens), id: id, epoch: epoch, rollbackSafe: rollbackSafe,
		faults: zktest.NewFaultDialer(c.r.t), claimed: make(chan struct{})}
	servers := append([]string(nil), c.r.e.Servers...)
	c.rng.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
	g.conn = zktest.Connect(c.r.t, servers, g.faults.Option())
	g.log = newRing(20)
	g.w = g.newWriter()
	c.gens = append(c.gens, g)
	return g
}

// spawnAvoiding connects a new controller, as spawn does, to the members
// other than m.
func (c *controllers) spawnAvoiding(m *zktest.Member, rollbackSafe bool) *generation {
	g := c.spawn(rollbackSafe)
	var servers []string
	for _, s := range c.r.e.Servers {
		if s != m.Addr {
			servers = append(servers, s)
		}
	}
	g.conn.Close()
	g.conn = zktest.Connect(c.r.t, servers, g.faults.Option())
	g.w = g.newWriter()
	return g
}

// restartedOnSession returns a new Writer for g's controller and KRaft
// epoch on g's session, as a controller restarted in place, whose claim
// must be refused (a rival claims first).
func (c *controllers) restartedOnSession(g *generation) *generation {
	twin := &generation{r: c.r, n: len(c.gens), id: g.id, epoch: g.epoch, rollbackSafe: g.rollbackSafe, faults: g.faults,
		conn: g.conn, claimed: make(chan struct{}), log: newRing(20), loser: true,
		why: "a rival's claim acknowledged by the majority while its session's member was cut from it"}
	twin.mustBeRefused.Store(true)
	twin.w = twin.newWriter()
	c.gens = append(c.gens, twin)
	return twin
}

// spawnLoser connects a controller whose claim must lose to holder's
// standing claim: holder's controller id or another, with a KRaft epoch
// one or two below holder's, or, with another id, equal to it.
func (c *controllers) spawnLoser(holder *generation) *generation {
	id, epoch := holder.id, holder.epoch-1-int32(c.rng.Intn(2))
	if c.rng.Intn(2) == 0 {
		id = otherControllerBase + int32(len(c.gens))
		if c.rng.Intn(2) == 0 {
			epoch = holder.epoch
		}
	}
	l := c.spawnAs(id, epoch, c.rng.Float64() < rollbackSafeShare)
	l.loser, l.why = true, fmt.Sprintf("the standing claim of controller %d epoch %d", holder.id, holder.epoch)
	l.mustBeRefused.Store(true)
	return l
}

// loserClaims runs l's claim, which must be refused, if /controller still
// names holder (a ZooKeeper-mode broker that won it is no standing claim
// for l to lose to), and then closes l.
func (c *controllers) loserClaims(l, holder *generation) {
	defer l.conn.Close()
	if !c.r.admin.names(holder.id, holder.epoch) {
		close(l.claimed)
		return
	}
	c.r.tally.count(FaultLoser)
	c.r.stats.calls.Add(1)
	l.claim()
}

// claim counts a library call and runs g's claim.
func (c *controllers) claim(g *generation) {
	c.r.stats.calls.Add(1)
	g.claim()
}

// rollbackSafeWriters counts the generations whose writer claims with
// rollback-safe epochs.
func (c *controllers) rollbackSafeWriters() int {
	n := 0
	for _, g := range c.gens {
		if g.rollbackSafe {
			n++
		}
	}
	return n
}
