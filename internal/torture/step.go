package torture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// step makes one call, with or without a fault, and reports whether the
// run can go on.
func (d *driver) step() bool {
	d.traceStep()
	g := d.cur
	clear(d.basis)
	revisit := d.revisit != nil
	s := d.nextCheckpoint(g)
	d.traceEnv("states " + d.statesMet(revisit))
	wk := d.choose(g.epoch, s.KRaftMetadataOffset)
	d.traceEvent("call " + wk.kind())
	d.tracePhase(1)
	d.tenureEnded.Store(false)
	d.notificationDropped.Store(false)
	d.rereadCut.Store(false)
	d.reloadInDoubt = false

	var armed []*zktest.Armed
	deadline := time.Duration(0)
	// A delta after a reload shows what the Client remembers: no fault.
	if !d.quiet && !revisit && d.rng.Float64() < d.cfg.FaultRate {
		armed = d.inject(g, &wk, s)
	}
	d.tracePhase(2)
	if !d.quiet && !revisit && d.rng.Float64() < 0.04 {
		deadline = time.Duration(1+d.rng.Intn(20)) * time.Millisecond
		d.traceEvent("deadline")
	}
	d.tracePhase(3)
	ok := d.callUntilSettled(g, s, wk, deadline)
	waitArmed(armed)
	// Those the faults armed as they acted, which waitArmed settled.
	d.mu.Lock()
	late := d.lateArmed
	d.lateArmed = nil
	d.mu.Unlock()
	waitArmed(late)
	for _, f := range d.afterCall {
		f()
	}
	d.afterCall = nil
	return ok
}

// nextCheckpoint moves the metadata offset on by one and returns the State
// g writes next: what it last learned, with the new offset. That State
// must carry g's identity as the library returned it: a State naming
// another controller or epoch is an anomaly (and is stamped with g's, so
// that the run goes on; the Writer would refuse it).
func (d *driver) nextCheckpoint(g *generation) migrationzk.State {
	d.offset++
	s := g.s
	if s.KRaftControllerID != g.id || s.KRaftControllerEpoch != g.epoch {
		d.anomaly(CheckIdentity, "controller %d epoch %d was handed a State naming KRaft controller %d epoch %d",
			g.id, g.epoch, s.KRaftControllerID, s.KRaftControllerEpoch)
		s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = d.offset, g.epoch
	return s
}

// waitArmed disarms the faults a call left unmatched and waits, two
// seconds at most each, for those it matched: they act when the reply
// comes, unless the connection died first.
func waitArmed(armed []*zktest.Armed) {
	for _, a := range armed {
		if a.Disarm() {
			continue
		}
		select {
		case <-a.Fired():
		case <-time.After(2 * time.Second):
		}
	}
}

// callUntilSettled makes the call and repeats it, with the same arguments,
// while its outcome is unknown. It reports whether the run can go on.
func (d *driver) callUntilSettled(g *generation, s migrationzk.State, wk work, deadline time.Duration) bool {
	// A call repeated after an unknown outcome may find an earlier
	// attempt's write: its effects date from the first attempt.
	first := d.h.Now()
	doubted := false // an attempt's outcome was unknown
	for attempt := 1; ; attempt++ {
		timeout := callTimeout
		if deadline > 0 && attempt == 1 {
			timeout = deadline
		}
		ctx, cancel := d.callContext(timeout)
		res := d.callOnce(ctx, g, s, wk, first)
		cancel()
		if d.rereadCut.Swap(false) {
			d.checkUnknownOutcome(g, s, res.err)
		}
		if d.tenureEnded.Load() && res.err == nil {
			d.anomaly(CheckFenceAdopted, "controller %d: call at offset %d succeeded although its tenure ended before its acknowledgement came back",
				g.id, s.KRaftMetadataOffset)
		}
		if res.deadline && attempt == 1 && deadline > 0 {
			d.count(FaultCallerDeadline)
		}
		switch {
		case res.retry:
			doubted = doubted || errors.Is(res.err, migrationzk.ErrOutcomeUnknown)
			if doubted && d.reloadInDoubt && wk.delta != nil {
				d.reloadInDoubt = false
				if landed, ok := d.reloadAfterDoubt(g, s, wk); !ok || landed {
					return ok
				}
			}
			s, wk, first = d.again(g, s, wk, doubted, first)
			if attempt >= maxAttempts {
				st := g.w.Stats()
				d.anomaly(CheckStuck, "stuck: controller %d: %d attempts, last: %v; client state %v on %s, session %x, requests %v, writer attempts %d retries %d; writer log:\n    %v",
					g.id, attempt, res.err, g.conn.State(), g.conn.Server(), g.conn.SessionID(), g.faults.Counts(), st.Attempts, st.Retries, g.log)
				return false
			}
			continue
		case res.fenced:
			for _, p := range wk.paths() {
				d.relearn(p)
			}
			return d.takeOver(g, s)
		case res.conflict:
			return d.resync(g, wk)
		case res.err != nil:
			d.anomaly(CheckUnexpected, "controller %d: unexpected error: %v", g.id, res.err)
			return d.resync(g, wk)
		}
		return true
	}
}

// checkUnknownOutcome checks a call with checkpoint s that ended with err
// once its context ended as the reread of its copy in doubt was sent: if
// /migration holds s, the copy landed, and the call, which could not
// learn it, must say ErrOutcomeUnknown (success is judged by the other
// checks). A copy ZooKeeper refused may have told the call so on its
// resend.
func (d *driver) checkUnknownOutcome(g *generation, s migrationzk.State, err error) {
	if err == nil || errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		return
	}
	cur, ok := d.adminRead(d.p("/migration"), history.SlotMigration, history.MigrationGroup)
	if ok && cur.Exists && cur.Data == string(stateData(s)) {
		d.anomaly(CheckUnknownOutcome, "controller %d: a call at offset %d whose copy landed, its reply lost and its reread cut short, ended with %v",
			g.id, s.KRaftMetadataOffset, err)
	}
}

// reloadAfterDoubt is what a controller may do once a delta's outcome is
// unknown, instead of retrying it: reload its State from /migration
// (GetOrCreate, on its own session, so that no copy of the delta is
// still in flight). It reports whether /migration holds the delta's
// checkpoint s, the delta landed: the run then goes on with a delta of
// the partitions the doubtful transaction wrote, with no fault, which the
// Client must plan without what it remembered of them (checkStaleMemory).
// ok is false when the run cannot go on.
func (d *driver) reloadAfterDoubt(g *generation, s migrationzk.State, wk work) (landed, ok bool) {
	if !d.getOrCreate(g) {
		return false, false
	}
	if g.s.KRaftMetadataOffset != s.KRaftMetadataOffset || g.s.MigrationZkVersion <= s.MigrationZkVersion {
		return false, true
	}
	for _, p := range wk.paths() {
		d.relearn(p)
	}
	// The partitions the doubtful transaction wrote: the Client must have
	// forgotten them.
	g.mu.Lock()
	var touched []deltaChange
	for _, ch := range wk.delta {
		if slices.Contains(g.lastOps, ch.path) {
			touched = append(touched, ch)
		}
	}
	g.mu.Unlock()
	if len(touched) > 0 {
		d.count(FaultReloadInDoubt)
		d.revisit = touched
	}
	return true, true
}

// callOnce makes the call of wk once, as if called at first.
func (d *driver) callOnce(ctx context.Context, g *generation, s migrationzk.State, wk work, first int64) outcome {
	d.ask(wk)
	d.callPaths = wk.paths()
	switch {
	case wk.vocab != nil:
		return d.vocabulary(ctx, g, s, wk.vocab, first)
	case wk.sync != nil:
		return d.sync(ctx, g, s, wk.sync, first)
	case wk.delta != nil:
		return d.delta(ctx, g, s, wk.delta, first)
	case wk.ops == nil:
		return d.update(ctx, g, s, first)
	}
	return d.apply(ctx, g, s, wk.ops, first)
}

// again returns what a call is made again with: the same arguments while
// an attempt's outcome is unknown (doubted; a batch perhaps merged with
// the next delta), as ErrOutcomeUnknown asks, and half the time a newer
// checkpoint after Updates that all sent nothing, as a caller free to move
// on would. first is when the call's effects may date from.
func (d *driver) again(g *generation, s migrationzk.State, wk work, doubted bool, first int64) (migrationzk.State, work, int64) {
	if !doubted && wk.ops == nil && wk.vocab == nil && wk.sync == nil && wk.delta == nil && d.rng.Float64() < 0.5 {
		return d.nextCheckpoint(g), wk, d.h.Now()
	}
	return s, d.mergeNextDelta(wk, g.epoch), first
}

// resync is what the driver does after a conflict: read /migration again
// (as a controller reloads its state), and reread the batch's znodes.
func (d *driver) resync(g *generation, wk work) bool {
	for _, p := range wk.paths() {
		d.relearn(p)
	}
	return d.getOrCreate(g)
}

// relearn reads a payload znode through the admin session and records it.
func (d *driver) relearn(rel string) {
	path := d.p(rel)
	v, ok := d.adminRead(path, 0, path)
	if !ok {
		return
	}
	d.learn(rel, v.Exists, v.Version, d.h.Now())
}

// paths returns the payload znodes wk's ops or delta write, relative to
// the root.
func (wk work) paths() []string {
	var out []string
	for _, o := range wk.ops {
		out = append(out, o.Path())
	}
	for _, ch := range wk.delta {
		out = append(out, ch.path)
	}
	return out
}

// traceStep starts a step of a traced run: it is told, and the step
// draws its call from the seed and its number.
func (d *driver) traceStep() {
	if d.cfg.trace == nil {
		return
	}
	d.traced++
	d.tracePhase(0)
	d.traceEvent(fmt.Sprintf("step %d", d.traced))
}

// tracePhase has a traced run draw what follows in its step from the
// seed, the step's number and phase: the call, whether a fault is
// injected and which, whether the caller's deadline is short, and the
// rest. Each phase then draws alike in two runs that met alike what it
// depends on, whatever the phases before consumed.
func (d *driver) tracePhase(phase int64) {
	if d.cfg.trace != nil {
		d.rng.Seed((d.cfg.Seed*1_000_003+int64(d.traced))*4 + phase)
	}
}

// statesMet says, for a trace, what the choice of the next call depends
// on: whether partition states exist, more than four, and whether the
// call revisits partitions after a reload.
func (d *driver) statesMet(revisit bool) string {
	switch n := len(d.states); {
	case revisit:
		return "revisited"
	case n == 0:
		return "none"
	case n <= 4:
		return "few"
	}
	return "many"
}

// traceEnv tells Config.trace, if set, of what the run met that decides
// what it draws next (the partition states, the faults open): marked
// "~ ", so that a comparison of two runs tells a difference of
// environment from a difference of draws.
func (d *driver) traceEnv(event string) {
	d.traceEvent("~ " + event)
}

// traceEvent tells Config.trace, if set, of event.
func (d *driver) traceEvent(event string) {
	if d.cfg.trace != nil {
		d.cfg.trace(event)
	}
}

// kind names the kind of call wk makes.
func (wk work) kind() string {
	switch {
	case wk.vocab != nil:
		return "dual-write"
	case wk.sync != nil:
		return "sync"
	case wk.delta != nil:
		return "delta"
	case wk.ops == nil:
		return "checkpoint"
	}
	return "batch"
}
