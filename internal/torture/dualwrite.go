package torture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// dualWrite returns g's dual-write Client, made once per Writer of the
// generation so that it remembers across calls; its trace hook checks
// each transaction it sends.
func (g *generation) dualWrite() *dualwrite.Client {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dw == nil || g.dwOf != g.w {
		// A new Writer (after a stale session, say) gets a Client that
		// remembers nothing.
		g.dw = must.Get(dualwrite.New(g.w, dualwrite.WithTrace(g.checkTransaction)))
		g.dwOf, g.learnedAt, g.readAllAt, g.mem = g.w, nil, 0, newMemoryModel()
	}
	return g.dw
}

// withDualWrite makes f a call of g's remembering Client, recorded as the
// recorder's Wrap does (as if called at from), a Sync when syncing: the
// memory model notes when it started, and g notes the call as the
// Client's own.
func (g *generation) withDualWrite(from int64, desc string, syncing bool, f func(*dualwrite.Client) error) (history.Record, error) {
	c := g.dualWrite()
	rc, err := g.r.rec.Wrap(g.client(), from, desc, func() error {
		g.mu.Lock()
		g.mem.start, g.mem.syncing = g.r.h.Now(), syncing
		g.mu.Unlock()
		return f(c)
	})
	g.mu.Lock()
	g.dwCalls = append(g.dwCalls, rc.Span)
	if syncing {
		g.readAllAt = rc.Return
	}
	g.mu.Unlock()
	return rc, err
}

// checkTransaction checks a transaction the Client sent: each SetData and
// each delete of a partition state is conditioned on a version, so that
// no write by another party is overwritten unseen.
func (g *generation) checkTransaction(e dualwrite.TraceEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.r
	if g.learnedAt == nil {
		g.learnedAt = map[string]int64{}
	}
	g.noteMemory(e)
	switch e.Kind {
	case dualwrite.TraceReadWave:
		// Sent after the call's sync: what landed before now is read.
		for _, p := range e.Paths {
			g.learnedAt[p] = r.h.Now()
		}
		return
	case dualwrite.TraceTransaction:
		// Its ops were conditioned on what was learned before it.
		g.opBasis, g.lastOps = map[string]int64{}, g.lastOps[:0]
		for _, o := range e.Ops {
			g.lastOps = append(g.lastOps, o.Path())
			if at, ok := g.learnedAt[o.Path()]; ok || g.readAllAt > 0 {
				g.opBasis[o.Path()] = max(at, g.readAllAt)
			}
		}
		for _, res := range e.Results {
			if res.Err == nil {
				g.learnedAt[res.Op.Path()] = r.h.Now()
			}
		}
	default:
		return
	}
	if e.Remembered {
		r.stats.remembered.Add(1)
	}
	for _, o := range e.Ops {
		if o.Kind() != migrationzk.OpCreate && strings.HasSuffix(o.Path(), "/state") && o.Version() < 0 {
			r.log.add(CheckUnconditioned, "controller %d: %s at any version, in a transaction planned from what the Client remembers (%v)", g.id, o, e.Remembered)
		}
	}
}

// classifyBatch classifies err as classify does, and a conflict the
// dual-write Client reports of its own (a plan that no longer holds) as
// one too.
func (g *generation) classifyBatch(ctx context.Context, err error) outcome {
	o := g.classify(ctx, err)
	if errors.Is(err, migrationzk.ErrConflict) && !o.conflict {
		o.conflict = true
	}
	return o
}

// delta writes changes through g's remembering Client in one Batch with
// checkpoint s, records it as vocabulary does, and checks that ZooKeeper
// holds what each change asked for once the call succeeded.
func (g *generation) delta(ctx context.Context, s migrationzk.State, changes []deltaChange, from int64) outcome {
	g.r.stats.calls.Add(1)
	var out migrationzk.State
	var res []migrationzk.OpResult
	dials := g.faults.Dials()
	rc, err := g.withDualWrite(from, fmt.Sprintf("delta by %d offset %d (%d partitions)", g.id, s.KRaftMetadataOffset, len(changes)), false, func(c *dualwrite.Client) (err error) {
		b := c.Batch()
		for _, ch := range changes {
			b.UpdatePartitions(ch.topic, map[int32]dualwrite.PartitionState{ch.id: ch.state})
		}
		out, res, err = b.Apply(ctx, s)
		return err
	})
	c := writerCall{g: g, Record: rc, paths: deltaPaths(changes), dials: dials}
	o := g.classifyBatch(ctx, err)
	c.recovered(anyRecovered(out, res, err))
	c.checkpoint(s, out, o, refusedOps(res))
	g.asClientLearned(res)
	c.results(res, err, o, out)
	if err == nil {
		g.checkDelta(s, changes)
	}
	for _, ch := range changes {
		// What the Client wrote, or left as it was, is what the raw
		// batches build on next.
		g.r.relearn(ch.path)
	}
	return o
}

// deltaPaths returns the paths of the partition states changes write.
func deltaPaths(changes []deltaChange) []string {
	var paths []string
	for _, ch := range changes {
		paths = append(paths, ch.path)
	}
	return paths
}

// asClientLearned records, as the moment the workload learned the version
// of each op of res, the moment g's Client did: its ops are conditioned
// on what it remembers, not on what the workload knows.
func (g *generation) asClientLearned(res []migrationzk.OpResult) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range res {
		at, ok := g.opBasis[r.Op.Path()]
		if !ok {
			at = -1
		}
		g.r.wl.setLearned(r.Op.Path(), at)
	}
}

// checkDelta checks that ZooKeeper holds the state each change asked for,
// stamped with s's KRaft controller epoch: written by the call, or held
// already when the Client wrote nothing for it.
func (g *generation) checkDelta(s migrationzk.State, changes []deltaChange) {
	for _, ch := range changes {
		_, datas, _, err := g.r.admin.get(p(ch.path))
		if err != nil {
			return // the harness's read failed; the history checks stand
		}
		got, derr := znode.DecodePartitionState(datas[0])
		want := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: ch.state.Leader,
			LeaderEpoch: ch.state.LeaderEpoch, ISR: ch.state.ISR}
		if derr != nil || !got.Equal(want) {
			g.r.log.add(CheckDelta, "controller %d: a delta that succeeded asked %s for %s, ZooKeeper holds %q", g.id, ch.path, want.Encode(), datas[0])
		}
	}
}

// vocabulary makes one dual-write batch of changes with checkpoint s and
// records it, as if called at from (0 for now): the checkpoint and the
// ops as Apply's are, and the notifications each change wrote.
func (g *generation) vocabulary(ctx context.Context, s migrationzk.State, changes []vocabChange, from int64) outcome {
	g.r.stats.calls.Add(1)
	var out migrationzk.State
	var res []migrationzk.OpResult
	dials := g.faults.Dials()
	rc, err := g.withDualWrite(from, fmt.Sprintf("dual-write by %d offset %d (%d changes)", g.id, s.KRaftMetadataOffset, len(changes)), false, func(c *dualwrite.Client) (err error) {
		b := c.Batch()
		for _, ch := range changes {
			ch.add(b)
		}
		out, res, err = b.Apply(ctx, s)
		return err
	})
	c := writerCall{g: g, Record: rc, dials: dials}
	o := g.classifyBatch(ctx, err)
	c.recovered(anyRecovered(out, res, err))
	c.checkpoint(s, out, o, refusedOps(res))
	c.results(res, err, o, out)
	g.tallyNotifications(notificationsOf(changes), res, err)
	o.notified = slices.ContainsFunc(res, func(r migrationzk.OpResult) bool { return r.Op.Sequential() && r.Err == nil })
	return o
}

// sync makes one Sync with checkpoint s of the image ZooKeeper holds (read
// through the admin session) with edits, and records it as a dual-write
// batch, as if called at from (0 for now). The Sync must plan no change
// but the edits'.
func (g *generation) sync(ctx context.Context, s migrationzk.State, edits []syncEdit, from int64) outcome {
	r := g.r
	r.stats.calls.Add(1)
	desired, err := r.admin.client().Read(ctx, nil)
	if err != nil {
		// Nothing was sent: the call is made again.
		return outcome{err: err, retry: true, deadline: ctx.Err() != nil}
	}
	notes := make([]string, len(edits))
	for i, e := range edits {
		e.edit(&desired)
		notes[i] = e.notification
	}
	var out migrationzk.State
	var rep dualwrite.SyncReport
	dials := g.faults.Dials()
	rc, err := g.withDualWrite(from, "", true, func(c *dualwrite.Client) (err error) {
		out, rep, err = c.Sync(ctx, s, desired)
		return err
	})
	o := g.classifyBatch(ctx, err)
	rc.Desc = fmt.Sprintf("sync by %d offset %d (%d edits, %d changes)", g.id, s.KRaftMetadataOffset, len(edits), len(rep.Plan.Changes))
	c := writerCall{g: g, Record: rc, dials: dials}
	c.recovered(anyRecovered(out, rep.Results, err))
	g.checkSyncPlan(rep.Plan, edits, rc.Desc)
	r.stats.syncs.calls++
	if err != nil {
		r.stats.syncs.stopped++
	} else {
		r.stats.syncs.changes += len(rep.Plan.Changes)
	}
	c.checkpoint(s, out, o, refusedOps(rep.Results))
	c.results(rep.Results, err, o, out)
	g.tallyNotifications(notes, rep.Results, err)
	return o
}

// checkSyncPlan reports a Sync's plan holding a change no edit asked for:
// ZooKeeper read back otherwise than the image it holds, or a Diff that
// finds a difference where there is none.
func (g *generation) checkSyncPlan(plan dualwrite.Plan, edits []syncEdit, desc string) {
	subjects := make([]string, len(edits))
	for i, e := range edits {
		subjects[i] = e.subject
	}
	for _, c := range plan.Changes {
		if !slices.Contains(subjects, c.Subject) {
			g.r.log.add(CheckResults, "%s: planned %s %s, which no edit asked for", desc, c.Kind, c.Subject)
		}
	}
}

// tallyNotifications counts, of notes (one for each change of a call),
// the ones a successful call reported written, and the ones a call that
// did not say may have written.
func (g *generation) tallyNotifications(notes []string, res []migrationzk.OpResult, err error) {
	tally := &g.r.stats.notes
	if err != nil {
		for _, n := range notes {
			tally.maybe[n]++
		}
		return
	}
	allowed := map[string]int{}
	for _, n := range notes {
		allowed[n]++
	}
	for _, r := range res {
		if !r.Op.Sequential() || r.Err != nil {
			continue
		}
		note := string(r.Op.Data())
		if allowed[note]--; allowed[note] < 0 {
			g.r.log.add(CheckNotification, "a call wrote notification %s more often than it had changes for it", note)
		}
		tally.landed[note]++
		tally.paths = append(tally.paths, r.Path)
	}
}
