package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/kraftdiff"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Kinds of divergence in kraft diff's output.
const (
	divergenceEqual     = "equal"
	divergenceDivergent = "divergent"
)

// kraftDiffReport is the output of kraft diff.
type kraftDiffReport struct {
	header
	// Metadata is the metadata directory or file given.
	Metadata  string        `json:"metadata"`
	Migration migrationView `json:"migration"`
	// At is the offset compared at: /migration's, or --at's when AtGiven.
	At      int64 `json:"at"`
	AtGiven bool  `json:"at_given"`
	// Warning says why a comparison at --at may mislead.
	Warning string `json:"warning,omitempty"`
	// Image is KRaft's image at At.
	Image replayView `json:"image"`
	// Divergence is what differs between ZooKeeper and KRaft's image at
	// At, as diff reports it (from "live" to the metadata), with the
	// password configs left out of the comparison.
	Divergence kraftDivergence `json:"divergence"`
	// After is what KRaft's log holds after At: what ZooKeeper lacks,
	// when At is /migration's offset (kind "behind" then a problem).
	After afterView `json:"after"`
	// Problems lists what was found, one line each; empty when ZooKeeper
	// holds what KRaft holds.
	Problems []string `json:"problems"`
}

// kraftDivergence is what differs at the offset compared at.
type kraftDivergence struct {
	// Kind is "equal" or "divergent".
	Kind string `json:"kind"`
	diffBody
	// NotCompared lists the password configs both sides hold, which are
	// compared only with a password encoder.
	NotCompared []kraftdiff.Secret `json:"not_compared"`
}

// setupKRaftDiff registers kraft diff's flags and returns what runs it.
func setupKRaftDiff(a *app, fs *flag.FlagSet) runFunc {
	at := offsetFlag()
	fs.Var(&at, "at", "compare at this `offset` of the metadata log instead of /migration's (the end of a log may not be committed)")
	return func(ctx context.Context, args []string) int {
		if err := a.ready(); err != nil {
			return a.fail(err)
		}
		if err := oneMetadataPath(args); err != nil {
			return a.fail(err)
		}
		return a.kraftDiff(ctx, args[0], at)
	}
}

// kraftDiff compares ZooKeeper with KRaft's metadata at path: exit 0 when
// ZooKeeper holds KRaft's image at /migration's offset and KRaft's log
// holds nothing after it but NoOps, 1 when not, 2 on error.
func (a *app) kraftDiff(ctx context.Context, path string, at wholeFlag) int {
	var res *kraftdiff.Result
	err := a.withLiveClient(ctx, func(rctx context.Context, live liveClient) error {
		var err error
		res, err = kraftdiff.Compare(rctx, live.c, live.w, path, kraftdiff.Options{At: at.n, AtSet: at.set, Passwords: a.passwords != nil, Progress: live.progress})
		return err
	})
	if err != nil {
		return a.fail(a.compareFailure(path, res, err))
	}
	r := a.kraftDiffReport(path, res, at)
	return a.emit(r, r.Problems, func() { a.printKRaftDiff(r, res.Plan) })
}

// compareFailure says why a comparison failed.
func (a *app) compareFailure(path string, res *kraftdiff.Result, err error) error {
	migration := a.path(znode.MigrationPath)
	switch {
	case errors.Is(err, kraftdiff.ErrNoMigration) && res != nil && !res.Migration.Exists:
		return &metadataError{fmt.Errorf("%s is absent: %w, so ZooKeeper holds nothing of KRaft's to compare; give --at OFFSET to compare anyway", migration, err)}
	case errors.Is(err, kraftdiff.ErrNoMigration):
		return &metadataError{fmt.Errorf("%w: %s holds offset -1, the initial load has not ended, so ZooKeeper holds no checkpoint of KRaft's to compare; give --at OFFSET to compare anyway", err, migration)}
	case errors.As(err, new(*znode.DecodeError)):
		return fmt.Errorf("%s does not decode, so the offset to compare at cannot be told: %w", migration, err)
	}
	var me *kraftdiff.MetadataError
	switch {
	case errors.As(err, &me):
		return metadataFailure(path, me.Err)
	case errors.As(err, new(*kraftdiff.EndError)):
		return &metadataError{err}
	}
	return err
}

// kraftDiffReport reports res.
func (a *app) kraftDiffReport(path string, res *kraftdiff.Result, at wholeFlag) kraftDiffReport {
	r := kraftDiffReport{
		header: a.header(), Metadata: path, Migration: viewMigration(a.path(znode.MigrationPath), res.Migration),
		At: res.Target, AtGiven: at.set, Image: viewReplay(res.KRaft), Problems: []string{},
		Divergence: kraftDivergence{Kind: divergenceEqual, diffBody: planBody(liveSide, path, res.Live, res.KRaftImage, res.Plan),
			NotCompared: res.NotCompared},
	}
	if r.Divergence.NotCompared == nil {
		r.Divergence.NotCompared = []kraftdiff.Secret{}
	}
	who := "/migration's offset"
	if at.set {
		r.Warning, who = tailWarning(res.Target), "offset"
	}
	r.After = viewAfter(res.Target, res.KRaft.After, who, !at.set)
	if !r.Divergence.Equal {
		r.Divergence.Kind = divergenceDivergent
		r.Problems = append(r.Problems, fmt.Sprintf("divergent: %s to make ZooKeeper hold KRaft's image at offset %d, %s no change makes",
			pluralVerb(len(r.Divergence.Changes), "change", "changes"), res.Target, pluralVerb(len(r.Divergence.Unplanned), "difference", "differences")))
	}
	if r.After.Kind == afterBehind && !at.set {
		r.Problems = append(r.Problems, "behind: "+r.After.Text)
	}
	return r
}

// printKRaftDiff prints a kraft diff report as text.
func (a *app) printKRaftDiff(r kraftDiffReport, plan dualwrite.Plan) {
	a.printHeader()
	label := "KRaft metadata"
	w := labelWidth(r.Migration.Path, label)
	a.field(w, r.Migration.Path, describeMigration(r.Migration)...)
	a.field(w, label, append([]string{r.Metadata + ", replayed to " + whereCompared(r)}, r.Image.describe()...)...)
	if r.Warning != "" {
		a.printf("\nWarning: %s.\n", r.Warning)
	}
	a.printf("\nFrom %s to KRaft's image at offset %d:\n", liveSide, r.At)
	a.printPlan(r.Divergence.diffBody, plan)
	if n := r.Divergence.NotCompared; len(n) > 0 {
		names := make([]string, len(n))
		for i, s := range n {
			names[i] = s.Entity + " " + s.Key
		}
		a.printf("Not compared, password configs (give --password-encoder-config-file to compare them): %s\n", strings.Join(names, ", "))
	}
	if r.Divergence.Equal {
		a.printf("\nDivergence: none. ZooKeeper holds KRaft's image at offset %d.\n", r.At)
	} else {
		a.printf("\nDivergence: %s.\n", strings.TrimPrefix(r.Problems[0], "divergent: "))
	}
	if r.AtGiven {
		a.printf("After offset %d: %s.\n", r.At, r.After.Text)
	} else {
		a.printf("Behind: %s.\n", r.After.Text)
	}
	if len(r.Problems) == 0 {
		a.printf("\nVerdict: ZooKeeper holds what KRaft holds.\n")
		return
	}
	a.printf("\nVerdict: ZooKeeper does not hold what KRaft holds. A KRaft controller in dual-write mirrors it in time (see status and lag for a stall); " +
		"before a rollback to ZooKeeper mode, with every KRaft controller stopped, kraft sync makes ZooKeeper hold it.\n")
}

// whereCompared says which offset the image was replayed to.
func whereCompared(r kraftDiffReport) string {
	if r.AtGiven {
		return fmt.Sprintf("offset %d (--at)", r.At)
	}
	return fmt.Sprintf("offset %d, /migration's", r.At)
}
