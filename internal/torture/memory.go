package torture

import (
	"errors"
	"fmt"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// memoryModel is what the driver knows of what a generation's
// remembering dual-write Client may rest on: for each path, since when
// the Client's knowledge of it reflects every write acknowledged before.
// That moment is the start of the last call that read the path, wrote it
// and was told the result, or forgot it (a refusal, an outcome in doubt):
// writes acknowledged before a call started are seen by its reads, which
// follow its sync. It is a lower bound, so that it never blames the
// Client for a write it could not see.
type memoryModel struct {
	// start is when the call in flight started; syncing says it is a
	// Sync, whose Read learns the znodes it reads without a trace.
	start   int64
	syncing bool
	since   map[string]int64
}

func newMemoryModel() *memoryModel { return &memoryModel{since: map[string]int64{}} }

// refusal is a transaction planned from what the Client remembered that
// ZooKeeper refused at path: since is when the Client last learned path
// (-1 if never), at when the refusal came back.
type refusal struct {
	g         *generation
	path      string
	since, at int64
	desc      string
}

// withDualWrite makes f a call of g's remembering Client, recorded as
// d.rec.wrap does (as if called at from), a Sync when syncing: the
// memory model notes when it started, and g notes the call as the
// Client's own.
func (d *driver) withDualWrite(g *generation, from int64, desc string, syncing bool, f func(*dualwrite.Client) error) (history.Record, error) {
	c := d.dualWrite(g)
	rc, err := d.rec.Wrap(g.client(), from, desc, func() error {
		g.mu.Lock()
		g.mem.start, g.mem.syncing = d.h.Now(), syncing
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

// noteMemory updates g's memory model with what e reports, and records
// the refusal of a transaction planned from what the Client remembered.
// g.mu must be held.
func (d *driver) noteMemory(g *generation, e dualwrite.TraceEvent) {
	m := g.mem
	switch e.Kind {
	case dualwrite.TraceReadWave:
		for _, p := range e.Paths {
			m.since[p] = m.start
		}
	case dualwrite.TraceTransaction:
		if m.syncing {
			// A Sync's Read read every znode its plan sets or deletes.
			for _, o := range e.Ops {
				if o.Kind() != migrationzk.OpCreate {
					m.since[o.Path()] = m.start
				}
			}
		}
		// ZooKeeper names the first op it refused. A refusal with a copy
		// of the transaction in doubt may be that copy's doing.
		var oe *migrationzk.OpError
		if e.Remembered && errors.As(e.Err, &oe) && !errors.Is(e.Err, migrationzk.ErrOutcomeUnknown) {
			p := oe.Op.Path()
			d.noteRefusal(refusal{g: g, path: p, since: m.learned(p), at: d.h.Now(), desc: fmt.Sprintf("%v at version %d: %v", oe.Op, oe.Op.Version(), oe.Err)})
		}
		for _, o := range e.Ops {
			// Learned when it landed; forgotten otherwise.
			m.since[o.Path()] = m.start
		}
	}
}

// noteRefusal records r, to be judged once the history is complete.
func (d *driver) noteRefusal(r refusal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refusals = append(d.refusals, r)
}

// learned returns since when the Client knows p, -1 if it never learned
// it.
func (m *memoryModel) learned(p string) int64 {
	if at, ok := m.since[p]; ok {
		return at
	}
	return -1
}

// checkStaleMemory guards what the dual-write Client remembers: since
// every op planned from it is conditioned, a wrong memory shows as a
// refusal ZooKeeper should not have needed. A transaction planned from
// what the Client remembered, refused at path P, must be explained by a
// write to P (or above or below it) that may have landed after the
// Client last learned P: by another party (a foreign write, a rival, the
// same controller's own raw batches or an earlier Client), or by a call
// of the Client's own that was in doubt and returned before the Client
// learned P again. The Client's own acknowledged writes, and its writes
// in doubt since it last learned P, explain nothing: it must remember
// the first and forget what the second touched.
func (d *driver) checkStaleMemory() {
	d.mu.Lock()
	refusals := d.refusals
	d.mu.Unlock()
	for _, r := range refusals {
		if !d.h.ExplainsRefusal(d.p(r.path), r.since, r.at, r.g.ownCall) {
			d.anomaly(CheckStaleMemory, "controller %d: a transaction planned from what the Client remembered was refused at %d (%s), with no write to %s that may have landed since the Client learned it at %d%s",
				r.g.id, r.at, r.desc, r.path, r.since, d.h.Recent(d.p(r.path), r.at))
		}
	}
}

// ownCall reports whether o was recorded by a call of one of g's
// dual-write Clients, and when the first attempt of that call returned.
func (g *generation) ownCall(o history.Op) (int64, bool) {
	if o.Client != g.client() {
		return 0, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ret, own := history.Never, false
	for _, c := range g.dwCalls {
		if c.Call == o.Call {
			ret, own = min(ret, c.Return), true
		}
	}
	return ret, own
}

// checkForgotten checks that the dual-write Client of old, fenced,
// remembers nothing.
func (d *driver) checkForgotten(old *generation) {
	old.mu.Lock()
	dw := old.dw
	if old.dwOf != old.w {
		dw = nil
	}
	old.mu.Unlock()
	if dw == nil {
		return
	}
	if parts, znodes := dw.Remembered(); parts != 0 || znodes != 0 {
		d.anomaly(CheckRetired, "controller %d: fenced, its dual-write Client still remembers %d partitions and %d znodes", old.id, parts, znodes)
	}
}
