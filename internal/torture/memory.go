package torture

import (
	"errors"
	"fmt"
	"sync"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// memoryModel is what the run knows of what a generation's
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

// refusals are the transactions planned from what a dual-write Client
// remembered that ZooKeeper refused, judged once the history is complete
// (the driver's checkStaleMemory).
type refusals struct {
	mu   sync.Mutex
	list []refusal
}

// add records r.
func (rs *refusals) add(r refusal) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.list = append(rs.list, r)
}

// all returns the refusals recorded.
func (rs *refusals) all() []refusal {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]refusal(nil), rs.list...)
}

// noteMemory updates g's memory model with what e reports, and records
// the refusal of a transaction planned from what the Client remembered.
// g.mu must be held.
func (g *generation) noteMemory(e dualwrite.TraceEvent) {
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
			g.r.refusals.add(refusal{g: g, path: p, since: m.learned(p), at: g.r.h.Now(), desc: fmt.Sprintf("%v at version %d: %v", oe.Op, oe.Op.Version(), oe.Err)})
		}
		for _, o := range e.Ops {
			// Learned when it landed; forgotten otherwise.
			m.since[o.Path()] = m.start
		}
	}
}

// learned returns since when the Client knows p, -1 if it never learned
// it.
func (m *memoryModel) learned(p string) int64 {
	if at, ok := m.since[p]; ok {
		return at
	}
	return -1
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

// checkForgotten checks that the dual-write Client of g, fenced,
// remembers nothing.
func (g *generation) checkForgotten() {
	g.mu.Lock()
	dw := g.dw
	if g.dwOf != g.w {
		dw = nil
	}
	g.mu.Unlock()
	if dw == nil {
		return
	}
	if parts, znodes := dw.Remembered(); parts != 0 || znodes != 0 {
		g.r.log.add(CheckRetired, "controller %d: fenced, its dual-write Client still remembers %d partitions and %d znodes", g.id, parts, znodes)
	}
}
