package torture

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
)

// The checks an anomaly can come from, as named in Anomaly.Check.
const (
	// CheckLinearizable: the history of /migration and /controller_epoch,
	// or of a payload znode, has no linearization: what the writer
	// reported cannot be what ZooKeeper did.
	CheckLinearizable = history.CheckLinearizable
	// CheckLostWrite: ZooKeeper does not hold what a call said it wrote.
	CheckLostWrite = "lost-write"
	// CheckVersion: a call reported another version than ZooKeeper holds.
	CheckVersion = "version"
	// CheckFalseConflict: a conflict reported with no other writer in the
	// way: a conflict reported for the writer's own write.
	CheckFalseConflict = history.CheckFalseConflict
	// CheckMissedConflict: a success although another writer's write
	// landed in the way, or two writes that produced the same version.
	CheckMissedConflict = history.CheckMissedConflict
	// CheckFenceAdopted: a writer holds a fence ZooKeeper does not hold for
	// it: a claim that reported a /controller_epoch version another party
	// produced, or a call that succeeded although its tenure ended before
	// its acknowledgement arrived.
	CheckFenceAdopted = history.CheckFenceAdopted
	// CheckAfterTenure: a write accepted from a writer after its tenure
	// ended (ZooKeeper was known to have seen a later claim before the
	// call).
	CheckAfterTenure = history.CheckAfterTenure
	// CheckTenure: a /controller_epoch version held by two identities, or
	// by one after another party produced it, or a claim resumed after
	// the tenure it resumes ended.
	CheckTenure = history.CheckTenure
	// CheckRetired: a fenced writer not retired, or not silent, or its
	// dual-write Client still remembering something.
	CheckRetired = "retired"
	// CheckClaim: a claim with an outcome its situation rules out.
	CheckClaim = "claim"
	// CheckRollbackSafe: a claim with rollback-safe epochs that left
	// /controller_epoch below the claimant's KRaft epoch, or reported an
	// epoch ZooKeeper does not hold.
	CheckRollbackSafe = history.CheckRollbackSafe
	// CheckInvented: a znode exists that neither the workload asked for
	// nor another party wrote.
	CheckInvented = "invented"
	// CheckNotification: a change notification written twice, or for a
	// change that did not land, or missing for one that did.
	CheckNotification = "notification"
	// CheckResults: an Apply call's results contradict its outcome.
	CheckResults = "results"
	// CheckIdentity: a call returned a State naming another KRaft
	// controller or epoch than the writer's claim (one taken from
	// /migration, say).
	CheckIdentity = "identity"
	// CheckPanic: a call panicked inside the library (the anomaly holds
	// the stack).
	CheckPanic = "panic"
	// CheckStuck: a writer that cannot make progress.
	CheckStuck = "stuck"
	// CheckUnexpected: an error the situation does not explain.
	CheckUnexpected = "unexpected-error"
	// CheckDelta: a delta through the remembering dual-write Client
	// succeeded, and ZooKeeper does not hold what it asked for.
	CheckDelta = "delta"
	// CheckUnconditioned: the dual-write Client sent a SetData or delete
	// of a partition state at any version.
	CheckUnconditioned = "unconditioned"
	// CheckStaleMemory: a transaction the dual-write Client planned from
	// what it remembered was refused at a znode that no write explains:
	// none by another party, nor by a call of its own in doubt, since the
	// Client last learned it (checkStaleMemory).
	CheckStaleMemory = "stale-memory"
	// CheckUnknownOutcome: a call whose copy landed, its reply lost,
	// ended without ErrOutcomeUnknown although its context ended before
	// the reread could settle it (deadline-in-doubt, reload-in-doubt).
	CheckUnknownOutcome = "unknown-outcome"
	// CheckRecovered: a call reported a write or a claim Recovered (its
	// acknowledgement lost, the write found landed) although no copy of
	// it was in doubt: its client lost no connection during the call, and
	// no earlier attempt of it ended with its outcome unknown.
	CheckRecovered = "recovered"
	// CheckHarness: the suite itself failed (a read, a kill, a restart).
	CheckHarness = "harness"
)

// Anomaly is something a check found wrong.
type Anomaly struct {
	// Check names the check (one of the Check constants).
	Check string
	// Ops is how many library calls had been made when it was found;
	// checks of the whole history run at the end.
	Ops  int
	Text string
}

// String formats the anomaly on one line (the text may hold more).
func (a Anomaly) String() string {
	return fmt.Sprintf("[%s after %d operations] %s", a.Check, a.Ops, a.Text)
}
