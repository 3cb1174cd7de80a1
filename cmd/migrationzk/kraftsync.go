package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// kraftSyncFlags are kraft sync's own flags; --apply and --yes are every
// writing command's (writeFlags).
type kraftSyncFlags struct {
	clusterID    string
	controllerID int32
	force        bool
}

// kraftSyncReport is the output of kraft sync.
type kraftSyncReport struct {
	header
	writeOutcome
	// Metadata is the directory synced from; Voters every directory
	// given, the chosen one first.
	Metadata string      `json:"metadata"`
	Voters   []voterView `json:"voters"`
	// Image is KRaft's image at the end of the chosen directory.
	Image      replayView     `json:"image"`
	ClusterID  clusterIDView  `json:"cluster_id"`
	Migration  migrationView  `json:"migration"`
	Controller controllerView `json:"controller"`
	// Refusals are the reasons nothing is written; empty when none.
	Refusals []refusal `json:"refusals"`
	// Claim is the leadership claim the sync writes under.
	Claim *claimView `json:"claim,omitempty"`
	// Changes are the changes that make ZooKeeper hold KRaft's image,
	// as diff reports them (from live to the metadata).
	Changes []dualwrite.Change           `json:"changes"`
	Counts  map[dualwrite.ChangeKind]int `json:"counts"`
	Skipped []undecodableView            `json:"skipped"`
	// Steps are the writes, in order, each with whether it was done.
	Steps []syncStep `json:"steps"`
	// Before and After are rollback-check's reports.
	Before *checkReport `json:"before,omitempty"`
	After  *checkReport `json:"after,omitempty"`
	// plan is what Changes and Skipped report.
	plan dualwrite.Plan
}

// claimView is the leadership claim of kraft sync.
type claimView struct {
	ControllerID int32  `json:"controller_id"`
	IDFrom       string `json:"controller_id_from"`
	// KRaftEpoch is one above every epoch found: in the metadata, in
	// /controller, in /migration, and at least the highest stamped on a
	// partition state.
	KRaftEpoch int32  `json:"kraft_epoch"`
	EpochFrom  string `json:"kraft_epoch_from"`
	// ControllerEpoch is what /controller_epoch becomes:
	// max(current + 1, KRaftEpoch), rollback-safe.
	ControllerEpoch int32 `json:"controller_epoch"`
}

// syncStep is one step of kraft sync's writes.
type syncStep struct {
	// Step is "claim", "sync" or "release".
	Step        string `json:"step"`
	Description string `json:"description"`
	Done        bool   `json:"done"`
	Result      string `json:"result,omitempty"`
}

// setupKRaftSync registers kraft sync's flags and returns what runs it.
func setupKRaftSync(a *app, fs *flag.FlagSet) sessionCommand {
	var f kraftSyncFlags
	fs.StringVar(&f.clusterID, "cluster-id", "", "the `id` of the cluster the metadata is of, the cluster.id of the KRaft controllers' meta.properties, "+
		"for metadata without meta.properties (a single file, a copied directory); checked against /cluster/id")
	id := wholeFlag{max: math.MaxInt32, what: "a KRaft controller's id"}
	fs.Var(&id, "controller-id", "the `id` of the KRaft controller to claim leadership as (default: the last leader the metadata names)")
	fs.BoolVar(&f.force, "force", false, "act although /controller names a KRaft controller: only once every KRaft controller is stopped")
	checkArgs := func(args []string) error {
		f.controllerID = -1
		if id.set {
			f.controllerID = int32(id.n)
		}
		return metadataPaths(args)
	}
	return sessionCommand{args: checkArgs, run: func(ctx context.Context, conn *zk.Conn, args []string) int {
		return a.kraftSync(ctx, conn, args, f)
	}}
}

// metadataPaths checks kraft sync's arguments: one metadata directory or
// more, one per voter.
func metadataPaths(args []string) error {
	if len(args) == 0 {
		return oneMetadataPath(args)
	}
	return nil
}

// kraftSync makes ZooKeeper hold KRaft's image, as planned and confirmed.
func (a *app) kraftSync(ctx context.Context, conn *zk.Conn, paths []string, f kraftSyncFlags) int {
	rep := kraftSyncReport{header: a.header(), writeOutcome: writeOutcome{DryRun: !a.write.apply, Force: f.force}, Refusals: []refusal{}, Voters: []voterView{},
		Changes: []dualwrite.Change{}, Counts: map[dualwrite.ChangeKind]int{}, Skipped: []undecodableView{}, Steps: []syncStep{}}
	src, voters, err := readVoters(ctx, paths)
	if err != nil {
		return a.fail(err)
	}
	rep.Metadata, rep.Voters, rep.Image = src.path, voters, viewReplay(src.result)
	code, err := a.planKRaftSync(ctx, conn, src, f, &rep)
	if err != nil {
		rep.ErrorKind, rep.Error = a.warn(err)
	}
	if a.json() {
		a.emitJSON(rep)
		return code
	}
	a.printKRaftSync(rep, err != nil)
	return code
}

// planKRaftSync decides what kraft sync does, does it unless it is a dry
// run, refused or declined, and checks again afterwards.
func (a *app) planKRaftSync(ctx context.Context, conn *zk.Conn, src kraftSource, f kraftSyncFlags, rep *kraftSyncReport) (int, error) {
	in, err := a.syncInputs(ctx, conn, src, f)
	if err != nil {
		return exitError, err
	}
	rep.Migration, rep.Controller = in.control.migration, in.control.controller
	refusals, ids := in.refusals()
	rep.ClusterID = ids
	if len(refusals) > 0 {
		rep.Refusals, rep.Outcome = refusals, outcomeRefused
		rep.Message = "Refused: nothing was written."
		return exitError, nil
	}
	before, err := a.check(ctx, conn)
	if err != nil {
		return exitError, err
	}
	rep.Before = &before
	rep.Claim = in.claim(before)
	desired := in.desired()
	var plan dualwrite.Plan
	err = a.watching(ctx, conn, func(rctx context.Context, watched *watchedConn) error {
		var err error
		plan, err = a.planSync(rctx, watched, desired)
		return err
	})
	if err != nil {
		return exitError, err
	}
	rep.setPlan(plan, in, a)
	if rep.nothingToDo(plan, src) {
		rep.Claim, rep.Steps = nil, []syncStep{}
		rep.Outcome, rep.Message = outcomeNothingToDo, "Nothing to do: ZooKeeper holds KRaft's image, /migration its offset, no controller is registered and a rollback is safe."
		return exitOK, nil
	}
	return a.applyKRaftSync(ctx, conn, in, desired, rep)
}

// syncInputs reads the control znodes and /cluster/id.
func (a *app) syncInputs(ctx context.Context, conn *zk.Conn, src kraftSource, f kraftSyncFlags) (syncInputs, error) {
	in := syncInputs{src: src, flags: f, encoder: a.passwords != nil}
	var err error
	if in.control, err = a.readControl(ctx, conn); err != nil {
		return in, err
	}
	rctx, cancel := a.step(ctx)
	defer cancel()
	in.clusterID, err = a.readZnode(rctx, conn, "/cluster/id")
	return in, err
}

// claim is the leadership claim kraft sync makes: as the controller the
// flags or the metadata name, with a KRaft epoch one above every epoch
// found, and at least every stamp on a partition state, so that
// /controller_epoch, raised rollback-safe, ends at or above them all.
func (in syncInputs) claim(before checkReport) *claimView {
	id, from, _ := in.controllerID()
	meta := in.src.highestEpoch()
	ctl, m := in.control.controller, in.control.migration
	highest := meta
	if ctl.State == stateOK {
		highest = max(highest, ctl.KRaftControllerEpoch)
	}
	if cp := m.Checkpoint; m.State == stateOK && cp != nil {
		highest = max(highest, cp.KRaftControllerEpoch, cp.KRaftMetadataEpoch)
	}
	epoch := max(highest+1, before.HighestStampedEpoch)
	c := &claimView{ControllerID: id, IDFrom: from, KRaftEpoch: epoch,
		EpochFrom: fmt.Sprintf("one above the highest epoch the metadata (%d), %s and %s name (%d), and at least the highest stamped on a partition state (%d)",
			meta, ctl.Path, m.Path, highest, before.HighestStampedEpoch),
		ControllerEpoch: max(in.control.epoch.Value+1, epoch)}
	return c
}

// desired is KRaft's image as Sync writes it: password configs in plain
// text, to be encoded by the Client's password encoder.
func (in syncInputs) desired() dualwrite.Image {
	img := in.src.result.Image
	if in.encoder {
		img.Secrets = dualwrite.SecretsPlain
	}
	return img
}

// planSync reads ZooKeeper's image through conn and plans what makes it
// hold desired.
func (a *app) planSync(ctx context.Context, conn *watchedConn, desired dualwrite.Image) (dualwrite.Plan, error) {
	w, err := a.newWriter(conn)
	if err != nil {
		return dualwrite.Plan{}, err
	}
	c, err := dualwrite.New(w, a.clientOptions()...)
	if err != nil {
		return dualwrite.Plan{}, err
	}
	bar := &readBar{a: a}
	defer bar.finish()
	live, err := c.Read(ctx, bar.update)
	if err != nil {
		return dualwrite.Plan{}, fmt.Errorf("read %s: %w", a.rootName(), err)
	}
	return dualwrite.Diff(live, desired), nil
}

// setPlan records plan and the steps that write it.
func (rep *kraftSyncReport) setPlan(plan dualwrite.Plan, in syncInputs, a *app) {
	rep.plan, rep.Changes, rep.Counts = plan, plan.Changes, plan.Counts()
	if rep.Changes == nil {
		rep.Changes = []dualwrite.Change{}
	}
	for _, s := range plan.Skipped {
		rep.Skipped = append(rep.Skipped, undecodableView{Path: s.Path, Error: errorText(s.Err)})
	}
	c, r := rep.Claim, in.src.result
	ctl := "create " + a.path(znode.ControllerPath)
	if in.control.controller.State == stateOK {
		ctl = fmt.Sprintf("replace %s (%s)", a.path(znode.ControllerPath), in.control.controller.who())
	}
	rep.Steps = []syncStep{
		{Step: "claim", Description: fmt.Sprintf("claim leadership as KRaft controller %d with KRaft epoch %d: raise %s from %d to %d and %s, persistent, in one transaction",
			c.ControllerID, c.KRaftEpoch, a.path(znode.ControllerEpochPath), in.control.epoch.Value, c.ControllerEpoch, ctl)},
		{Step: "sync", Description: fmt.Sprintf("write %s to make ZooKeeper hold KRaft's image at offset %d, then %s at offset %d, metadata epoch %d, under that claim",
			pluralVerb(len(plan.Changes), "change", "changes"), r.Offset, a.path(znode.MigrationPath), r.Offset, r.Epoch)},
		{Step: "release", Description: fmt.Sprintf("release leadership: delete %s, so that a ZooKeeper-mode broker can be elected", a.path(znode.ControllerPath))},
	}
}

// nothingToDo reports whether ZooKeeper already holds what kraft sync
// would write, and a rollback is safe.
func (rep *kraftSyncReport) nothingToDo(plan dualwrite.Plan, src kraftSource) bool {
	m := rep.Migration
	return plan.Empty() && m.State == stateOK && m.Checkpoint.KRaftMetadataOffset == src.result.Offset &&
		m.Checkpoint.KRaftMetadataEpoch == src.result.Epoch && rep.Controller.State == stateAbsent &&
		rep.Before != nil && rep.Before.Verdict == verdictSafe
}

// descriptions are the planned writes, one line each.
func (rep *kraftSyncReport) descriptions() []string {
	out := make([]string, len(rep.Steps))
	for i, s := range rep.Steps {
		out[i] = s.Description
	}
	return out
}

// applyKRaftSync confirms and writes: the claim, the sync, the release;
// then checks as rollback-check does.
func (a *app) applyKRaftSync(ctx context.Context, conn *zk.Conn, in syncInputs, desired dualwrite.Image, rep *kraftSyncReport) (int, error) {
	if !a.write.apply {
		rep.Outcome, rep.Message = outcomePlanned, "Dry run: nothing was written. Run again with --apply to act."
		return exitProblem, nil
	}
	switch err := a.confirmWrites(rep.descriptions()); {
	case errors.Is(err, errDeclined):
		rep.Outcome, rep.Message = outcomeCancelled, "Cancelled: nothing was written."
		return exitProblem, nil
	case err != nil:
		rep.Outcome, rep.Message = outcomeRefused, "Not confirmed: nothing was written."
		return exitError, err
	}
	if err := a.watching(ctx, conn, func(rctx context.Context, watched *watchedConn) error {
		return a.writeKRaftSync(rctx, watched, in, desired, rep)
	}); err != nil {
		return exitError, err
	}
	rep.Outcome = outcomeApplied
	after, err := a.check(ctx, conn)
	if err != nil {
		return exitError, fmt.Errorf("applied, but the check afterwards failed: %w", err)
	}
	rep.After = &after
	if after.Verdict != verdictSafe {
		rep.Message = fmt.Sprintf("Applied, but rollback-check's verdict is %s: partitions were stamped meanwhile, or do not decode. Run rollback-check.", after.Verdict)
		return exitProblem, nil
	}
	rep.Message = "Applied: ZooKeeper holds KRaft's image, and a rollback to ZooKeeper mode is safe."
	return exitOK, nil
}

// writeKRaftSync claims leadership as rep.Claim says, syncs desired with
// /migration at its offset and epoch, and releases leadership; after a
// claim, leadership is released even when the sync fails.
func (a *app) writeKRaftSync(ctx context.Context, conn *watchedConn, in syncInputs, desired dualwrite.Image, rep *kraftSyncReport) (err error) {
	w, err := migrationzk.New(conn, append(a.writeOpts(), migrationzk.WithRollbackSafeEpochs())...)
	if err != nil {
		return fmt.Errorf("migrationzk: %w", err)
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = rep.Claim.ControllerID, rep.Claim.KRaftEpoch
	claim, sync, release := &rep.Steps[0], &rep.Steps[1], &rep.Steps[2]
	a.announceStep(claim)
	if s, err = w.ClaimLeadership(ctx, s); err != nil {
		return a.stepFailed(claim, fmt.Errorf("claim leadership: %w; nothing was written", err))
	}
	a.stepDone(claim, fmt.Sprintf("ok, %s now %d", a.path(znode.ControllerEpochPath), s.ZkControllerEpoch))
	a.announceStep(sync)
	s, syncErr := a.syncImage(ctx, w, s, in, desired, sync)
	if errors.Is(syncErr, migrationzk.ErrFenced) {
		return fmt.Errorf("the sync was fenced: another controller claimed leadership meanwhile, and owns ZooKeeper now: %w", syncErr)
	}
	a.announceStep(release)
	if _, err := w.ReleaseLeadership(ctx, s); err != nil {
		return errors.Join(syncErr, a.stepFailed(release, fmt.Errorf("release leadership: %w; %s still names KRaft controller %d: run kraft sync again, or delete it once sure no controller runs",
			err, a.path(znode.ControllerPath), rep.Claim.ControllerID)))
	}
	a.stepDone(release, "ok")
	if syncErr != nil {
		return fmt.Errorf("%w; leadership was released: run kraft sync again to finish", syncErr)
	}
	return nil
}

// syncImage writes desired under the claim s, /migration at the image's
// offset and epoch.
func (a *app) syncImage(ctx context.Context, w *migrationzk.Writer, s migrationzk.State, in syncInputs, desired dualwrite.Image, step *syncStep) (migrationzk.State, error) {
	var err error
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		return s, a.stepFailed(step, fmt.Errorf("read %s: %w", a.path(znode.MigrationPath), err))
	}
	c, err := dualwrite.New(w, a.clientOptions()...)
	if err != nil {
		return s, err
	}
	r := in.src.result
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = r.Offset, r.Epoch
	bar := &readBar{a: a}
	s, srep, err := c.Sync(ctx, s, desired, dualwrite.WithReadProgress(bar.update))
	bar.finish()
	if err != nil {
		return s, a.stepFailed(step, fmt.Errorf("sync: %w", err))
	}
	a.stepDone(step, fmt.Sprintf("ok, %s written, %s at version %d", pluralVerb(len(srep.Plan.Changes), "change", "changes"), a.path(znode.MigrationPath), s.MigrationZkVersion))
	return s, nil
}

// announceStep writes the start of a step on stderr.
func (a *app) announceStep(s *syncStep) {
	fmt.Fprintf(a.stderr, "%s: %s\n", s.Step, s.Description)
}

// stepDone records a step done, on stderr too.
func (a *app) stepDone(s *syncStep, result string) {
	s.Done, s.Result = true, result
	fmt.Fprintf(a.stderr, "%s: %s\n", s.Step, result)
}

// stepFailed records a step failed, on stderr too, and returns err.
func (a *app) stepFailed(s *syncStep, err error) error {
	_, msg := describe(err)
	s.Result = "failed: " + msg
	fmt.Fprintf(a.stderr, "%s: failed: %s\n", s.Step, msg)
	return err
}

// printKRaftSync prints a kraft sync report as text.
func (a *app) printKRaftSync(rep kraftSyncReport, failed bool) {
	a.printHeader()
	ids := "unknown"
	if c := rep.ClusterID; c.Metadata != "" {
		ids = fmt.Sprintf("%s (%s); ZooKeeper's /cluster/id: %s", c.Metadata, c.Source, orNone(c.ZooKeeper))
	}
	labels := []string{"KRaft metadata", "Voters", "Cluster id", rep.Migration.Path, rep.Controller.Path}
	w := labelWidth(labels...)
	a.field(w, labels[0], append([]string{rep.Metadata}, rep.Image.describe()...)...)
	if len(rep.Voters) > 1 {
		lines := make([]string, len(rep.Voters))
		for i, v := range rep.Voters {
			lines[i] = v.Path + ": " + v.Text
		}
		a.field(w, labels[1], lines...)
	}
	a.field(w, labels[2], ids)
	if rep.Migration.Path != "" {
		a.field(w, rep.Migration.Path, describeMigration(rep.Migration)...)
		a.field(w, rep.Controller.Path, rep.Controller.describe())
	}
	if len(rep.Refusals) > 0 {
		a.printf("\nRefused, for %s:\n", pluralVerb(len(rep.Refusals), "reason", "reasons"))
		for _, r := range rep.Refusals {
			a.printf("  - %s\n", r.Text)
		}
	}
	if c := rep.Claim; c != nil {
		a.printf("\nClaim: KRaft controller %d (%s), KRaft epoch %d (%s).\n", c.ControllerID, c.IDFrom, c.KRaftEpoch, c.EpochFrom)
	}
	if rep.Before != nil {
		a.printf("Rollback check before: %s.\n", checkSummary(*rep.Before))
	}
	a.printSteps(rep, failed)
	if rep.Message != "" {
		a.printf("\n%s\n", rep.Message)
	}
	if rep.After != nil {
		a.printf("\nAfter:\n")
		a.printCheck(*rep.After)
	}
}

// printSteps prints the plan: each step, the changes below the sync.
func (a *app) printSteps(rep kraftSyncReport, failed bool) {
	if len(rep.Steps) == 0 {
		return
	}
	a.printf("\nPlan:\n")
	for i, s := range rep.Steps {
		a.printf("  %d. %s", i+1, s.Description)
		switch {
		case s.Done:
			a.printf(": done (%s)", s.Result)
		case s.Result != "":
			a.printf(": %s", s.Result)
		case rep.Outcome == outcomeApplied || (failed && !rep.DryRun):
			a.printf(": not done")
		}
		a.printf("\n")
		if s.Step == "sync" {
			for _, l := range strings.Split(strings.TrimRight(rep.plan.String(), "\n"), "\n") {
				a.printf("     %s\n", l)
			}
		}
	}
}

// checkSummary says a rollback-check verdict in one line.
func checkSummary(r checkReport) string {
	switch r.Verdict {
	case verdictSafe:
		return fmt.Sprintf("safe, no partition is stamped above %d", r.ElectionEpoch)
	case verdictAtRisk:
		return fmt.Sprintf("at risk, %s stamped above %d (highest %d); the claim's epoch takes /controller_epoch above them",
			pluralVerb(r.AtRiskCount, "partition", "partitions"), r.ElectionEpoch, r.HighestStampedEpoch)
	}
	return incompleteText(r.UndecodableCount)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
