package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Outcomes of rollback-fix.
const (
	outcomeNothingToDo = "nothing_to_do"
	outcomePlanned     = "planned"
	outcomeApplied     = "applied"
	outcomeRefused     = "refused"
	outcomeCancelled   = "cancelled"
)

// fixAction is one write of rollback-fix.
type fixAction struct {
	// Action is "set" or "delete".
	Action          string `json:"action"`
	Path            string `json:"path"`
	ExpectedVersion int32  `json:"expected_version"`
	// From and To are the epochs of a set of /controller_epoch.
	From *int32 `json:"from,omitempty"`
	To   *int32 `json:"to,omitempty"`
	// OldValue is the znode's data as read; NewValue what a set writes.
	OldValue    string `json:"old_value"`
	NewValue    string `json:"new_value,omitempty"`
	Description string `json:"description"`
	Done        bool   `json:"done"`
	// Result says how it went: "ok", "recovered" (the acknowledgement was
	// lost but the write landed), "already gone", "replaced".
	Result string `json:"result,omitempty"`
}

// writeOutcome is what a command that writes, and may be forced, did.
type writeOutcome struct {
	DryRun bool `json:"dry_run"`
	Force  bool `json:"force"`
	// Outcome is "nothing_to_do", "planned" (a dry run with work to do),
	// "applied", "refused" or "cancelled" (the operator said no).
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	// Error is why the command stopped, when it failed.
	Error string `json:"error,omitempty"`
	// ErrorKind is the error's kind, as in errorReport.
	ErrorKind string `json:"error_kind,omitempty"`
}

// fixReport is the output of rollback-fix.
type fixReport struct {
	header
	writeOutcome
	Before  *checkReport `json:"before,omitempty"`
	Actions []fixAction  `json:"actions"`
	After   *checkReport `json:"after,omitempty"`
}

// fixFlags are rollback-fix's own flags; --apply and --yes are every
// writing command's (writeFlags).
type fixFlags struct {
	force bool
}

func setupRollbackFix(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	var f fixFlags
	fs.BoolVar(&f.force, "force", false, "act even though a KRaft controller holds /controller (it is fenced and its registration deleted)")
	return func(ctx context.Context, conn *zk.Conn) int { return a.rollbackFix(ctx, conn, f) }
}

func (a *app) rollbackFix(ctx context.Context, conn *zk.Conn, f fixFlags) int {
	rep := fixReport{header: a.header(), writeOutcome: writeOutcome{DryRun: !a.write.apply, Force: f.force}, Actions: []fixAction{}}
	before, err := a.check(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	rep.Before = &before
	code, err := a.planFix(ctx, conn, f, &rep)
	if err != nil {
		// The report still says what was done before the error.
		rep.ErrorKind, rep.Error = a.warn(err)
	}
	if a.json() {
		a.emitJSON(rep)
		return code
	}
	a.printFix(rep, err != nil)
	return code
}

// printFix prints a fix report as text.
func (a *app) printFix(rep fixReport, failed bool) {
	a.printHeader()
	a.printCheck(*rep.Before)
	if len(rep.Actions) > 0 {
		a.printf("\nPlan:\n")
		for i, act := range rep.Actions {
			a.printf("  %d. %s", i+1, act.Description)
			switch {
			case act.Done:
				a.printf(": done (%s)", act.Result)
			case rep.Outcome == outcomeApplied || (failed && !rep.DryRun):
				a.printf(": not done")
			}
			a.printf("\n")
		}
	}
	if rep.Message != "" {
		a.printf("\n%s\n", rep.Message)
	}
	if rep.After != nil {
		a.printf("\nAfter:\n")
		a.printCheck(*rep.After)
	}
}

// planFix decides what rollback-fix does, does it unless it is a dry run
// or the operator declines, and checks again afterwards.
func (a *app) planFix(ctx context.Context, conn *zk.Conn, f fixFlags, rep *fixReport) (int, error) {
	if code, stop, err := a.refuseFix(f, rep); stop {
		return code, err
	}
	if err := a.planActions(rep); err != nil {
		rep.Outcome = outcomeRefused
		return exitError, err
	}
	if !a.write.apply {
		rep.Outcome = outcomePlanned
		rep.Message = "Dry run: nothing was changed. Run again with --apply to act."
		return exitProblem, nil
	}
	switch err := a.confirmWrites(rep.descriptions()); {
	case errors.Is(err, errDeclined):
		rep.Outcome = outcomeCancelled
		rep.Message = "Cancelled: nothing was changed."
		return exitProblem, nil
	case err != nil:
		rep.Outcome = outcomeRefused
		rep.Message = "Not confirmed: nothing was changed."
		return exitError, err
	}
	if err := a.applyFix(ctx, conn, rep); err != nil {
		return exitError, err
	}
	return a.afterFix(ctx, conn, rep)
}

// refuseFix settles the cases where rollback-fix writes nothing: data it
// cannot act on, nothing at risk, a KRaft controller without --force.
// stop says it did.
func (a *app) refuseFix(f fixFlags, rep *fixReport) (code int, stop bool, err error) {
	before := rep.Before
	ctl, epoch := before.Controller, before.ControllerEpoch
	switch {
	case ctl.State != stateOK && ctl.State != stateAbsent:
		rep.Outcome = outcomeRefused
		return exitError, true, fmt.Errorf("%s holds %s data (%s): cannot tell whether a KRaft controller holds it; nothing was changed", ctl.Path, ctl.State, ctl.Error)
	case before.AtRiskCount == 0 && before.UndecodableCount > 0:
		rep.Outcome = outcomeNothingToDo
		rep.Message = fmt.Sprintf("Nothing to fix among the partition states that could be read. Verdict: %s.", incompleteText(before.UndecodableCount))
		return exitProblem, true, nil
	case before.AtRiskCount == 0:
		rep.Outcome = outcomeNothingToDo
		rep.Message = "Nothing to fix: no partition is at risk."
		return exitOK, true, nil
	case epoch.State != stateOK:
		rep.Outcome = outcomeRefused
		return exitError, true, fmt.Errorf("%s does not exist, so it cannot be raised; nothing was changed", epoch.Path)
	case ctl.isKRaft() && !f.force:
		rep.Outcome = outcomeRefused
		rep.Message = fmt.Sprintf("Refused: KRaft controller %d (epoch %d) holds %s, so the migration is still driven by KRaft. "+
			"Raising %s would fence it and deleting %s would drop its registration. Stop the KRaft controllers to roll back first, "+
			"or pass --force to act anyway. Nothing was changed.",
			ctl.BrokerID, ctl.KRaftControllerEpoch, ctl.Path, epoch.Path, ctl.Path)
		return exitError, true, nil
	}
	return exitOK, false, nil
}

// planActions adds the writes that raise /controller_epoch to the highest
// stamp and force an election.
func (a *app) planActions(rep *fixReport) error {
	ctl, epoch := rep.Before.Controller, rep.Before.ControllerEpoch
	target := rep.Before.HighestStampedEpoch
	if target == math.MaxInt32 {
		return fmt.Errorf("a partition is stamped with epoch %d, the largest there is: no controller epoch can exceed it; nothing was changed", target)
	}
	from, to := epoch.Value, target
	rep.Actions = append(rep.Actions, fixAction{
		Action: "set", Path: epoch.Path, ExpectedVersion: epoch.Version, From: &from, To: &to,
		OldValue: string(znode.EncodeControllerEpoch(from)), NewValue: string(znode.EncodeControllerEpoch(to)),
		Description: fmt.Sprintf("set %s from %d to %d, if still at version %d; the next controller then gets epoch %d, above every stamp",
			epoch.Path, from, to, epoch.Version, to+1),
	})
	if ctl.State == stateOK {
		rep.Actions = append(rep.Actions, fixAction{
			Action: "delete", Path: ctl.Path, ExpectedVersion: ctl.Version, OldValue: ctl.raw,
			Description: fmt.Sprintf("delete %s (%s), if still at version %d, to force a controller election",
				ctl.Path, ctl.who(), ctl.Version),
		})
	}
	return nil
}

// descriptions are the planned writes, one line each.
func (rep *fixReport) descriptions() []string {
	out := make([]string, len(rep.Actions))
	for i, act := range rep.Actions {
		out[i] = act.Description
	}
	return out
}

// afterFix checks again after the writes.
func (a *app) afterFix(ctx context.Context, conn *zk.Conn, rep *fixReport) (int, error) {
	rep.Outcome = outcomeApplied
	after, err := a.check(ctx, conn)
	if err != nil {
		return exitError, fmt.Errorf("applied, but the check afterwards failed: %w", err)
	}
	rep.After = &after
	switch {
	case after.AtRiskCount > 0:
		rep.Message = "Applied, but partitions are still at risk: they were stamped meanwhile. Run rollback-fix again."
		return exitProblem, nil
	case after.UndecodableCount > 0:
		rep.Message = fmt.Sprintf("Applied, but the check is %s.", incompleteText(after.UndecodableCount))
		return exitProblem, nil
	}
	rep.Message = "Applied."
	return exitOK, nil
}

// applyFix performs the planned writes in order, each announced on
// stderr before it is sent and its result after. It first makes sure the
// delete of /controller will be allowed, so that a missing permission
// stops it before the first write rather than between the two.
func (a *app) applyFix(ctx context.Context, conn *zk.Conn, rep *fixReport) error {
	if len(rep.Actions) > 1 {
		w, err := a.newWriter(conn)
		if err != nil {
			return err
		}
		pctx, cancel := a.step(ctx)
		err = w.CheckDeletable(pctx, znode.ControllerPath)
		cancel()
		if err != nil {
			return fmt.Errorf("probe delete %s: %w; nothing was changed", rep.Actions[1].Path, err)
		}
	}
	if err := a.applySet(ctx, conn, rep); err != nil {
		return err
	}
	if len(rep.Actions) < 2 {
		return nil
	}
	return a.applyDelete(ctx, conn, rep)
}

// announce writes the start of write i of rep on stderr.
func (a *app) announce(rep *fixReport, i int) {
	act := rep.Actions[i]
	switch act.Action {
	case "set":
		fmt.Fprintf(a.stderr, "write %d/%d: set %s at version %d from %q to %q\n", i+1, len(rep.Actions), act.Path, act.ExpectedVersion, act.OldValue, act.NewValue)
	default:
		fmt.Fprintf(a.stderr, "write %d/%d: delete %s at version %d, holding %q\n", i+1, len(rep.Actions), act.Path, act.ExpectedVersion, act.OldValue)
	}
}

// report writes the result of write i of rep on stderr.
func (a *app) report(rep *fixReport, i int, err error) {
	if err != nil {
		_, msg := describe(err)
		fmt.Fprintf(a.stderr, "write %d/%d: failed: %s\n", i+1, len(rep.Actions), msg)
		return
	}
	fmt.Fprintf(a.stderr, "write %d/%d: %s\n", i+1, len(rep.Actions), rep.Actions[i].Result)
}

// applySet raises /controller_epoch, the first action.
func (a *app) applySet(ctx context.Context, conn *zk.Conn, rep *fixReport) (err error) {
	set := &rep.Actions[0]
	a.announce(rep, 0)
	defer func() { a.report(rep, 0, err) }()
	w, err := a.newWriter(conn)
	if err != nil {
		return err
	}
	sctx, cancel := a.step(ctx)
	res, err := w.ConditionalUpdate(sctx, znode.ControllerEpochPath, znode.EncodeControllerEpoch(*set.To),
		set.ExpectedVersion, checker.ControllerEpoch{})
	cancel()
	var conflict *migrationzk.ConflictError
	switch {
	case errors.As(err, &conflict):
		return fmt.Errorf("%s changed since it was read (now version %d, %q): a controller was elected meanwhile. Nothing was changed; run rollback-fix again",
			set.Path, conflict.CurrentVersion, rawText(conflict.CurrentData))
	case err != nil:
		return fmt.Errorf("set %s: %w; nothing was changed", set.Path, err)
	}
	set.Done, set.Result = true, fmt.Sprintf("ok, now version %d", res.Version)
	if res.Recovered {
		set.Result = fmt.Sprintf("recovered: the acknowledgement was lost and a reread showed the write at version %d", res.Version)
	}
	return nil
}

// applyDelete deletes /controller, the second action.
func (a *app) applyDelete(ctx context.Context, conn *zk.Conn, rep *fixReport) (err error) {
	set, del := &rep.Actions[0], &rep.Actions[1]
	a.announce(rep, 1)
	defer func() { a.report(rep, 1, err) }()
	w, err := a.newWriter(conn)
	if err != nil {
		return err
	}
	dctx, cancel := a.step(ctx)
	res, err := w.ConditionalDelete(dctx, znode.ControllerPath, del.ExpectedVersion)
	cancel()
	var conflict *migrationzk.ConflictError
	if errors.As(err, &conflict) {
		return a.replaced(ctx, conn, set, del, conflict)
	}
	if err != nil {
		return fmt.Errorf("%s was raised, but deleting %s failed: %w; run rollback-fix again", set.Path, del.Path, err)
	}
	del.Done, del.Result = true, "ok"
	switch {
	case res.Recovered:
		del.Result = "recovered: the acknowledgement was lost and a reread showed the znode gone"
	case res.AlreadyGone:
		del.Result = "ok: the znode was already gone"
	}
	return nil
}

// replaced settles a delete of /controller that found it replaced since it
// was read. A controller elected after the raise has a greater epoch than
// every stamp: then the election the delete would force has happened.
func (a *app) replaced(ctx context.Context, conn *zk.Conn, set, del *fixAction, conflict *migrationzk.ConflictError) error {
	rctx, cancel := a.step(ctx)
	cur, rerr := a.readZnode(rctx, conn, znode.ControllerEpochPath)
	cancel()
	if rerr == nil && cur.Exists {
		if e, derr := znode.DecodeControllerEpoch(cur.Data); derr == nil && e > *set.To {
			del.Done, del.Result = true, fmt.Sprintf("replaced: a controller was elected meanwhile with epoch %d", e)
			return nil
		}
	}
	return fmt.Errorf("%s was raised, but %s changed since it was read (now version %d): run rollback-fix again", set.Path, del.Path, conflict.CurrentVersion)
}
