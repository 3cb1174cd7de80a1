package torture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// generation is one KRaft controller: a Writer with its own connection,
// and its dual-write Client, as the run records them. Each of its calls
// stamps its own times and appends its own operations to the history
// (writer.go, dualwrite.go), and is checked against what ZooKeeper holds
// right after.
type generation struct {
	r     *recording
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
	why string
	// doubtAt is when a call of g last ended with its outcome unknown.
	doubtAt atomic.Int64
	mu      sync.Mutex
	cancel  context.CancelFunc
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
func (g *generation) claimContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(g.r.ctx, callTimeout)
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

// inDoubt counts a call of g that ended with its outcome unknown.
func (g *generation) inDoubt() {
	g.r.stats.unknown.Add(1)
	g.doubtAt.Store(g.r.h.Now())
}

// mend does what the documentation of ErrStaleSession asks of a caller
// whose client is stuck on a session the server expired: close the client,
// connect again and make a new Writer for the same controller.
func (g *generation) mend(err error) {
	if !errors.Is(err, migrationzk.ErrStaleSession) {
		return
	}
	g.r.stats.reconnects.Add(1)
	g.lostAcks += g.w.Stats().LostAcks
	g.conn.Close()
	g.conn = zktest.Connect(g.r.t, g.r.e.Servers, g.faults.Option())
	g.w = g.newWriter()
}

// claim runs g's leadership claim, again with the same arguments while
// its outcome is unknown, records it and judges it.
func (g *generation) claim() {
	defer close(g.claimed)
	r := g.r
	base, value, ok := r.admin.epoch()
	if !ok {
		g.claimErr = errors.New("torture: /controller_epoch unreadable before the claim")
		return
	}
	var s migrationzk.State
	dials := g.faults.Dials()
	rc, err := r.rec.Wrap(g.client(), 0, fmt.Sprintf("claim by %d epoch %d", g.id, g.epoch), func() (err error) {
		for attempt := 1; attempt <= maxAttempts; attempt++ {
			ctx, cancel := g.claimContext()
			s, err = g.w.ClaimLeadership(ctx, g.initial())
			cancel()
			if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
				break
			}
			g.inDoubt()
		}
		return err
	})
	g.claimEnd, g.claimErr = rc.Return, err
	c := writerCall{g: g, Record: rc, dials: dials}
	c.claimed(base, value, s, err)
	c.recovered(err == nil && s.Recovered)
	if err == nil && g.rollbackSafe && s.ZkControllerEpoch > value+1 {
		r.stats.jumps.Add(1)
	}
	if err == nil && s.ZkControllerEpochZkVersion > base && s.ZkControllerEpoch <= value {
		r.log.add(CheckClaim, "claim by %d epoch %d left /controller_epoch at %d, not above the %d it found", g.id, g.epoch, s.ZkControllerEpoch, value)
	}
	g.judgeClaim(s, err)
	for _, f := range g.afterClaim {
		f()
	}
}

// judgeClaim checks the outcome of g's claim against what its faults
// allow: refused with ErrFenced when a fault made it so, else claimed.
func (g *generation) judgeClaim(s migrationzk.State, err error) {
	if g.judgeLoser(s, err) {
		return
	}
	switch {
	case err == nil && g.mustBeRefused.Load():
		g.r.log.add(CheckFenceAdopted, "claim by %d epoch %d succeeded (/controller_epoch %d at version %d) although another party took /controller_epoch or /controller first",
			g.id, g.epoch, s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
	case err == nil:
		g.s = s
		g.checkController()
		g.checkRollbackSafe(s)
	case g.mustBeRefused.Load() && errors.Is(err, migrationzk.ErrFenced):
	default:
		g.r.log.add(CheckClaim, "controller %d epoch %d: ClaimLeadership: %v", g.id, g.epoch, err)
	}
}

// judgeLoser checks the claim of a controller that had to lose: refused
// with ErrFenced. It reports whether g is a loser.
func (g *generation) judgeLoser(s migrationzk.State, err error) bool {
	if !g.loser {
		return false
	}
	if !errors.Is(err, migrationzk.ErrFenced) {
		g.r.log.add(CheckClaim, "controller %d epoch %d had to lose to %s: %v (/controller_epoch %d at version %d)",
			g.id, g.epoch, g.why, err, s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
	}
	return true
}

// checkController reads /controller after g's claim returned: it must name
// g, unless a newer controller already claimed (rivals claim one at a
// time, so none can).
func (g *generation) checkController() {
	data, ok := g.r.admin.controller()
	if !ok {
		return
	}
	c, err := znode.DecodeController(data)
	if err != nil || c.BrokerID != g.id || c.KRaftControllerEpoch != g.epoch {
		g.r.log.add(CheckClaim, "after claim by %d epoch %d, /controller holds %s (%v)", g.id, g.epoch, data, err)
	}
}

// checkRollbackSafe checks a claim of g with rollback-safe epochs: the
// epoch it reports and the one ZooKeeper holds now (only raised since:
// rivals claim one at a time, and others only raise it) are at least g's
// KRaft epoch, so no partition state g stamps is above /controller_epoch.
func (g *generation) checkRollbackSafe(s migrationzk.State) {
	if !g.rollbackSafe {
		return
	}
	_, value, ok := g.r.admin.epoch()
	if !ok {
		return
	}
	if s.ZkControllerEpoch < g.epoch || value < g.epoch {
		g.r.log.add(CheckRollbackSafe, "claim by %d epoch %d with rollback-safe epochs reported /controller_epoch %d; ZooKeeper holds %d",
			g.id, g.epoch, s.ZkControllerEpoch, value)
	}
}

// checkRetired checks g, fenced: its calls with s must fail with
// ErrRetired without sending anything, and its dual-write Client must
// remember nothing. (That none of its writes was accepted after its
// tenure ended is checked over the whole history.)
func (g *generation) checkRetired(s migrationzk.State) {
	log := g.r.log
	before := g.faults.Requests()
	ctx, cancel := context.WithTimeout(g.r.ctx, callTimeout)
	defer cancel()
	if _, err := g.w.Update(ctx, s); !errors.Is(err, migrationzk.ErrRetired) {
		log.add(CheckRetired, "controller %d: Update after being fenced: %v, want ErrRetired", g.id, err)
	}
	if _, _, err := g.w.Apply(ctx, s, migrationzk.Create("/brokers/topics/after-fence", nil)); !errors.Is(err, migrationzk.ErrRetired) {
		log.add(CheckRetired, "controller %d: Apply after being fenced: %v, want ErrRetired", g.id, err)
	}
	if retired, _ := g.w.Retired(); !retired {
		log.add(CheckRetired, "controller %d: fenced but not retired", g.id)
	}
	if after := g.faults.Requests(); after != before {
		log.add(CheckRetired, "controller %d: sent %d requests after being fenced", g.id, after-before)
	}
	g.checkForgotten()
}
