// Package torture drives migration writers through a realistic migration
// against a three-member ZooKeeper ensemble while injecting the faults a
// production ensemble sees, records every call, and checks the history:
// linearizability of /migration and of every payload znode, versions
// against what ZooKeeper holds, conflicts against the test's own
// conflicting writes, fencing, that no writer gets stuck, and the
// invariants of every history (package history, invented.go).
//
// The driver is split by concern: package history holds the model, the
// record of the calls, stamped by its Recorder, and the checks of the
// whole record; faults sit behind a small interface (faults.go), and the
// workload chooses the calls on its own (workload.go).
//
// It is a test helper for this module only.
package torture

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Config sizes a run.
type Config struct {
	// Seed drives every random choice of the workload and the faults.
	Seed int64
	// Ops is the least number of library calls to make.
	Ops int
	// MinFaults is the least number of faults to inject; the run goes on
	// past Ops until it has.
	MinFaults int
	// Cover lists fault kinds the run must hold: past Ops, for as many
	// calls again at most, it goes on injecting only the kinds of Cover
	// not injected yet, so that a short run holds every rare kind
	// whatever its seed. The calls before Ops are as without it.
	Cover []string
	// FaultRate is the chance that a fault is injected around a call.
	FaultRate float64
	// KillGap is the least time between a member's restart and the next
	// kill; a restarting JVM takes most of a small machine. Zero means 3s.
	KillGap time.Duration
	// CheckTimeout bounds the linearizability check of each stretch of
	// history.
	CheckTimeout time.Duration
	// StopAtFirstAnomaly ends the workload at the first anomaly a check
	// finds while it runs (the mutation check wants a verdict, not a
	// list); the checks of the whole history still run.
	StopAtFirstAnomaly bool
	// Progress, if set, is called now and then with a status line.
	Progress func(string)
	// tamper, if set, is called once the workload ended and before the
	// final checks: the tests of the checks inject violations with it.
	tamper func(*driver)
	// trace, if set, is told each call's kind and each fault's kind as
	// the run draws them, and what the run met that decides what it draws
	// (marked "~ "); each step then draws from the seed and its own
	// number, so that two runs whose timing parted at a step draw alike
	// again from the next (the sequence test compares them across
	// versions of the suite).
	trace func(event string)
}

// Fault kinds, as counted in Report.Faults.
const (
	FaultDropReply        = "drop-reply"         // reply dropped after commit
	FaultDropRequest      = "drop-request"       // request dropped before the server
	FaultCutRequest       = "cut-request"        // connection cut mid-frame
	FaultKillMember       = "kill-member"        // a random member killed (SIGKILL) and restarted
	FaultKillClientMember = "kill-client-member" // the member the writer uses killed and restarted
	FaultExpireSession    = "expire-session"     // the writer's session closed from another connection
	FaultRival            = "rival"              // a rival controller claims leadership
	FaultForeignWrite     = "foreign-write"      // a conflicting write to /migration or a payload znode
	FaultCallerDeadline   = "caller-deadline"    // the caller's context ends mid-call
	// FaultABAWrite: right after a write of ours committed, before its
	// reply, another party writes our exact bytes to /migration or to a
	// payload znode of the batch, so the version moves by two with content
	// equal to ours.
	FaultABAWrite = "aba-write"
	// FaultForeignDelta: before a delta through the remembering
	// dual-write Client, another party changes, deletes, or deletes and
	// recreates (with the same bytes, back at the same version: an ABA)
	// a partition state the delta changes.
	FaultForeignDelta = "foreign-delta"
	// FaultTenureEnds: right after a checkpoint or batch of ours committed,
	// before its reply, a rival controller claims leadership: our tenure
	// ends during a lost acknowledgement.
	FaultTenureEnds = "tenure-ends"
	// FaultRecreate: while a batch's outcome is in doubt (its reply lost,
	// and the call then stopped, or not), another party deletes a znode it
	// created and creates it again with the same bytes, rewrites it with
	// the same bytes, or creates again one it deleted.
	FaultRecreate = "recreate-in-doubt"
	// FaultClaimRace: a rival's claim is raced by another claim with the
	// same KRaft epoch and another controller id (refused), or the same
	// controller id with a lower KRaft epoch (claimed over).
	FaultClaimRace = "claim-race"
	// FaultBrokerWins: a ZooKeeper-mode broker wins /controller between a
	// rival's claim and its resend.
	FaultBrokerWins = "broker-wins"
	// FaultClaimTenureEnds: right after a rival's claim committed, before
	// its reply, another party raises /controller_epoch (or rewrites the
	// same value): the claim's tenure ends during its lost acknowledgement.
	FaultClaimTenureEnds = "claim-tenure-ends"
	// FaultClaimTwin: while a rival's claim with rollback-safe epochs is in
	// doubt (its request dropped) and would jump /controller_epoch, the
	// same controller and KRaft epoch claims by Kafka's rule (current+1):
	// /controller names the rival exactly, /controller_epoch does not hold
	// what it wrote.
	FaultClaimTwin = "claim-twin"
	// FaultDeadlineInDoubt: a write's reply is lost, and the caller's
	// context ends when the reread that would settle it reaches the server
	// (its request dropped): the call stops with a copy in doubt.
	FaultDeadlineInDoubt = "deadline-in-doubt"
	// FaultReloadInDoubt: a delta's reply is lost and its call stops in
	// doubt, as with FaultDeadlineInDoubt; the controller then reloads
	// its State from /migration instead of retrying, finds the delta
	// landed, and goes on with a delta of the same partitions, which its
	// Client must plan without what the doubtful transaction touched.
	FaultReloadInDoubt = "reload-in-doubt"
	// FaultNotificationInDoubt: the reply of a batch that writes change
	// notifications is lost, its copy landed: the resend is refused, and
	// the writer must find the notifications its copy created instead of
	// writing them again. Counted once the batch reports a notification
	// written.
	FaultNotificationInDoubt = "notification-in-doubt"
	// FaultLoser: a controller whose claim must lose arrives: the holder's
	// controller id or another, with a lower KRaft epoch, or another id
	// with an equal one; before a call, while a batch is in doubt, while a
	// rival's claim is in doubt, or between a rival's claim and its first
	// write. Its claim must be refused with ErrFenced, the holder going on.
	// (Rivals with a higher KRaft epoch, FaultRival, share the holder's
	// controller id sameIDShare of the time.)
	FaultLoser = "rival-loses"
	// FaultResume: a controller with the holder's very identity claims,
	// as a restarted controller would: it must resume the standing claim
	// (told the same /controller_epoch version), or, claiming with
	// rollback-safe epochs over a claim Kafka's rule left below the KRaft
	// epoch, claim again and take over.
	FaultResume = "rival-resumes"
	// FaultImitate: while a transaction is in doubt (its request dropped),
	// another party writes what it would have written, in separate
	// writes: the znodes it creates and then its /migration bytes; or the
	// partition states it sets, at the version it would have produced; or
	// its znodes deleted and created again with its bytes (czxid and
	// version start over).
	FaultImitate = "imitate-in-doubt"
	// FaultIsolateLeader: the ensemble's leader cut from both followers
	// (the links between their quorum and election ports) for a few
	// seconds: the followers elect one of them, the old leader stops
	// serving clients.
	FaultIsolateLeader = "isolate-leader"
	// FaultClientMinority: the follower the writer's session uses cut
	// from the other two, a minority of one still answering reads for a
	// while; a rival claims through the majority, and the writer's own
	// controller, restarted on the same session, claims: it must be
	// refused, not resume from a stale read.
	FaultClientMinority = "client-member-minority"
	// FaultHeal: a partition healed, every member reaching every other.
	FaultHeal = "heal"
	// FaultEpochBoundary: another KRaft controller's claim stands with
	// /controller_epoch exactly one below, equal to or one above the KRaft
	// epoch of a rival claiming with rollback-safe epochs (one below: a
	// standing claim by Kafka's rule one epoch below the KRaft epoch).
	FaultEpochBoundary = "epoch-boundary"
)

// sameIDShare is the share of rivals with a higher KRaft epoch that have
// the holder's controller id.
const sameIDShare = 0.3

// Report holds a run's figures.
type Report struct {
	Seed int64
	// Ops counts library calls; Recorded the operations in the history.
	Ops      int
	Recorded int
	// Faults counts injected faults by kind.
	Faults map[string]int
	// LostAcks is the writers' Stats().LostAcks: acknowledgements lost and
	// recovered by a reread.
	LostAcks uint64
	// Conflicts counts conflicts detected: ErrConflict from a call, and
	// ops refused as *OpError.
	Conflicts int
	// Fenced counts writers fenced by a rival; Generations the writers.
	Fenced      int
	Generations int
	// RollbackSafe counts the writers that claim with rollback-safe
	// epochs; Jumps their claims that raised /controller_epoch by more
	// than one.
	RollbackSafe int
	Jumps        int
	// Unknown counts calls that ended with ErrOutcomeUnknown.
	Unknown int
	// Remembered counts the transactions the dual-write Client planned
	// partly from what it remembered.
	Remembered int
	// Reconnects counts clients replaced after ErrStaleSession.
	Reconnects int
	// FinalWrite is how long the first write after the faults stopped took.
	FinalWrite time.Duration
	// Notifications counts the change notifications calls reported
	// written.
	Notifications int
	// Syncs counts Sync calls; SyncsStopped those that ended in an error
	// (a fault's doing), SyncChanges the changes of those that succeeded.
	Syncs, SyncsStopped, SyncChanges int
	// Anomalies lists everything found wrong; it must be empty.
	Anomalies []Anomaly
	Duration  time.Duration
}

// TotalFaults returns the number of faults injected.
func (r *Report) TotalFaults() int {
	n := 0
	for _, c := range r.Faults {
		n += c
	}
	return n
}

// String formats the figures.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d operations (%d recorded), %d faults", r.Seed, r.Ops, r.Recorded, r.TotalFaults())
	kinds := make([]string, 0, len(r.Faults))
	for k := range r.Faults {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	b.WriteString(" (")
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, r.Faults[k])
	}
	fmt.Fprintf(&b, "), %d syncs (%d stopped, %d changes applied)", r.Syncs, r.SyncsStopped, r.SyncChanges)
	fmt.Fprintf(&b, ", %d notifications, %d lost acks recovered, %d conflicts detected, %d writers (%d fenced, %d rollback-safe making %d jumps), %d outcomes unknown, %d clients replaced after a stale session, first write after the faults %v, %d anomalies, %v",
		r.Notifications, r.LostAcks, r.Conflicts, r.Generations, r.Fenced, r.RollbackSafe, r.Jumps, r.Unknown, r.Reconnects, r.FinalWrite.Round(time.Millisecond), len(r.Anomalies), r.Duration.Round(time.Second))
	return b.String()
}

const (
	root = "/kafka"
	// callTimeout bounds one library call; a call that needs longer is
	// stuck.
	callTimeout = 30 * time.Second
	// maxAttempts bounds how often one call is repeated after
	// ErrOutcomeUnknown before the writer counts as stuck.
	maxAttempts = 4
	// finalWriteTimeout is the time the first write after the faults gets:
	// the writer's backoff tops out at one second, plus a reconnect.
	finalWriteTimeout = 10 * time.Second
	baseControllerID  = 3000
	baseKRaftEpoch    = 5
	// maxKRaftEpochGap bounds how far apart the KRaft epochs of two
	// generations are (KRaft elections can skip epochs): gaps above one
	// leave /controller_epoch behind, so rollback-safe claims jump.
	maxKRaftEpochGap  = 6
	foreignController = 4000
)

// driver runs the workload. Only its goroutine uses rng.
type driver struct {
	t     testing.TB
	cfg   Config
	rng   *rand.Rand
	e     *zktest.Ensemble
	admin *zk.Conn
	h     *history.History
	rec   history.Recorder
	// faultKinds are the faults the driver draws from.
	faultKinds []weightedFault
	ctx        context.Context

	gens   []*generation
	cur    *generation
	rival  *generation
	offset int64

	// workload chooses the calls; the driver makes them.
	*workload
	// notes tallies the change notifications the calls reported.
	notes notificationTally

	calls atomic.Int64 // library calls made
	// callPaths are the payload znodes the call in flight writes,
	// relative to the root.
	callPaths  []string
	quiet      bool // no more faults
	afterCall  []func()
	finalWrite time.Duration
	conflicts  int
	unknown    atomic.Int64
	// remembered counts the transactions the dual-write Client planned
	// partly from what it remembers.
	remembered atomic.Int64
	jumps      atomic.Int64 // rollback-safe claims that raised /controller_epoch by more than one
	reconnects int
	fenced     int
	syncs      syncTally

	// reloadInDoubt makes the driver reload its State after the call in
	// flight ends in doubt, rather than retry it (FaultReloadInDoubt).
	reloadInDoubt bool
	// tenureEnded is set when a fault ended the caller's tenure before
	// the acknowledgement of the call in flight came back.
	tenureEnded atomic.Bool
	// notificationDropped is set when the reply of the call in flight, a
	// batch of changes with notifications, was dropped
	// (FaultNotificationInDoubt).
	notificationDropped atomic.Bool
	// rereadCut is set when the context of the call in flight ended as
	// the reread of its own copy in doubt was sent (armInDoubt).
	rereadCut atomic.Bool
	// callCancel ends the call in flight.
	callMu     sync.Mutex
	callCancel context.CancelFunc

	traced int // steps traced (Config.trace)

	mu     sync.Mutex
	faults map[string]int
	// variants says, for a fault kind with variants, which of them the run
	// held (variant).
	variants  map[string][]bool
	anomalies []Anomaly
	// refusals are the transactions planned from what a dual-write
	// Client remembered that ZooKeeper refused (checkStaleMemory).
	refusals []refusal
	// lateArmed are faults a fault armed as it acted, during the call in
	// flight.
	lateArmed []*zktest.Armed
	down      *zktest.Member // the member down, if any
	lastUp    time.Time      // when the last restart finished
	restarts  sync.WaitGroup
}

// Run starts an ensemble, runs the workload with faults and returns the
// report after checking the history. It fails t only when the test harness
// itself fails; the caller judges Report.Anomalies.
func Run(t testing.TB, cfg Config) *Report {
	if cfg.FaultRate == 0 {
		cfg.FaultRate = 0.12
	}
	if cfg.KillGap == 0 {
		cfg.KillGap = 3 * time.Second
	}
	if cfg.CheckTimeout == 0 {
		cfg.CheckTimeout = time.Minute
	}
	started := time.Now()
	e := zktest.StartEnsemble(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &driver{
		t: t, cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), e: e, h: history.New(root), ctx: ctx,
		faults: map[string]int{}, variants: map[string][]bool{},
		notes: notificationTally{landed: map[string]int{}, maybe: map[string]int{}},
	}
	d.rec, d.faultKinds, d.workload = history.NewRecorder(d.h, d.panicked), faultTable(), newWorkload(d.rng)
	d.admin = e.Connect(t)
	d.setup()
	d.run()
	d.restarts.Wait()
	if cfg.tamper != nil {
		cfg.tamper(d)
	}
	d.finish()

	r := &Report{Seed: cfg.Seed, Ops: int(d.calls.Load()), Recorded: d.h.Size(), Faults: d.faults, Conflicts: d.conflicts, Remembered: int(d.remembered.Load()),
		Fenced: d.fenced, Generations: len(d.gens), Unknown: int(d.unknown.Load()), Reconnects: d.reconnects,
		RollbackSafe: d.rollbackSafeWriters(), Jumps: int(d.jumps.Load()),
		Syncs: d.syncs.calls, SyncsStopped: d.syncs.stopped, SyncChanges: d.syncs.changes}
	for _, g := range d.gens {
		r.LostAcks += g.lostAcks + g.w.Stats().LostAcks
	}
	r.FinalWrite = d.finalWrite
	for _, n := range d.notes.landed {
		r.Notifications += n
	}
	for _, f := range d.h.Check(cfg.CheckTimeout) {
		r.Anomalies = append(r.Anomalies, Anomaly{Check: f.Check, Ops: int(d.calls.Load()), Text: f.Text})
	}
	r.Anomalies = append(d.anomalies, r.Anomalies...)
	r.Duration = time.Since(started)
	return r
}

// anomaly records something check found wrong (the first hundred) and
// logs it.
func (d *driver) anomaly(check, format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := Anomaly{Check: check, Ops: int(d.calls.Load()), Text: fmt.Sprintf(format, args...)}
	if len(d.anomalies) < 100 {
		d.anomalies = append(d.anomalies, a)
	}
	d.t.Logf("anomaly: %v", a)
}

// panicked records a call that panicked, with its stack.
func (d *driver) panicked(p *history.PanicError) {
	rc := p.Call
	d.anomaly(CheckPanic, "client %d: %s at [%d, %d] panicked: %v\n%s", rc.Client, rc.Desc, rc.Call, rc.Return, p.Value, p.Stack)
}

// anomalyCount returns the number of anomalies found so far.
func (d *driver) anomalyCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.anomalies)
}

// stopping reports whether the workload must end early: the context ended,
// or enough anomalies were found.
func (d *driver) stopping() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	limit := 20
	if d.cfg.StopAtFirstAnomaly {
		limit = 1
	}
	return d.ctx.Err() != nil || len(d.anomalies) >= limit
}

// callContext returns the context of the driver's next call, which
// cancelCall ends.
func (d *driver) callContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(d.ctx, timeout)
	d.callMu.Lock()
	d.callCancel = cancel
	d.callMu.Unlock()
	return ctx, cancel
}

// cancelCall ends the driver's call in flight, as its caller would.
func (d *driver) cancelCall() {
	d.callMu.Lock()
	defer d.callMu.Unlock()
	if d.callCancel != nil {
		d.callCancel()
	}
}

// count counts one injected fault of kind.
func (d *driver) count(kind string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults[kind]++
}

// totalFaults returns the number of faults injected so far.
func (d *driver) totalFaults() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.faults {
		n += c
	}
	return n
}

// p returns the full path of path under the cluster's root.
func (d *driver) p(path string) string { return root + path }

// setup lays out the cluster as Kafka leaves it when a migration starts.
func (d *driver) setup() {
	acl := zk.WorldACL(zk.PermAll)
	ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	for _, n := range []struct {
		path string
		data []byte
	}{
		{"", nil}, {"/controller_epoch", znode.EncodeControllerEpoch(1)}, {"/controller", ctl.Encode()},
		{"/brokers", nil}, {"/brokers/topics", nil},
	} {
		if _, err := d.admin.Create(d.p(n.path), n.data, 0, acl); err != nil {
			d.t.Fatalf("torture: setup %s: %v", d.p(n.path), err)
		}
	}
	if _, err := d.admin.Create(barrierPath, nil, 0, acl); err != nil {
		d.t.Fatalf("torture: setup %s: %v", barrierPath, err)
	}
	d.h.SetInit(history.MigrationGroup, history.Slots{{}, {Exists: true, Version: 0, Data: "1"}})
}

// run is the workload: claim, GetOrCreate, then batches and checkpoints,
// with faults, until enough calls and faults were made.
func (d *driver) run() {
	d.cur = d.newGeneration()
	d.calls.Add(1)
	d.claim(d.cur)
	if d.cur.claimErr != nil {
		return
	}
	if !d.getOrCreate(d.cur) {
		return
	}
	d.offset = d.cur.s.KRaftMetadataOffset
	lastProgress, nextCheck := time.Now(), int64(checkEvery)
	for int(d.calls.Load()) < d.cfg.Ops || d.totalFaults() < d.cfg.MinFaults || d.covering() {
		if d.stopping() {
			return
		}
		if d.cfg.Progress != nil && time.Since(lastProgress) > 10*time.Second {
			lastProgress = time.Now()
			d.cfg.Progress(fmt.Sprintf("%d calls, %d faults, %d writers, %d anomalies", d.calls.Load(), d.totalFaults(), len(d.gens), d.anomalyCount()))
		}
		if !d.step() {
			return
		}
		if d.cfg.StopAtFirstAnomaly && d.calls.Load() >= nextCheck {
			nextCheck = d.calls.Load() + checkEvery
			d.checkInvariantsSoFar()
		}
	}
}

// checkEvery is how many calls apart a run that stops at its first anomaly
// checks the invariants of the history recorded so far: what they find in
// part of a history holds of the whole.
const checkEvery = 100

// checkInvariantsSoFar records what the invariants find in the history
// recorded so far (they run again over the whole history at the end).
func (d *driver) checkInvariantsSoFar() {
	for _, f := range d.h.Invariants() {
		d.anomaly(f.Check, "%s", f.Text)
	}
}

// finish stops the faults, proves the writer is not stuck, and reads the
// final state of every znode.
func (d *driver) finish() {
	if d.rival != nil {
		<-d.rival.claimed
	}
	if err := d.e.WaitServing(); err != nil {
		d.t.Fatalf("torture: %v", err)
	}
	d.quiet = true
	if d.rival != nil && d.anomalyCount() == 0 {
		// A rival claimed at the very end: let the fenced writer hand over.
		d.step()
	}
	if d.anomalyCount() == 0 && d.cur != nil && d.cur.claimErr == nil && d.waitConnected(d.cur) {
		d.writeAfterFaults(d.cur)
	}
	d.readFinalState()
	d.checkStaleMemory()
	d.checkNotifications()
	d.checkNothingInvented()
}

// writeAfterFaults makes g's first write after the faults stopped and
// times it: a writer that cannot write within finalWriteTimeout is stuck.
func (d *driver) writeAfterFaults(g *generation) {
	s := d.nextCheckpoint(g)
	ctx, cancel := context.WithTimeout(d.ctx, finalWriteTimeout)
	start := time.Now()
	res := d.update(ctx, g, s, 0)
	d.finalWrite = time.Since(start)
	cancel()
	if res.err != nil || res.fenced || res.conflict {
		d.anomaly(CheckStuck, "stuck: the first write after the faults stopped failed after %v: %v", d.finalWrite, res.err)
	}
}

// waitConnected waits until g's client holds a session.
func (d *driver) waitConnected(g *generation) bool {
	deadline := time.Now().Add(callTimeout)
	for g.conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			d.anomaly(CheckStuck, "controller %d: no session %v after the faults stopped", g.id, callTimeout)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
