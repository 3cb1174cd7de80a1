package monitor

import (
	"context"
	"sync"
	"time"

	"github.com/kraftmigration/zkwriter/internal/epochscan"
)

// scanState is what the scans of the partition states found.
type scanState struct {
	mu sync.Mutex
	// ok is set once a scan succeeded; the figures below are the last
	// successful scan's.
	ok bool
	// at is when the last successful scan ended.
	at       time.Time
	duration time.Duration
	// election is the epoch leader elections would run under after a
	// rollback, the threshold of the last scan.
	election   int32
	atRisk     int
	highest    int32
	partitions int
	bad        int
	// runs and errors count every scan, and those that failed.
	runs, errors int
}

// scan reads the control znodes for the election epoch, then every
// partition state, and records the hazard: the partitions stamped above
// it.
func (e *Exporter) scan(ctx context.Context) {
	res, election, err := e.scanOnce(ctx)
	s := &e.scans
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs++
	if err != nil {
		s.errors++
		if ctx.Err() == nil {
			e.log.Warn("scan the partition states", "error", err)
		}
		return
	}
	s.ok, s.at, s.duration = true, time.Now(), res.Elapsed
	s.election, s.atRisk, s.highest, s.partitions, s.bad = election, res.AtRiskCount, res.Highest, res.Partitions, res.UndecodableCount
}

func (e *Exporter) scanOnce(ctx context.Context) (epochscan.Result, int32, error) {
	rctx, cancel := context.WithTimeout(ctx, e.cfg.PollTimeout)
	c, err := e.readControl(rctx)
	cancel()
	if err != nil {
		return epochscan.Result{}, 0, err
	}
	election := epochscan.ElectionEpoch(c.epoch, c.controller != nil && !c.controller.IsKRaft())
	res, err := epochscan.Scan(ctx, e.scanner, election, epochscan.Options{Root: e.cfg.Root, Step: e.cfg.ScanStep, Rate: e.cfg.ScanRate})
	return res, election, err
}

// scanned returns a copy of the scans' figures.
func (e *Exporter) scanned() scanState {
	s := &e.scans
	s.mu.Lock()
	defer s.mu.Unlock()
	return scanState{ok: s.ok, at: s.at, duration: s.duration, election: s.election, atRisk: s.atRisk,
		highest: s.highest, partitions: s.partitions, bad: s.bad, runs: s.runs, errors: s.errors}
}
