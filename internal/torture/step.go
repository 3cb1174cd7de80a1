package torture

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// step makes one call, with or without a fault, and reports whether the
// run can go on.
func (d *driver) step() bool {
	d.traceStep()
	g := d.ctl.cur
	d.wl.startCall()
	revisit := d.wl.revisiting()
	s := d.nextCheckpoint(g)
	d.traceEnv("states " + d.statesMet(revisit))
	wk := d.wl.choose(g.epoch, s.KRaftMetadataOffset)
	d.traceEvent("call " + wk.kind())
	d.tracePhase(1)
	c := &call{}
	var armed []*zktest.Armed
	deadline := time.Duration(0)
	// A delta after a reload shows what the Client remembers: no fault.
	if !d.quiet && !revisit && d.rng.Float64() < d.cfg.FaultRate {
		armed = d.inject(coming{g: g, wk: &wk, s: s, call: c, wl: d.wl})
	}
	d.tracePhase(2)
	if !d.quiet && !revisit && d.rng.Float64() < 0.04 {
		deadline = time.Duration(1+d.rng.Intn(20)) * time.Millisecond
		d.traceEvent("deadline")
	}
	d.tracePhase(3)
	ok := d.callUntilSettled(c, g, s, wk, deadline)
	c.over(armed)
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
		d.r.log.add(CheckIdentity, "controller %d epoch %d was handed a State naming KRaft controller %d epoch %d",
			g.id, g.epoch, s.KRaftControllerID, s.KRaftControllerEpoch)
		s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = d.offset, g.epoch
	return s
}

// callUntilSettled makes the call c of wk and makes it again, with the
// same arguments, while its outcome is unknown. It reports whether the
// run can go on.
func (d *driver) callUntilSettled(c *call, g *generation, s migrationzk.State, wk work, deadline time.Duration) bool {
	// A call repeated after an unknown outcome may find an earlier
	// attempt's write: its effects date from the first attempt.
	first := d.r.h.Now()
	doubted := false // an attempt's outcome was unknown
	for attempt := 1; ; attempt++ {
		timeout := callTimeout
		if deadline > 0 && attempt == 1 {
			timeout = deadline
		}
		ctx, cancel := c.context(d.ctx, timeout)
		res := d.callOnce(ctx, g, s, wk, first)
		cancel()
		d.judgeAttempt(c, g, s, res, attempt == 1 && deadline > 0)
		switch {
		case res.retry:
			doubted = doubted || errors.Is(res.err, migrationzk.ErrOutcomeUnknown)
			if doubted && c.reload && wk.delta != nil {
				c.reload = false
				if landed, ok := d.reloadAfterDoubt(g, s, wk); !ok || landed {
					return ok
				}
			}
			s, wk, first = d.again(g, s, wk, doubted, first)
			if attempt >= maxAttempts {
				st := g.w.Stats()
				d.r.log.add(CheckStuck, "stuck: controller %d: %d attempts, last: %v; client state %v on %s, session %x, requests %v, writer attempts %d retries %d; writer log:\n    %v",
					g.id, attempt, res.err, g.conn.State(), g.conn.Server(), g.conn.SessionID(), g.faults.Counts(), st.Attempts, st.Retries, g.log)
				return false
			}
			continue
		case res.fenced:
			for _, rel := range wk.paths() {
				d.r.relearn(rel)
			}
			return d.takeOver(g, s)
		case res.conflict:
			return d.resync(g, wk)
		case res.err != nil:
			d.r.log.add(CheckUnexpected, "controller %d: unexpected error: %v", g.id, res.err)
			return d.resync(g, wk)
		}
		return true
	}
}

// judgeAttempt checks an attempt of the call c, with checkpoint s, that
// ended as res, against what the faults around it did to it, and counts
// the faults that show only in its outcome: the caller's short deadline
// (shortDeadline) ending it, a batch's notification written while its
// reply was dropped.
func (d *driver) judgeAttempt(c *call, g *generation, s migrationzk.State, res outcome, shortDeadline bool) {
	if c.rereadCut.Swap(false) {
		d.checkUnknownOutcome(g, s, res.err)
	}
	if c.tenureEnded.Load() && res.err == nil {
		d.r.log.add(CheckFenceAdopted, "controller %d: call at offset %d succeeded although its tenure ended before its acknowledgement came back",
			g.id, s.KRaftMetadataOffset)
	}
	if res.notified && c.notificationDropped.CompareAndSwap(true, false) {
		d.cl.tally.count(FaultNotificationInDoubt)
	}
	if res.deadline && shortDeadline {
		d.cl.tally.count(FaultCallerDeadline)
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
	cur, ok := d.r.admin.migration()
	if ok && cur.Exists && cur.Data == string(stateData(s)) {
		d.r.log.add(CheckUnknownOutcome, "controller %d: a call at offset %d whose copy landed, its reply lost and its reread cut short, ended with %v",
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
	if !g.getOrCreate() {
		return false, false
	}
	if g.s.KRaftMetadataOffset != s.KRaftMetadataOffset || g.s.MigrationZkVersion <= s.MigrationZkVersion {
		return false, true
	}
	for _, rel := range wk.paths() {
		d.r.relearn(rel)
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
		d.cl.tally.count(FaultReloadInDoubt)
		d.wl.revisitNext(touched)
	}
	return true, true
}

// callOnce has g make the call of wk once, as if called at first.
func (d *driver) callOnce(ctx context.Context, g *generation, s migrationzk.State, wk work, first int64) outcome {
	d.wl.ask(wk)
	switch {
	case wk.vocab != nil:
		return g.vocabulary(ctx, s, wk.vocab, first)
	case wk.sync != nil:
		return g.sync(ctx, s, wk.sync, first)
	case wk.delta != nil:
		return g.delta(ctx, s, wk.delta, first)
	case wk.ops == nil:
		return g.update(ctx, s, first)
	}
	return g.apply(ctx, s, wk.ops, first)
}

// again returns what a call is made again with: the same arguments while
// an attempt's outcome is unknown (doubted; a batch perhaps merged with
// the next delta), as ErrOutcomeUnknown asks, and half the time a newer
// checkpoint after Updates that all sent nothing, as a caller free to move
// on would. first is when the call's effects may date from.
func (d *driver) again(g *generation, s migrationzk.State, wk work, doubted bool, first int64) (migrationzk.State, work, int64) {
	if !doubted && wk.ops == nil && wk.vocab == nil && wk.sync == nil && wk.delta == nil && d.rng.Float64() < 0.5 {
		return d.nextCheckpoint(g), wk, d.r.h.Now()
	}
	return s, d.wl.mergeNextDelta(wk, g.epoch), first
}

// resync is what the driver does after a conflict: read /migration again
// (as a controller reloads its state), and reread the batch's znodes.
func (d *driver) resync(g *generation, wk work) bool {
	for _, rel := range wk.paths() {
		d.r.relearn(rel)
	}
	return g.getOrCreate()
}

// takeOver handles a fenced writer: it must be retired and silent, and the
// rival that fenced it takes over the workload.
func (d *driver) takeOver(old *generation, s migrationzk.State) bool {
	rival := d.ctl.rival
	if rival == nil {
		d.r.log.add(CheckHarness, "controller %d fenced with no rival", old.id)
		return false
	}
	<-rival.claimed
	for rival.claimErr != nil {
		if !rival.mustBeRefused.Load() {
			return false // judged already
		}
		// Refused as it had to be: another controller takes over.
		rival = d.ctl.newGeneration()
		d.ctl.claim(rival)
	}
	d.loserAfterClaim(rival)
	d.r.stats.fenced++
	old.checkRetired(s)
	old.conn.Close()
	d.ctl.rival = nil
	d.ctl.cur = rival
	return rival.getOrCreate()
}

// loserAfterClaim has, now and then, a controller whose claim must lose
// to holder's arrive between holder's claim and its first write.
func (d *driver) loserAfterClaim(holder *generation) {
	if d.quiet || d.rng.Float64() >= 0.2 {
		return
	}
	d.ctl.loserClaims(d.ctl.spawnLoser(holder), holder)
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
