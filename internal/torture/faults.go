package torture

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// fault is one kind of fault the driver injects around a call.
type fault interface {
	// name is the kind, as counted in Report.Faults.
	name() string
	// available reports whether the fault can be injected now, around
	// the coming call c (a member can be killed, no rival is waiting to
	// take over, the call is of the kind the fault disturbs).
	available(d *driver, c coming) bool
	// inject sets the fault up around the coming call c, at once, at a
	// random moment during the call, or at the exact moment a request of
	// the call reaches the server or its reply comes back, and returns
	// the faults it armed on the caller's dialer.
	inject(d *driver, c coming) []*zktest.Armed
}

// coming is the call a fault is injected around: g's call making wk (to
// which a fault may add ops) and writing s.
type coming struct {
	g  *generation
	wk *work
	s  migrationzk.State
}

// faultKind is a fault made of its name and two functions.
type faultKind struct {
	kind    string
	canNow  func(d *driver, c coming) bool // nil: always available
	arrange func(d *driver, c coming) []*zktest.Armed
}

func (f faultKind) name() string { return f.kind }

func (f faultKind) available(d *driver, c coming) bool { return f.canNow == nil || f.canNow(d, c) }

func (f faultKind) inject(d *driver, c coming) []*zktest.Armed { return f.arrange(d, c) }

// weightedFault is a fault with its relative chance of being drawn.
type weightedFault struct {
	fault
	weight int
}

// faultTable lists every fault the driver injects with its weight.
func faultTable() []weightedFault {
	net := func(a zktest.Action) func(*driver, coming) []*zktest.Armed {
		return func(d *driver, c coming) []*zktest.Armed { return d.injectNetFault(c.g, *c.wk, a) }
	}
	rival := func(kind string) func(*driver, coming) []*zktest.Armed {
		return func(d *driver, c coming) []*zktest.Armed { return d.injectRival(c.g, kind) }
	}
	noRival := func(d *driver, _ coming) bool { return d.rival == nil }
	return []weightedFault{
		{faultKind{FaultDropReply, nil, net(zktest.DropReply)}, 6},
		{faultKind{FaultDropRequest, nil, net(zktest.DropRequest)}, 4},
		{faultKind{FaultCutRequest, nil, net(zktest.CutRequest)}, 4},
		{faultKind{FaultKillMember, func(d *driver, _ coming) bool { return d.canDisrupt(FaultKillMember) },
			func(d *driver, _ coming) []*zktest.Armed { return d.injectKillMember() }}, 2},
		{faultKind{FaultKillClientMember, func(d *driver, _ coming) bool { return d.canDisrupt(FaultKillClientMember) },
			func(d *driver, c coming) []*zktest.Armed { return d.injectKillClientMember(c.g) }}, 2},
		{faultKind{FaultExpireSession, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectExpireSession(c.g) }}, 3},
		{faultKind{FaultRival, noRival, rival("")}, 2},
		{faultKind{FaultForeignWrite, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectForeignWrite(c.g, *c.wk) }}, 3},
		{faultKind{FaultForeignDelta, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectForeignDelta(c.g, *c.wk) }}, 6},
		{faultKind{FaultABAWrite, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectABA(c.g, *c.wk, c.s) }}, 3},
		{faultKind{FaultTenureEnds, noRival, func(d *driver, c coming) []*zktest.Armed { return d.injectTenureEnds(c.g) }}, 2},
		{faultKind{FaultRecreate, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectRecreate(c.g, c.wk) }}, 5},
		{faultKind{FaultClaimRace, noRival, rival(FaultClaimRace)}, 1},
		{faultKind{FaultBrokerWins, noRival, rival(FaultBrokerWins)}, 2},
		{faultKind{FaultClaimTenureEnds, noRival, rival(FaultClaimTenureEnds)}, 1},
		{faultKind{FaultClaimTwin, noRival, rival(FaultClaimTwin)}, 1},
		{faultKind{FaultImitate, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectImitate(c.g, c.wk, c.s) }}, 3},
		{faultKind{FaultIsolateLeader, func(d *driver, _ coming) bool { return d.canDisrupt(FaultIsolateLeader) },
			func(d *driver, _ coming) []*zktest.Armed { return d.injectIsolateLeader() }}, 2},
		{faultKind{FaultClientMinority, func(d *driver, _ coming) bool { return d.rival == nil && d.canDisrupt(FaultClientMinority) },
			func(d *driver, c coming) []*zktest.Armed { return d.injectClientMinority(c.g) }}, 2},
		{faultKind{FaultEpochBoundary, noRival, func(d *driver, _ coming) []*zktest.Armed { return d.injectEpochBoundary() }}, 1},
		{faultKind{FaultLoser, noRival, func(d *driver, c coming) []*zktest.Armed { return d.injectLoser(c.g) }}, 2},
		{faultKind{FaultResume, noRival, func(d *driver, c coming) []*zktest.Armed { return d.injectResume(c.g) }}, 1},
		{faultKind{FaultDeadlineInDoubt, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectDeadlineInDoubt(c.g) }}, 2},
		{faultKind{FaultReloadInDoubt, nil, func(d *driver, c coming) []*zktest.Armed { return d.injectReloadInDoubt(c.g, *c.wk) }}, 4},
		{faultKind{FaultNotificationInDoubt, func(_ *driver, c coming) bool { return notifies(*c.wk) },
			func(d *driver, c coming) []*zktest.Armed { return d.injectNotificationInDoubt(c.g) }}, 6},
	}
}

// pickFault draws, by weight, one of the faults available now: while
// the run is covering (see Config.Cover), one of the kinds it still
// lacks, if one is available.
func (d *driver) pickFault(c coming) fault {
	open, total := d.openFaults(c, d.covering())
	if total == 0 {
		open, total = d.openFaults(c, false)
	}
	names := make([]string, len(open))
	for i, f := range open {
		names[i] = f.name()
	}
	d.traceEnv("open " + strings.Join(names, ","))
	n := d.rng.Intn(total)
	for _, f := range open {
		if n < f.weight {
			return f.fault
		}
		n -= f.weight
	}
	return open[0].fault
}

// openFaults returns the faults available now, with their total weight;
// only the kinds of Config.Cover not injected yet when lacking is set.
func (d *driver) openFaults(c coming, lacking bool) ([]weightedFault, int) {
	missing := d.uncovered()
	var open []weightedFault
	total := 0
	for _, f := range d.faultKinds {
		if lacking && !slices.Contains(missing, f.name()) {
			continue
		}
		if f.available(d, c) {
			open = append(open, f)
			total += f.weight
		}
	}
	return open, total
}

// covering reports whether the run is past its Ops, within twice as many,
// and still lacks a kind of Config.Cover.
func (d *driver) covering() bool {
	calls := int(d.calls.Load())
	return calls >= d.cfg.Ops && calls < 2*d.cfg.Ops && len(d.uncovered()) > 0
}

// uncovered returns the kinds of Config.Cover not injected yet, or not
// in each of their variants.
func (d *driver) uncovered() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var missing []string
	for _, kind := range d.cfg.Cover {
		if d.faults[kind] == 0 || slices.Contains(d.variants[kind], false) {
			missing = append(missing, kind)
		}
	}
	return missing
}

// variant draws which of n variants of a fault of kind to inject: one the
// run has not held yet while there is one, so that a run covering kind
// holds each (uncovered), else any. The fault reports the variant held
// once it acted (heldVariant).
func (d *driver) variant(kind string, n int) int {
	d.mu.Lock()
	held := d.variants[kind]
	if held == nil {
		held = make([]bool, n)
		d.variants[kind] = held
	}
	var open []int
	for v, ok := range held {
		if !ok {
			open = append(open, v)
		}
	}
	d.mu.Unlock()
	if len(open) == 0 {
		return d.rng.Intn(n)
	}
	return open[d.rng.Intn(len(open))]
}

// heldVariant records that variant v of a fault of kind acted.
func (d *driver) heldVariant(kind string, v int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.variants[kind][v] = true
}

// disruptions are the faults that take a member away (killed, or cut
// from the others): one at a time, KillGap apart, taking turns.
var disruptions = []string{FaultKillMember, FaultKillClientMember, FaultIsolateLeader, FaultClientMinority}

// canDisrupt reports whether a disruption of kind can start now: no
// member is down or cut, the last restart or healing is KillGap behind,
// and no other disruption happened fewer times (they are rare: they take
// turns, one that could not act, say for want of a follower, going
// first).
func (d *driver) canDisrupt(kind string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down != nil || d.quiet || time.Since(d.lastUp) < d.cfg.KillGap {
		return false
	}
	for _, other := range disruptions {
		if d.faults[other] < d.faults[kind] {
			return false
		}
	}
	return true
}

// netFaultActions maps the fault kinds that act on one request or reply
// to the dialer's actions; netFaultKinds maps them back.
var (
	netFaultActions = map[string]zktest.Action{
		FaultDropReply:   zktest.DropReply,
		FaultDropRequest: zktest.DropRequest,
		FaultCutRequest:  zktest.CutRequest,
	}
	netFaultKinds = map[zktest.Action]string{
		zktest.DropReply:   FaultDropReply,
		zktest.DropRequest: FaultDropRequest,
		zktest.CutRequest:  FaultCutRequest,
	}
)

// inject sets up one fault, drawn among those available, around the
// coming call of g, which makes wk (adding ops the fault needs) and writes
// s. It returns the faults armed on g's dialer.
func (d *driver) inject(g *generation, wk *work, s migrationzk.State) []*zktest.Armed {
	c := coming{g: g, wk: wk, s: s}
	f := d.pickFault(c)
	d.traceEvent("fault " + f.name())
	return f.inject(d, c)
}

// callWrite matches the coming call's write: every transaction holds
// /migration.
func (d *driver) callWrite() zktest.Fault {
	return zktest.Fault{Op: zktest.OpMulti, Path: d.p("/migration")}
}

// arm arms f on g's dialer; when it fires, it is counted by its action's
// kind before f's own Then runs.
func (d *driver) arm(g *generation, f zktest.Fault) *zktest.Armed {
	kind := netFaultKinds[f.Action]
	then := f.Then
	f.Then = func() {
		d.count(kind)
		if then != nil {
			then()
		}
	}
	return g.faults.Arm(f)
}

// randomNetAction picks a reply dropped, a request dropped or a request
// cut.
func (d *driver) randomNetAction() zktest.Action {
	return []zktest.Action{zktest.DropReply, zktest.DropRequest, zktest.CutRequest}[d.rng.Intn(3)]
}

// randomDrop picks a reply dropped or a request dropped.
func (d *driver) randomDrop() zktest.Action {
	return []zktest.Action{zktest.DropReply, zktest.DropRequest}[d.rng.Intn(2)]
}

// injectNetFault arms action (drop the reply, drop the request or cut the
// connection mid-request) on the call's transaction, and now and then a
// second network fault on what follows it about /migration.
func (d *driver) injectNetFault(g *generation, wk work, action zktest.Action) []*zktest.Armed {
	f := d.callWrite()
	f.Action = action
	if d.rng.Float64() < 0.2 && len(wk.ops) > 0 {
		// Aim at a payload path instead; the same transaction.
		f.Path = d.p(wk.ops[d.rng.Intn(len(wk.ops))].Path())
	}
	armed := []*zktest.Armed{d.arm(g, f)}
	if d.rng.Float64() < 0.3 {
		// A second fault on whatever comes next about /migration: the
		// resend, or the sync and read that settle it.
		armed = append(armed, d.arm(g, zktest.Fault{Action: d.randomNetAction(), Op: zktest.OpAny, Path: d.p("/migration")}))
	}
	return armed
}

// injectDeadlineInDoubt leaves the call's transaction in doubt
// (armInDoubt).
func (d *driver) injectDeadlineInDoubt(g *generation) []*zktest.Armed {
	return d.armInDoubt(g, func() { d.count(FaultDeadlineInDoubt) })
}

// injectReloadInDoubt leaves a delta in doubt (armInDoubt), and makes the
// driver reload its State rather than retry the call (reloadAfterDoubt).
func (d *driver) injectReloadInDoubt(g *generation, wk work) []*zktest.Armed {
	if wk.delta == nil {
		return nil
	}
	d.reloadInDoubt = true
	return d.armInDoubt(g, nil)
}

// armInDoubt drops the reply of the call's transaction, its copy landed,
// and ends the call's context when the sync of the reread that would
// settle the resend's refusal reaches the server (its request dropped),
// running then first if set. The fault on the reread is armed once the
// reply is dropped, so that the sync of a call that reads before it
// writes passes.
func (d *driver) armInDoubt(g *generation, then func()) []*zktest.Armed {
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = func() {
		call := d.calls.Load()
		reread := d.arm(g, zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSync, Path: d.p("/migration"), Then: func() {
			if then != nil {
				then()
			}
			// The reread of the very call whose reply was dropped.
			d.rereadCut.Store(d.calls.Load() == call)
			d.cancelCall()
		}})
		d.mu.Lock()
		d.lateArmed = append(d.lateArmed, reread)
		d.mu.Unlock()
	}
	return []*zktest.Armed{d.arm(g, f)}
}

// notifies reports whether wk is a batch of changes with notifications.
func notifies(wk work) bool {
	return slices.ContainsFunc(wk.vocab, func(ch vocabChange) bool { return ch.notification != "" })
}

// injectNotificationInDoubt drops the reply of the call's transaction (a
// batch of changes with notifications), its copy landed; it is counted if
// the batch wrote one (countNotificationInDoubt).
func (d *driver) injectNotificationInDoubt(g *generation) []*zktest.Armed {
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = func() { d.notificationDropped.Store(true) }
	return []*zktest.Armed{d.arm(g, f)}
}

// countNotificationInDoubt counts a FaultNotificationInDoubt once the
// batch whose reply it dropped reports a notification written: a batch
// whose changes ZooKeeper held already writes none.
func (d *driver) countNotificationInDoubt(res []migrationzk.OpResult) {
	wrote := slices.ContainsFunc(res, func(r migrationzk.OpResult) bool { return r.Op.Sequential() && r.Err == nil })
	if wrote && d.notificationDropped.CompareAndSwap(true, false) {
		d.count(FaultNotificationInDoubt)
	}
}

// injectKillMember kills a random member, unless one is down already, at
// once or a few milliseconds into the call, and restarts it soon after.
func (d *driver) injectKillMember() []*zktest.Armed {
	m := d.e.Members[d.rng.Intn(len(d.e.Members))]
	if !d.reserveDown(m) {
		return nil
	}
	delay := time.Duration(d.rng.Intn(15)) * time.Millisecond
	down := time.Duration(100+d.rng.Intn(700)) * time.Millisecond
	if d.rng.Float64() < 0.5 {
		d.killAndRestart(m, FaultKillMember, down)
	} else {
		go func() {
			time.Sleep(delay)
			d.killAndRestart(m, FaultKillMember, down)
		}()
	}
	return nil
}

// injectKillClientMember kills the member g's client is connected to,
// unless one is down already, at once or when the call's transaction
// reaches it or its reply comes back (then dropped), and restarts it soon
// after.
func (d *driver) injectKillClientMember(g *generation) []*zktest.Armed {
	down := time.Duration(100+d.rng.Intn(700)) * time.Millisecond
	kill := func() {
		m := d.e.Member(g.conn.Server())
		if m != nil && d.reserveDown(m) {
			d.killAndRestart(m, FaultKillClientMember, down)
		}
	}
	if d.rng.Float64() < 0.4 {
		kill()
		return nil
	}
	f := d.callWrite()
	f.Action = d.randomDrop()
	f.Then = kill
	return []*zktest.Armed{d.arm(g, f)}
}

// injectExpireSession expires g's session from another connection, at once
// or when the reply to the call's transaction comes back (then dropped).
func (d *driver) injectExpireSession(g *generation) []*zktest.Armed {
	if d.rng.Float64() < 0.4 {
		d.expireSession(g)
		return nil
	}
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = func() { d.expireSession(g) }
	return []*zktest.Armed{d.arm(g, f)}
}

// expireSession closes g's session from a new connection to a running
// member, as the server does to a session that timed out.
func (d *driver) expireSession(g *generation) {
	id, pw := g.faults.Session()
	addr := d.runningMember()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := zktest.ExpireSession(ctx, addr, id, pw); err != nil {
		d.anomaly(CheckHarness, "harness: expire session %x: %v", id, err)
		return
	}
	d.count(FaultExpireSession)
}

// injectRival connects a rival controller, unless one is already waiting
// to take over, that claims leadership a few milliseconds into the call,
// or when the call's transaction reaches the server or its reply comes
// back (then dropped), or once the call is over if it never sent it. With
// claimKind set, a fault of that kind disturbs the rival's claim.
func (d *driver) injectRival(g *generation, claimKind string) []*zktest.Armed {
	if d.rival != nil {
		return nil
	}
	rollbackSafe := claimKind == FaultClaimTwin || d.rng.Float64() < rollbackSafeShare
	race := 0
	if claimKind == FaultClaimRace {
		race = d.variant(FaultClaimRace, claimRaces)
		_, rollbackSafe = claimRace(race)
	}
	rival := d.spawn(rollbackSafe)
	d.rival = rival
	if d.rng.Float64() < sameIDShare {
		// The same controller, restarted with a higher KRaft epoch.
		rival.id = g.id
	}
	switch {
	case claimKind != "":
		d.armClaimFault(rival, d.pickClaimFault(claimKind, rival, race))
	case d.rng.Float64() < 0.3:
		d.armLoserInDoubt(rival, g)
	}
	claim := d.claimOnce(rival, FaultRival)
	if d.rng.Float64() < 0.5 {
		delay := time.Duration(d.rng.Intn(20)) * time.Millisecond
		go func() {
			time.Sleep(delay)
			claim()
		}()
		return nil
	}
	f := d.callWrite()
	f.Action = d.randomDrop()
	f.Then = claim
	// If the call never sent the request (it failed first), claim
	// once the call is over.
	d.afterCall = append(d.afterCall, func() { go claim() })
	return []*zktest.Armed{d.arm(g, f)}
}

// claimOnce returns a function that counts a fault of kind and runs
// rival's claim, the first time it is called.
func (d *driver) claimOnce(rival *generation, kind string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			d.count(kind)
			d.claim(rival)
		})
	}
}

// injectTenureEnds connects a rival controller, unless one is already
// waiting, that claims leadership right after the call's transaction
// committed and before its reply (then dropped) comes back: the call's
// tenure ends while its acknowledgement is lost, and the call must not
// report success.
func (d *driver) injectTenureEnds(g *generation) []*zktest.Armed {
	if d.rival != nil {
		return nil
	}
	rival := d.newGeneration()
	d.rival = rival
	claim := d.claimOnce(rival, FaultTenureEnds)
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = func() {
		d.tenureEnded.Store(true)
		claim()
	}
	d.afterCall = append(d.afterCall, func() { go claim() })
	return []*zktest.Armed{d.arm(g, f)}
}

// injectForeignWrite writes in the way of the call: at once, to a znode
// the call is about to write, or, when the call's transaction reaches the
// server (its reply then dropped), to /migration.
func (d *driver) injectForeignWrite(g *generation, wk work) []*zktest.Armed {
	rng := rand.New(rand.NewSource(d.rng.Int63()))
	if d.rng.Float64() < 0.6 {
		d.foreignWrite(rng, g, wk)
		return nil
	}
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = func() { d.foreignMigration(g) }
	return []*zktest.Armed{d.arm(g, f)}
}

// reserveDown marks m as the member that is down, unless one already is:
// the ensemble keeps its quorum.
func (d *driver) reserveDown(m *zktest.Member) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down != nil || d.quiet || time.Since(d.lastUp) < d.cfg.KillGap {
		return false
	}
	d.down = m
	d.restarts.Add(1)
	return true
}

// killAndRestart kills m (SIGKILL) and restarts it after down in the
// background.
func (d *driver) killAndRestart(m *zktest.Member, kind string, down time.Duration) {
	if err := m.Kill(); err != nil {
		d.anomaly(CheckHarness, "harness: kill member %d: %v", m.ID, err)
	}
	d.count(kind)
	go func() {
		defer d.restarts.Done()
		time.Sleep(down)
		if err := m.Restart(); err != nil {
			d.anomaly(CheckHarness, "harness: restart member %d: %v", m.ID, err)
		}
		d.mu.Lock()
		d.down, d.lastUp = nil, time.Now()
		d.mu.Unlock()
	}()
}

// runningMember returns the address of a member that is not down.
func (d *driver) runningMember() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.e.Members {
		if m != d.down {
			return m.Addr
		}
	}
	return d.e.Servers[0]
}
