package torture

import (
	"context"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// recording is what the calls of every controller are recorded into, and
// checked against right after: the history and its recorder, the admin
// session's reads, the anomalies found, what the workload knows of the
// payload znodes, the run's figures, and the tally of the faults that
// show only in a call's results.
type recording struct {
	ctx   context.Context
	t     testing.TB
	e     *zktest.Ensemble
	h     *history.History
	rec   history.Recorder
	admin *admin
	log   *anomalies
	wl    *workload
	stats *stats
	tally *tally
	// refusals are the transactions the dual-write Clients planned from
	// what they remembered that ZooKeeper refused.
	refusals refusals
}

// relearn reads a payload znode through the admin session, recorded, and
// tells the workload what it holds.
func (r *recording) relearn(rel string) {
	path := p(rel)
	v, ok := r.admin.read(path, 0, path)
	if !ok {
		return
	}
	r.wl.learn(rel, v.Exists, v.Version, r.h.Now())
}
