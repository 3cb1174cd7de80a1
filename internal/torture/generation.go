package torture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/must"
	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// generation is one KRaft controller: a writer with its own connection.
type generation struct {
	n     int // 0 for the first; client n+1 in the history
	id    int32
	epoch int32
	// rollbackSafe says its writer claims with WithRollbackSafeEpochs.
	rollbackSafe bool
	faults       *zktest.FaultDialer
	conn         *zk.Conn
	w            *migrationzk.Writer
	// dw is the writer's dual-write Client, made on first use; it
	// remembers what it read and wrote during the tenure.
	dw   *dualwrite.Client
	dwOf *migrationzk.Writer // the Writer dw writes through
	// learnedAt holds when dw learned what it remembers of each path it
	// read or wrote (guarded by mu).
	learnedAt map[string]int64
	// opBasis holds, for the ops of dw's last transaction, when what they
	// are conditioned on was learned (guarded by mu).
	opBasis map[string]int64
	// lastOps are the paths of the ops of dw's last transaction.
	lastOps []string
	// readAllAt is when dw's last Sync returned: its Read learned every
	// partition state (guarded by mu).
	readAllAt int64
	// mem models what dw may rest on; dwCalls are the calls of g's
	// dual-write Clients, any Writer's (guarded by mu).
	mem     *memoryModel
	dwCalls []history.Span
	s       migrationzk.State
	// learned is when the call that returned s returned; since when it
	// started.
	learned, since int64

	lostAcks uint64        // LostAcks of the writers this one replaced
	log      ring          // the writer's last log records
	claimed  chan struct{} // closed once its claim returned
	claimErr error
	claimEnd int64
	// mustBeRefused is set when a fault made the claim one that must fail
	// with ErrFenced; cancel ends the claim call in flight.
	mustBeRefused atomic.Bool
	// loser says the claim must lose to a standing one; afterClaim runs
	// once the claim returned.
	loser      bool
	afterClaim []func()
	// why says what a loser's claim had to lose to, for a report.
	why    string
	mu     sync.Mutex
	cancel context.CancelFunc
}

// cancelClaim ends g's claim call in flight, if any.
func (g *generation) cancelClaim() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancel != nil {
		g.cancel()
	}
}

// claimContext returns the context of one claim call of g.
func (d *driver) claimContext(g *generation) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(d.ctx, callTimeout)
	g.mu.Lock()
	g.cancel = cancel
	g.mu.Unlock()
	return ctx, cancel
}

// client is g's client number in the history; the admin session is 0.
func (g *generation) client() int { return g.n + 1 }

// initial is the State a generation starts from.
func (g *generation) initial() migrationzk.State {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	return s
}

// rollbackSafeShare is the share of generations whose writer claims with
// rollback-safe epochs.
const rollbackSafeShare = 0.5

// newGeneration connects a new KRaft controller, each one with a higher
// epoch than the last, whose writer claims with rollback-safe epochs or
// not, a seeded choice.
func (d *driver) newGeneration() *generation {
	return d.spawn(d.rng.Float64() < rollbackSafeShare)
}

// spawn connects a new KRaft controller with a KRaft epoch 1 to
// maxKRaftEpochGap above the last one's, its writer claiming with
// rollback-safe epochs when rollbackSafe.
func (d *driver) spawn(rollbackSafe bool) *generation {
	epoch := int32(baseKRaftEpoch)
	if len(d.gens) > 0 {
		highest := int32(0)
		for _, g := range d.gens {
			highest = max(highest, g.epoch)
		}
		epoch = highest + 1 + int32(d.rng.Intn(maxKRaftEpochGap))
	}
	return d.spawnAs(baseControllerID+int32(len(d.gens)), epoch, rollbackSafe)
}

// spawnAs connects a new KRaft controller with id and KRaft epoch, its
// writer claiming with rollback-safe epochs when rollbackSafe.
func (d *driver) spawnAs(id, epoch int32, rollbackSafe bool) *generation {
	n := len(d.gens)
	g := &generation{n: n, id: id, epoch: epoch, rollbackSafe: rollbackSafe,
		faults: zktest.NewFaultDialer(d.t), claimed: make(chan struct{})}
	servers := append([]string(nil), d.e.Servers...)
	d.rng.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
	g.conn = zktest.Connect(d.t, servers, g.faults.Option())
	g.log = newRing(20)
	g.w = g.newWriter()
	d.gens = append(d.gens, g)
	return g
}

// newWriter returns a writer for g on g's connection.
func (g *generation) newWriter() *migrationzk.Writer {
	opts := []migrationzk.Option{migrationzk.WithRoot(root), migrationzk.WithLogger(slog.New(g.log))}
	if g.rollbackSafe {
		opts = append(opts, migrationzk.WithRollbackSafeEpochs())
	}
	return must.Get(migrationzk.New(g.conn, opts...))
}

// claimedEpoch is the value g's claim writes over /controller_epoch
// holding value: value+1, as Kafka does, or with rollback-safe epochs at
// least g's KRaft epoch.
func (g *generation) claimedEpoch(value int32) int32 {
	if g.rollbackSafe && g.epoch > value+1 {
		return g.epoch
	}
	return value + 1
}

// mend does what the documentation of ErrStaleSession asks of a caller
// whose client is stuck on a session the server expired: close the client,
// connect again and make a new Writer for the same controller.
func (d *driver) mend(g *generation, err error) {
	if !errors.Is(err, migrationzk.ErrStaleSession) {
		return
	}
	d.reconnects++
	g.lostAcks += g.w.Stats().LostAcks
	g.conn.Close()
	g.conn = zktest.Connect(d.t, d.e.Servers, g.faults.Option())
	g.w = g.newWriter()
}

// claim runs g's leadership claim, again with the same arguments while its
// outcome is unknown, records it and judges it.
func (d *driver) claim(g *generation) {
	defer close(g.claimed)
	base, value, ok := d.readEpoch()
	if !ok {
		g.claimErr = errors.New("torture: /controller_epoch unreadable before the claim")
		return
	}
	var s migrationzk.State
	rc, err := d.rec.Wrap(g.client(), 0, fmt.Sprintf("claim by %d epoch %d", g.id, g.epoch), func() (err error) {
		for attempt := 1; attempt <= maxAttempts; attempt++ {
			ctx, cancel := d.claimContext(g)
			s, err = g.w.ClaimLeadership(ctx, g.initial())
			cancel()
			if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
				break
			}
			d.unknown.Add(1)
		}
		return err
	})
	g.claimEnd, g.claimErr = rc.Return, err
	d.recordClaim(g, base, value, s, err, rc)
	if err == nil && g.rollbackSafe && s.ZkControllerEpoch > value+1 {
		d.jumps.Add(1)
	}
	if err == nil && s.ZkControllerEpochZkVersion > base && s.ZkControllerEpoch <= value {
		d.anomaly(CheckClaim, "claim by %d epoch %d left /controller_epoch at %d, not above the %d it found", g.id, g.epoch, s.ZkControllerEpoch, value)
	}
	d.judgeClaim(g, s, err)
	for _, f := range g.afterClaim {
		f()
	}
}

// readEpoch reads /controller_epoch through the admin session: its version
// and value.
func (d *driver) readEpoch() (int32, int32, bool) {
	cur, ok := d.adminRead(d.p("/controller_epoch"), history.SlotEpoch, history.MigrationGroup)
	if !ok || !cur.Exists {
		return 0, 0, false
	}
	value, err := znode.DecodeControllerEpoch([]byte(cur.Data))
	return cur.Version, value, err == nil
}

// recordClaim records g's claim, which found /controller_epoch holding
// read at version base: its first copy may have raised it from there (to
// value+1, or with rollback-safe epochs to at least g's KRaft epoch), and
// the claim, when it succeeded, raised it to what s says.
func (d *driver) recordClaim(g *generation, base, read int32, s migrationzk.State, err error, rc history.Record) {
	first := rc
	if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		first = rc.InDoubt()
	}
	d.h.Add(history.MigrationGroup, first.Op(history.Step{Kind: history.StepMaybe,
		Conds:   []history.Cond{{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: base}},
		Effects: []history.Effect{{Slot: history.SlotEpoch, Data: string(znode.EncodeControllerEpoch(g.claimedEpoch(read))), Version: -1}},
		Desc:    rc.Desc + " from its first read (" + short(err) + ")"}))
	if err != nil {
		return
	}
	d.h.AddClaim(history.ClaimRecord{Client: g.client(), Who: history.Identity{ID: g.id, Epoch: g.epoch}, RollbackSafe: g.rollbackSafe,
		Version: s.ZkControllerEpochZkVersion, Value: s.ZkControllerEpoch, At: rc.Span})
	if s.ZkControllerEpochZkVersion <= base {
		// A standing claim resumed: nothing written, /controller_epoch
		// seen as it was.
		d.h.Add(history.MigrationGroup, rc.Op(history.Step{Kind: history.StepRead, Obs: []history.Obs{{Slot: history.SlotEpoch,
			Val: history.Value{Exists: true, Version: s.ZkControllerEpochZkVersion, Data: string(znode.EncodeControllerEpoch(s.ZkControllerEpoch))}}},
			Desc: rc.Desc + " resumed"}))
		return
	}
	d.h.Add(history.MigrationGroup, rc.Op(history.Step{Kind: history.StepWrite,
		Conds:   []history.Cond{{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: s.ZkControllerEpochZkVersion - 1}},
		Effects: []history.Effect{{Slot: history.SlotEpoch, Data: string(znode.EncodeControllerEpoch(s.ZkControllerEpoch)), Version: s.ZkControllerEpochZkVersion}}}))
	d.h.AddSuccess(rc.Success(d.p("/controller_epoch"), s.ZkControllerEpochZkVersion, -1))
}

// judgeClaim checks the outcome of g's claim against what its faults
// allow: refused with ErrFenced when a fault made it so, else claimed.
func (d *driver) judgeClaim(g *generation, s migrationzk.State, err error) {
	if d.judgeLoser(g, s, err) {
		return
	}
	switch {
	case err == nil && g.mustBeRefused.Load():
		d.anomaly(CheckFenceAdopted, "claim by %d epoch %d succeeded (/controller_epoch %d at version %d) although another party took /controller_epoch or /controller first",
			g.id, g.epoch, s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
	case err == nil:
		g.s = s
		d.checkController(g)
		d.checkRollbackSafe(g, s)
	case g.mustBeRefused.Load() && errors.Is(err, migrationzk.ErrFenced):
	default:
		d.anomaly(CheckClaim, "controller %d epoch %d: ClaimLeadership: %v", g.id, g.epoch, err)
	}
}

// checkController reads /controller after g's claim returned: it must name
// g, unless a newer controller already claimed (rivals claim one at a
// time, so none can).
func (d *driver) checkController(g *generation) {
	_, datas, _, err := d.adminGet(d.p("/controller"))
	if err != nil {
		return
	}
	data := datas[0]
	c, derr := znode.DecodeController(data)
	if derr != nil || c.BrokerID != g.id || c.KRaftControllerEpoch != g.epoch {
		d.anomaly(CheckClaim, "after claim by %d epoch %d, /controller holds %s (%v)", g.id, g.epoch, data, derr)
	}
}

// checkRollbackSafe checks a claim of g with rollback-safe epochs: the
// epoch it reports and the one ZooKeeper holds now (only raised since:
// rivals claim one at a time, and others only raise it) are at least g's
// KRaft epoch, so no partition state g stamps is above /controller_epoch.
func (d *driver) checkRollbackSafe(g *generation, s migrationzk.State) {
	if !g.rollbackSafe {
		return
	}
	_, value, ok := d.readEpoch()
	if !ok {
		return
	}
	if s.ZkControllerEpoch < g.epoch || value < g.epoch {
		d.anomaly(CheckRollbackSafe, "claim by %d epoch %d with rollback-safe epochs reported /controller_epoch %d; ZooKeeper holds %d",
			g.id, g.epoch, s.ZkControllerEpoch, value)
	}
}

// rollbackSafeWriters counts the generations whose writer claims with
// rollback-safe epochs.
func (d *driver) rollbackSafeWriters() int {
	n := 0
	for _, g := range d.gens {
		if g.rollbackSafe {
			n++
		}
	}
	return n
}

// takeOver handles a fenced writer: it must be retired and silent, and the
// rival that fenced it takes over the workload.
func (d *driver) takeOver(old *generation, s migrationzk.State) bool {
	rival := d.rival
	if rival == nil {
		d.anomaly(CheckHarness, "controller %d fenced with no rival", old.id)
		return false
	}
	<-rival.claimed
	for rival.claimErr != nil {
		if !rival.mustBeRefused.Load() {
			return false // judged already
		}
		// Refused as it had to be: another controller takes over.
		rival = d.newGeneration()
		d.calls.Add(1)
		d.claim(rival)
	}
	d.loserAfterClaim(rival)
	d.fenced++
	d.checkFenced(old, s)
	d.checkForgotten(old)
	old.conn.Close()
	d.rival = nil
	d.cur = rival
	return d.getOrCreate(rival)
}

// checkFenced checks old, fenced: its calls with s must fail with
// ErrRetired without sending anything. (That none of its writes was
// accepted after its tenure ended is checked over the whole history.)
func (d *driver) checkFenced(old *generation, s migrationzk.State) {
	before := old.faults.Requests()
	ctx, cancel := context.WithTimeout(d.ctx, callTimeout)
	defer cancel()
	if _, err := old.w.Update(ctx, s); !errors.Is(err, migrationzk.ErrRetired) {
		d.anomaly(CheckRetired, "controller %d: Update after being fenced: %v, want ErrRetired", old.id, err)
	}
	if _, _, err := old.w.Apply(ctx, s, migrationzk.Create("/brokers/topics/after-fence", nil)); !errors.Is(err, migrationzk.ErrRetired) {
		d.anomaly(CheckRetired, "controller %d: Apply after being fenced: %v, want ErrRetired", old.id, err)
	}
	if retired, _ := old.w.Retired(); !retired {
		d.anomaly(CheckRetired, "controller %d: fenced but not retired", old.id)
	}
	if after := old.faults.Requests(); after != before {
		d.anomaly(CheckRetired, "controller %d: sent %d requests after being fenced", old.id, after-before)
	}
}
