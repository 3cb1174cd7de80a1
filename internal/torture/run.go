// Package torture drives migration writers through a realistic migration
// against a three-member ZooKeeper ensemble while injecting the faults a
// production ensemble sees, records every call, and checks the history:
// linearizability of /migration and of every payload znode, versions
// against what ZooKeeper holds, conflicts against the test's own
// conflicting writes, fencing, that no writer gets stuck, and the
// invariants of every history.
//
// It is laid out as etcd's robustness suite is:
//
//   - traffic: the workload chooses each call, as a KRaft controller's
//     metadata deltas would make it (workload.go, delta.go,
//     vocabulary.go, sync.go), and is asked through its methods;
//   - client: each KRaft controller (generation.go, controllers.go)
//     records its own calls: those of its Writer (writer.go) and of its
//     dual-write Client (dualwrite.go, memory.go) stamp their own times
//     and append their own operations to the history, and are checked
//     against what ZooKeeper holds right after (admin.go);
//   - failpoint: each kind of fault is a type of its own (faults.go,
//     netfaults.go, memberfaults.go, rivalfaults.go, writefaults.go),
//     drawn around the coming call and acting through a narrow handle on
//     the ensemble (cluster: its members, the admin session and the
//     other parties writing through it, the controllers, the tally of
//     faults), never through the driver;
//   - model and validate: package history holds the model, the record of
//     the calls and the checks of a whole history;
//   - report: the anomalies found as the run goes (anomalies.go,
//     checks.go) and the Report.
//
// The driver (driver.go, step.go) only sequences them: it asks the
// workload for a call, draws a fault around it, has the controller that
// holds leadership make it, again while its outcome is unknown, and hands
// over to the rival that fenced it.
//
// It is a test helper for this module only.
package torture

import (
	"context"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
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
	// Controller ids: the controllers of the run are numbered from
	// baseControllerID, one for each (a long run has over a thousand);
	// the losers that do not share the holder's id from
	// otherControllerBase, by the same count; and another party's
	// controllers are foreignController and the one after it. The ranges
	// never meet, so that no fault's other controller is the claimant
	// itself.
	baseControllerID    = 3000
	otherControllerBase = 1_000_000
	foreignController   = 2_000_000
	baseKRaftEpoch      = 5
	// maxKRaftEpochGap bounds how far apart the KRaft epochs of two
	// generations are (KRaft elections can skip epochs): gaps above one
	// leave /controller_epoch behind, so rollback-safe claims jump.
	maxKRaftEpochGap = 6
)

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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newDriver(ctx, t, cfg, zktest.StartEnsemble(t, 3))
	d.setup()
	d.run()
	d.cl.members.wait()
	if cfg.tamper != nil {
		cfg.tamper(d)
	}
	d.finish()
	r := d.report()
	r.Duration = time.Since(started)
	return r
}
