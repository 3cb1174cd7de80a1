package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Verdicts of rollback-check.
const (
	verdictSafe   = "safe"
	verdictAtRisk = "at_risk"
)

// textListLimit is how many partitions text output lists; json lists all.
const textListLimit = 20

// checkReport is the output of rollback-check, and the before and after of
// rollback-fix.
type checkReport struct {
	header
	Controller      controllerView `json:"controller"`
	ControllerEpoch epochView      `json:"controller_epoch"`
	// NextControllerEpoch is the epoch the next ZooKeeper-mode controller
	// gets: /controller_epoch + 1 (1 when /controller_epoch is absent).
	NextControllerEpoch int32 `json:"next_controller_epoch"`
	// ElectionEpoch is the epoch leader elections run under after a
	// rollback: the sitting ZooKeeper-mode controller's (the value of
	// /controller_epoch, which it wrote when elected) when one holds
	// /controller, else NextControllerEpoch. A partition stamped with a
	// greater epoch is at risk.
	ElectionEpoch int32 `json:"election_epoch"`
	// HighestStampedEpoch is the highest controller_epoch of any partition
	// state, -1 when there is none.
	HighestStampedEpoch    int32              `json:"highest_stamped_epoch"`
	HighestStampedAt       *stampedPartition  `json:"highest_stamped_at"`
	Topics                 int                `json:"topics"`
	Partitions             int                `json:"partitions"`
	PartitionsWithoutState int                `json:"partitions_without_state"`
	AtRiskCount            int                `json:"at_risk_count"`
	AtRisk                 []stampedPartition `json:"at_risk"`
	UndecodableCount       int                `json:"undecodable_count"`
	Undecodable            []badPartition     `json:"undecodable"`
	ScanSeconds            float64            `json:"scan_seconds"`
	// Verdict is "safe" or "at_risk".
	Verdict string `json:"verdict"`
	// Remedy says what to do when at risk.
	Remedy string `json:"remedy,omitempty"`
}

func setupRollbackCheck(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	return a.rollbackCheck
}

func (a *app) rollbackCheck(ctx context.Context, conn *zk.Conn) int {
	r, err := a.check(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	code := exitOK
	if r.AtRiskCount > 0 || r.UndecodableCount > 0 {
		code = exitProblem
	}
	if a.json() {
		a.emitJSON(r)
		return code
	}
	a.printHeader()
	a.printCheck(r)
	return code
}

// electionEpochs returns the next ZooKeeper-mode controller's epoch and
// the epoch leader elections run under after a rollback.
func electionEpochs(c control) (next, election int32, err error) {
	switch c.epoch.State {
	case stateOK:
	case stateAbsent:
		// Kafka creates it holding 0 and the first controller gets 1.
		return 1, 1, nil
	default:
		return 0, 0, fmt.Errorf("%s holds %s data (%s): the next controller's epoch cannot be told; fix it by hand", c.epoch.Path, c.epoch.State, c.epoch.Error)
	}
	next = c.epoch.Value + 1
	if c.controller.isZooKeeper() {
		return next, c.epoch.Value, nil
	}
	return next, next, nil
}

// check reads the control znodes and scans every partition state.
func (a *app) check(ctx context.Context, conn *zk.Conn) (checkReport, error) {
	c, err := a.readControl(ctx, conn)
	if err != nil {
		return checkReport{}, err
	}
	next, election, err := electionEpochs(c)
	if err != nil {
		return checkReport{}, err
	}
	s, err := a.scan(ctx, conn, election)
	if err != nil {
		return checkReport{}, err
	}
	r := checkReport{
		header:     a.header(),
		Controller: c.controller, ControllerEpoch: c.epoch,
		NextControllerEpoch: next, ElectionEpoch: election,
		HighestStampedEpoch: s.Highest, HighestStampedAt: s.HighestAt,
		Topics: s.Topics, Partitions: s.Partitions, PartitionsWithoutState: s.WithoutState,
		AtRiskCount: len(s.AtRisk), AtRisk: s.AtRisk,
		UndecodableCount: len(s.Undecodable), Undecodable: s.Undecodable,
		ScanSeconds: s.Elapsed.Seconds(),
		Verdict:     verdictSafe,
	}
	if r.AtRiskCount > 0 {
		r.Verdict = verdictAtRisk
		r.Remedy = fmt.Sprintf("Raise %s to %d so that the next ZooKeeper-mode controller gets epoch %d, above every stamp, "+
			"and force a controller election by deleting %s: `%s rollback-fix` shows what it would do, and does it with --apply.",
			c.epoch.Path, s.Highest, s.Highest+1, c.controller.Path, a.commandLine())
		if c.controller.isKRaft() {
			r.Remedy = "Once the KRaft controllers are stopped, r" + r.Remedy[1:]
		}
	}
	return r, nil
}

// commandLine is how to run this tool against the same ZooKeeper.
func (a *app) commandLine() string {
	s := "migrationzk --zk " + a.g.zk
	if a.g.root != "" {
		s += " --root " + a.g.root
	}
	return s
}

func (a *app) printHeader() {
	root := a.g.root
	if root == "" {
		root = "none"
	}
	a.printf("ZooKeeper %s, root %s\n\n", a.g.zk, root)
}

// printCheck prints a check report as text.
func (a *app) printCheck(r checkReport) {
	w := labelWidth(r.Controller.Path, r.ControllerEpoch.Path)
	a.field(w, r.Controller.Path, r.Controller.describe())
	a.field(w, r.ControllerEpoch.Path, r.ControllerEpoch.describe())
	a.printf("\nScanned %s and %s in %s", pluralVerb(r.Topics, "topic", "topics"), pluralVerb(r.Partitions, "partition state", "partition states"),
		(time.Duration(r.ScanSeconds * float64(time.Second))).Round(time.Millisecond))
	if r.PartitionsWithoutState > 0 {
		a.printf(" (%s without a state yet)", pluralVerb(r.PartitionsWithoutState, "partition", "partitions"))
	}
	a.printf(".\n")
	if r.Controller.isZooKeeper() {
		a.printf("ZooKeeper-mode broker %d is the controller, with epoch %d; leader elections run under it. The next controller would get epoch %d.\n",
			r.Controller.BrokerID, r.ElectionEpoch, r.NextControllerEpoch)
	} else {
		a.printf("The next ZooKeeper-mode controller gets epoch %d.\n", r.NextControllerEpoch)
	}
	if r.HighestStampedAt != nil {
		a.printf("Highest controller epoch stamped on a partition: %d (%s-%d).\n", r.HighestStampedEpoch, r.HighestStampedAt.Topic, r.HighestStampedAt.Partition)
	} else {
		a.printf("No partition state carries a controller epoch.\n")
	}

	if r.AtRiskCount > 0 {
		a.printf("\nAT RISK: %s stamped with a controller epoch above %d. After a rollback to ZooKeeper mode their leader election aborts (\"written by another controller\") and they stay offline:\n",
			pluralVerb(r.AtRiskCount, "partition is", "partitions are"), r.ElectionEpoch)
		for i, p := range r.AtRisk {
			if i == textListLimit {
				a.printf("  ... and %s more (--output json lists them all)\n", commas(r.AtRiskCount-textListLimit))
				break
			}
			a.printf("  %s-%d  controller_epoch %d\n", p.Topic, p.Partition, p.ControllerEpoch)
		}
	}
	if r.UndecodableCount > 0 {
		a.printf("\n%s; check by hand:\n", pluralVerb(r.UndecodableCount,
			"partition state does not decode and was skipped", "partition states do not decode and were skipped"))
		for i, b := range r.Undecodable {
			if i == textListLimit {
				a.printf("  ... and %s more (--output json lists them all)\n", commas(r.UndecodableCount-textListLimit))
				break
			}
			if b.Data == "" {
				a.printf("  %s: %s\n", b.Path, b.Error)
			} else {
				a.printf("  %s: %s (data: %q)\n", b.Path, b.Error, b.Data)
			}
		}
	}
	if r.AtRiskCount > 0 {
		a.printf("\nVerdict: at risk. %s\n", r.Remedy)
	} else {
		a.printf("\nVerdict: safe. No partition is stamped with a controller epoch above %d; a rollback to ZooKeeper mode leaves none offline.\n", r.ElectionEpoch)
	}
}

// Outcomes of rollback-fix.
const (
	outcomeNothingToDo = "nothing_to_do"
	outcomePlanned     = "planned"
	outcomeApplied     = "applied"
	outcomeRefused     = "refused"
)

// fixAction is one write of rollback-fix.
type fixAction struct {
	// Action is "set" or "delete".
	Action          string `json:"action"`
	Path            string `json:"path"`
	ExpectedVersion int32  `json:"expected_version"`
	// From and To are the epochs of a set of /controller_epoch.
	From        *int32 `json:"from,omitempty"`
	To          *int32 `json:"to,omitempty"`
	Description string `json:"description"`
	Done        bool   `json:"done"`
	// Result says how it went: "ok", "recovered" (the acknowledgement was
	// lost but the write landed), "already gone", "replaced".
	Result string `json:"result,omitempty"`
}

// fixReport is the output of rollback-fix.
type fixReport struct {
	header
	DryRun bool `json:"dry_run"`
	Force  bool `json:"force"`
	// Outcome is "nothing_to_do", "planned" (a dry run with work to do),
	// "applied" or "refused".
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	// Error is why the command stopped, when it failed.
	Error   string       `json:"error,omitempty"`
	Before  *checkReport `json:"before,omitempty"`
	Actions []fixAction  `json:"actions"`
	After   *checkReport `json:"after,omitempty"`
}

type fixFlags struct {
	apply, force bool
}

func setupRollbackFix(a *app, fs *flag.FlagSet) func(context.Context, *zk.Conn) int {
	var f fixFlags
	fs.BoolVar(&f.apply, "apply", false, "act; without it nothing is written and the plan is shown")
	fs.BoolVar(&f.force, "force", false, "act even though a KRaft controller holds /controller (it is fenced and its registration deleted)")
	return func(ctx context.Context, conn *zk.Conn) int { return a.rollbackFix(ctx, conn, f) }
}

func (a *app) rollbackFix(ctx context.Context, conn *zk.Conn, f fixFlags) int {
	rep := fixReport{header: a.header(), DryRun: !f.apply, Force: f.force, Actions: []fixAction{}}
	before, err := a.check(ctx, conn)
	if err != nil {
		return a.fail(err)
	}
	rep.Before = &before
	code, err := a.planFix(ctx, conn, f, &rep)
	if err != nil {
		// The report still says what was done before the error.
		a.warn(err)
		rep.Error = err.Error()
	}
	if a.json() {
		a.emitJSON(rep)
		return code
	}
	a.printHeader()
	a.printCheck(before)
	if len(rep.Actions) > 0 {
		a.printf("\nPlan:\n")
		for i, act := range rep.Actions {
			a.printf("  %d. %s", i+1, act.Description)
			switch {
			case act.Done:
				a.printf(": done (%s)", act.Result)
			case rep.Outcome == outcomeApplied || (err != nil && !rep.DryRun):
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
	return code
}

// planFix decides what rollback-fix does, does it unless it is a dry run,
// and checks again afterwards.
func (a *app) planFix(ctx context.Context, conn *zk.Conn, f fixFlags, rep *fixReport) (int, error) {
	before := rep.Before
	ctl, epoch := before.Controller, before.ControllerEpoch
	if ctl.State != stateOK && ctl.State != stateAbsent {
		rep.Outcome = outcomeRefused
		return exitError, fmt.Errorf("%s holds %s data (%s): cannot tell whether a KRaft controller holds it; nothing was changed", ctl.Path, ctl.State, ctl.Error)
	}
	if before.AtRiskCount == 0 {
		rep.Outcome = outcomeNothingToDo
		rep.Message = "Nothing to fix: no partition is at risk."
		return exitOK, nil
	}
	if epoch.State != stateOK {
		rep.Outcome = outcomeRefused
		return exitError, fmt.Errorf("%s does not exist, so it cannot be raised; nothing was changed", epoch.Path)
	}
	if ctl.isKRaft() && !f.force {
		rep.Outcome = outcomeRefused
		rep.Message = fmt.Sprintf("Refused: KRaft controller %d (epoch %d) holds %s, so the migration is still driven by KRaft. "+
			"Raising %s would fence it and deleting %s would drop its registration. Stop the KRaft controllers to roll back first, "+
			"or pass --force to act anyway. Nothing was changed.",
			ctl.BrokerID, ctl.KRaftControllerEpoch, ctl.Path, epoch.Path, ctl.Path)
		return exitError, nil
	}

	target := before.HighestStampedEpoch
	if target == math.MaxInt32 {
		rep.Outcome = outcomeRefused
		return exitError, fmt.Errorf("a partition is stamped with epoch %d, the largest there is: no controller epoch can exceed it; nothing was changed", target)
	}
	from, to := epoch.Value, target
	rep.Actions = append(rep.Actions, fixAction{
		Action: "set", Path: epoch.Path, ExpectedVersion: epoch.Version, From: &from, To: &to,
		Description: fmt.Sprintf("set %s from %d to %d, if still at version %d; the next controller then gets epoch %d, above every stamp",
			epoch.Path, from, to, epoch.Version, to+1),
	})
	if ctl.State == stateOK {
		rep.Actions = append(rep.Actions, fixAction{
			Action: "delete", Path: ctl.Path, ExpectedVersion: ctl.Version,
			Description: fmt.Sprintf("delete %s (%s), if still at version %d, to force a controller election",
				ctl.Path, ctl.who(), ctl.Version),
		})
	}
	if !f.apply {
		rep.Outcome = outcomePlanned
		rep.Message = "Dry run: nothing was changed. Run again with --apply to act."
		return exitProblem, nil
	}

	if err := a.applyFix(ctx, conn, rep); err != nil {
		return exitError, err
	}
	rep.Outcome = outcomeApplied
	after, err := a.check(ctx, conn)
	if err != nil {
		return exitError, fmt.Errorf("applied, but the check afterwards failed: %w", err)
	}
	rep.After = &after
	if after.AtRiskCount > 0 {
		rep.Message = "Applied, but partitions are still at risk: they were stamped meanwhile. Run rollback-fix again."
		return exitProblem, nil
	}
	rep.Message = "Applied."
	return exitOK, nil
}

// applyFix performs the planned writes in order.
func (a *app) applyFix(ctx context.Context, conn *zk.Conn, rep *fixReport) error {
	set := &rep.Actions[0]
	sctx, cancel := a.step(ctx)
	var recovered atomic.Bool
	version, err := migrationzk.ConditionalUpdate(sctx, conn, znode.ControllerEpochPath, znode.EncodeControllerEpoch(*set.To),
		set.ExpectedVersion, checker.ControllerEpoch{}, a.writeOpts(&recovered)...)
	cancel()
	var conflict *migrationzk.ConflictError
	switch {
	case errors.As(err, &conflict):
		return fmt.Errorf("%s changed since it was read (now version %d, %q): a controller was elected meanwhile. Nothing was changed; run rollback-fix again",
			set.Path, conflict.CurrentVersion, rawText(conflict.CurrentData))
	case err != nil:
		return fmt.Errorf("set %s: %w", set.Path, err)
	}
	set.Done, set.Result = true, fmt.Sprintf("ok, now version %d", version)
	if recovered.Load() {
		set.Result = fmt.Sprintf("recovered: the acknowledgement was lost and a reread showed the write at version %d", version)
	}
	if len(rep.Actions) < 2 {
		return nil
	}

	del := &rep.Actions[1]
	dctx, cancel := a.step(ctx)
	recovered.Store(false)
	err = migrationzk.ConditionalDelete(dctx, conn, znode.ControllerPath, del.ExpectedVersion, a.writeOpts(&recovered)...)
	cancel()
	if errors.As(err, &conflict) {
		// /controller was replaced since it was read. A controller elected
		// after the raise has a greater epoch than every stamp: then the
		// election this step would force has happened.
		rctx, cancel := a.step(ctx)
		cur, rerr := get(rctx, conn, a.path(znode.ControllerEpochPath))
		cancel()
		if rerr == nil && cur.exists {
			if e, derr := znode.DecodeControllerEpoch(cur.data); derr == nil && e > *set.To {
				del.Done, del.Result = true, fmt.Sprintf("replaced: a controller was elected meanwhile with epoch %d", e)
				return nil
			}
		}
		return fmt.Errorf("%s was raised, but %s changed since it was read (now version %d): run rollback-fix again", set.Path, del.Path, conflict.CurrentVersion)
	}
	if err != nil {
		return fmt.Errorf("%s was raised, but deleting %s failed: %w; run rollback-fix again", set.Path, del.Path, err)
	}
	del.Done, del.Result = true, "ok"
	if recovered.Load() {
		del.Result = "recovered: the acknowledgement was lost and a reread showed the znode gone"
	}
	return nil
}
