package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// repairReport is the output of repair-null-migration.
type repairReport struct {
	header
	DryRun bool `json:"dry_run"`
	// Outcome is "nothing_to_do", "planned" (a dry run found null data),
	// "applied", "refused" (the data is not null and does not decode, or
	// the writes were not confirmed off a terminal) or "cancelled" (the
	// operator said no).
	Outcome string        `json:"outcome"`
	Message string        `json:"message"`
	Before  migrationView `json:"before"`
	// After is /migration after the repair.
	After *migrationView `json:"after,omitempty"`
	Error string         `json:"error,omitempty"`
	// ErrorKind is the error's kind, as in errorReport.
	ErrorKind string `json:"error_kind,omitempty"`
}

// setupRepair returns what runs repair-null-migration; --apply and --yes
// are every writing command's (writeFlags).
func setupRepair(a *app, _ *flag.FlagSet) func(context.Context, *zk.Conn) int {
	return func(ctx context.Context, conn *zk.Conn) int { return a.repair(ctx, conn, a.write.apply) }
}

func (a *app) repair(ctx context.Context, conn *zk.Conn, apply bool) int {
	path := a.path(znode.MigrationPath)
	rctx, cancel := a.step(ctx)
	cur, err := a.readZnode(rctx, conn, znode.MigrationPath)
	cancel()
	if err != nil {
		return a.fail(err)
	}
	r := repairReport{header: a.header(), DryRun: !apply, Before: viewMigration(path, cur)}
	initial := znode.InitialMigration().Encode()

	code := exitOK
	switch r.Before.State {
	case stateAbsent:
		r.Outcome = outcomeNothingToDo
		r.Message = fmt.Sprintf("Nothing to repair: %s does not exist (Kafka creates it when a migration starts).", path)
	case stateOK:
		r.Outcome = outcomeNothingToDo
		r.Message = fmt.Sprintf("Nothing to repair: %s holds a valid checkpoint.", path)
	case stateUndecodable:
		r.Outcome = outcomeRefused
		r.Message = fmt.Sprintf("Refused: %s holds data that is not null and does not decode (%s). It is left alone: "+
			"it may be a checkpoint in a format this tool does not know, and overwriting it could lose the migration's position. Fix it by hand.",
			path, r.Before.Error)
		code = exitError
	default: // null or empty
		if !apply {
			r.Outcome = outcomePlanned
			r.Message = fmt.Sprintf("Dry run: %s holds %s data at version %d, which Kafka 3.9 cannot parse (it retries forever). "+
				"With --apply it is overwritten with the initial state %s, if still at version %d, as Kafka's fix does. Nothing was changed.",
				path, r.Before.State, r.Before.Version, initial, r.Before.Version)
			code = exitProblem
			break
		}
		code = a.confirmRepair(ctx, conn, &r)
	}
	if a.json() {
		a.emitJSON(r)
		return code
	}
	a.printHeader()
	w := labelWidth(path)
	a.field(w, path, describeMigration(r.Before)...)
	a.printf("\n%s\n", r.Message)
	if r.After != nil {
		a.printf("\n")
		a.field(w, path, describeMigration(*r.After)...)
	}
	return code
}

// confirmRepair asks, by the rule of every writing command, before
// repairApply writes.
func (a *app) confirmRepair(ctx context.Context, conn *zk.Conn, r *repairReport) int {
	write := fmt.Sprintf("set %s from %s data to the initial state %s, if still at version %d",
		r.Before.Path, r.Before.State, znode.InitialMigration().Encode(), r.Before.Version)
	switch err := a.confirmWrites([]string{write}); {
	case errors.Is(err, errDeclined):
		r.Outcome = outcomeCancelled
		r.Message = fmt.Sprintf("Cancelled: nothing was changed. The plan: %s.", write)
		return exitProblem
	case err != nil:
		r.Outcome = outcomeRefused
		r.ErrorKind, r.Error = a.warn(err)
		r.Message = fmt.Sprintf("Not confirmed: nothing was changed. The plan: %s.", write)
		return exitError
	}
	return a.repairApply(ctx, conn, r)
}

// repairApply overwrites a null /migration the way Writer.GetOrCreate does.
func (a *app) repairApply(ctx context.Context, conn *zk.Conn, r *repairReport) int {
	w, err := a.newWriter(conn)
	if err != nil {
		r.Error, r.Message = err.Error(), fmt.Sprintf("Failed: %v", err)
		return exitError
	}
	fmt.Fprintf(a.stderr, "write 1/1: set %s at version %d from %s data to %q\n", r.Before.Path, r.Before.Version, r.Before.State, znode.InitialMigration().Encode())
	wctx, cancel := a.step(ctx)
	s, res, err := w.GetOrCreate(wctx, migrationzk.InitialState())
	cancel()
	a.reportRepair(s, res, err)
	var de *migrationzk.DecodeError
	switch {
	case errors.As(err, &de):
		// Someone wrote data that does not decode since it was read.
		r.Outcome = outcomeRefused
		r.Error = err.Error()
		r.Message = fmt.Sprintf("Refused: %s changed meanwhile and now holds data that does not decode; it is left alone.", r.Before.Path)
		return exitError
	case err != nil:
		r.ErrorKind, r.Error = a.warn(err)
		r.Message = fmt.Sprintf("Failed: %v", r.Error)
		return exitError
	}
	rctx, cancel := a.step(ctx)
	cur, err := a.readZnode(rctx, conn, znode.MigrationPath)
	cancel()
	if err == nil {
		after := viewMigration(r.Before.Path, cur)
		r.After = &after
	}
	r.Outcome = outcomeApplied
	if !res.Wrote() {
		r.Outcome = outcomeNothingToDo
		r.Message = fmt.Sprintf("Nothing written: %s was repaired by someone else meanwhile and holds a valid checkpoint.", r.Before.Path)
		return exitOK
	}
	r.Message = fmt.Sprintf("Repaired: %s holds the initial state; a KRaft controller can now read it and start the migration.", r.Before.Path)
	return exitOK
}

// reportRepair writes the result of the repair's write on stderr: what
// GetOrCreate says it did, and the State it returned.
func (a *app) reportRepair(s migrationzk.State, res migrationzk.GetOrCreateResult, err error) {
	switch {
	case err != nil:
		_, msg := describe(err)
		fmt.Fprintf(a.stderr, "write 1/1: failed: %s\n", msg)
	case !res.Wrote():
		fmt.Fprintf(a.stderr, "write 1/1: not sent: the znode was repaired meanwhile\n")
	case s.Recovered:
		fmt.Fprintf(a.stderr, "write 1/1: recovered: the acknowledgement was lost and a reread showed the write at version %d\n", s.MigrationZkVersion)
	default:
		fmt.Fprintf(a.stderr, "write 1/1: ok, now version %d\n", s.MigrationZkVersion)
	}
}
