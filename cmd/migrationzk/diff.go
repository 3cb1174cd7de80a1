package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// liveSide is the diff argument naming the cluster given by --zk and
// --root; a file of that name is ./live.
const liveSide = "live"

// diffReport is the output of diff.
type diffReport struct {
	header
	diffBody
}

// diffBody is what differs between two images, as diff reports it.
type diffBody struct {
	// From and To are the sides as given: an export file or "live".
	From string `json:"from"`
	To   string `json:"to"`
	// Equal is true when nothing differs: no changes and no unplanned
	// differences.
	Equal bool `json:"equal"`
	// Changes are the changes that make From into To, as Sync would
	// apply them, each with the values it alters, old and new (its
	// fields; passwords and SCRAM credentials only marked as changed).
	Changes []dualwrite.Change           `json:"changes"`
	Counts  map[dualwrite.ChangeKind]int `json:"counts"`
	// Skipped are the znodes that do not decode in either image, which
	// the changes leave alone.
	Skipped []undecodableView `json:"skipped"`
	// Unplanned are the differences no change makes.
	Unplanned []unplannedDiff `json:"unplanned"`
}

// undecodableView is a znode whose data does not decode.
type undecodableView struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// unplannedDiff is a difference no change of a plan makes: a znode that
// does not decode on one side, or does not decode alike on both; a
// partition state only From holds, or a partition outside its topic's
// assignment only To holds (the migration makes up neither); or a
// producer id block only From holds (the migration never deletes it).
type unplannedDiff struct {
	// Kind is "undecodable", "partition-state", "unassigned-partition" or
	// "producer-id-block".
	Kind    string `json:"kind"`
	Subject string `json:"subject"`
	// From and To say what each side holds: an undecodable znode's
	// error, "" where it decodes, "none" where the side lacks it; a
	// partition, "none" where it is not; a producer id block, "none" for
	// none.
	From string `json:"from"`
	To   string `json:"to"`
}

// setupDiff returns what runs diff: two arguments, each an export file or
// liveSide.
func setupDiff(a *app, fs *flag.FlagSet) runFunc {
	return func(ctx context.Context, args []string) int {
		if err := a.ready(); err != nil {
			return a.fail(err)
		}
		if len(args) != 2 {
			return a.fail(usageError{fmt.Errorf("want two images, each an export file or %q, got %s", liveSide, pluralVerb(len(args), "argument", "arguments"))})
		}
		return a.diff(ctx, args[0], args[1])
	}
}

// diff compares the images from and to: exit 0 when equal, 1 when they
// differ, 2 when either cannot be read.
func (a *app) diff(ctx context.Context, from, to string) int {
	imgFrom, err := a.loadImage(ctx, from)
	if err != nil {
		return a.fail(err)
	}
	imgTo, err := a.loadImage(ctx, to)
	if err != nil {
		return a.fail(err)
	}
	r, plan := a.diffImages(from, to, imgFrom, imgTo)
	code := exitOK
	if !r.Equal {
		code = exitProblem
	}
	if a.json() {
		a.emitJSON(r)
	} else {
		a.printDiff(r, plan)
	}
	return code
}

// loadImage reads the image side names: the live cluster, or an export
// file; redacted, as exports are, so that both sides compare alike.
func (a *app) loadImage(ctx context.Context, side string) (dualwrite.Image, error) {
	read := func() (dualwrite.Image, error) { return readImageFile(side) }
	if side == liveSide {
		read = func() (dualwrite.Image, error) { return a.readLive(ctx) }
	}
	img, err := read()
	return img.Redacted(), err
}

// diffImages compares two images: the report, and the plan that makes
// imgFrom into imgTo.
func (a *app) diffImages(from, to string, imgFrom, imgTo dualwrite.Image) (diffReport, dualwrite.Plan) {
	plan := dualwrite.Diff(withUndecodableOf(imgFrom, imgTo), imgTo)
	return diffReport{header: a.header(), diffBody: planBody(from, to, imgFrom, imgTo, plan)}, plan
}

// planBody reports plan, which makes imgFrom into imgTo, and what no
// change makes.
func planBody(from, to string, imgFrom, imgTo dualwrite.Image, plan dualwrite.Plan) diffBody {
	r := diffBody{From: from, To: to, Changes: plan.Changes, Counts: plan.Counts(),
		Skipped: []undecodableView{}, Unplanned: unplanned(imgFrom, imgTo)}
	if r.Changes == nil {
		r.Changes = []dualwrite.Change{}
	}
	for _, s := range plan.Skipped {
		r.Skipped = append(r.Skipped, undecodableView{Path: s.Path, Error: errorText(s.Err)})
	}
	r.Equal = plan.Empty() && len(r.Unplanned) == 0
	return r
}

// withUndecodableOf returns from with the undecodable znodes of to added
// to its own, each path once, so that Diff leaves alone the znodes that do
// not decode in either image: what differs there no change makes.
func withUndecodableOf(from, to dualwrite.Image) dualwrite.Image {
	seen := map[string]bool{}
	var all []dualwrite.UndecodableZnode
	for _, u := range append(slices.Clone(from.Undecodable), to.Undecodable...) {
		if !seen[u.Path] {
			seen[u.Path] = true
			all = append(all, u)
		}
	}
	slices.SortFunc(all, func(a, b dualwrite.UndecodableZnode) int { return strings.Compare(a.Path, b.Path) })
	from.Undecodable = all
	return from
}

// unplanned lists the differences between from and to that no change
// makes.
func unplanned(from, to dualwrite.Image) []unplannedDiff {
	errsFrom, errsTo := undecodableErrors(from), undecodableErrors(to)
	paths := map[string]bool{}
	for p := range errsFrom {
		paths[p] = true
	}
	for p := range errsTo {
		paths[p] = true
	}
	out := []unplannedDiff{}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		if errsFrom[p] != errsTo[p] {
			out = append(out, unplannedDiff{Kind: "undecodable", Subject: p, From: sideOf(from, errsFrom, p), To: sideOf(to, errsTo, p)})
		}
	}
	out = append(out, unplannedPartitions(from, to)...)
	if from.ProducerIDBlock != nil && to.ProducerIDBlock == nil {
		b := from.ProducerIDBlock
		out = append(out, unplannedDiff{Kind: "producer-id-block", Subject: "/latest_producer_id_block",
			From: fmt.Sprintf("[%d, %d] of broker %d", b.BlockStart, b.BlockEnd, b.BrokerID), To: "none"})
	}
	return out
}

// unplannedPartitions lists the partitions no change makes into what to
// holds: a state only from holds (Diff writes no state to holds none
// for, and deletes none), and a partition outside its topic's assignment
// only to holds (Diff never creates one).
func unplannedPartitions(from, to dualwrite.Image) []unplannedDiff {
	var out []unplannedDiff
	for _, name := range slices.Sorted(maps.Keys(to.Topics)) {
		ft, tt := from.Topics[name], to.Topics[name]
		for _, id := range slices.Sorted(maps.Keys(tt.Partitions)) {
			// A state that does not decode in to is an unplanned
			// undecodable znode already, not a state gone.
			if p, ok := ft.Partitions[id]; ok && p.HasState() && !tt.Partitions[id].HasState() && !undecodableIn(to, znode.PartitionStatePath(name, id)) {
				out = append(out, unplannedDiff{Kind: "partition-state", Subject: fmt.Sprintf("%s partition %d", name, id), From: "a state", To: "none"})
			}
		}
		for _, id := range slices.Sorted(maps.Keys(tt.Unassigned)) {
			_, held := ft.Unassigned[id]
			if _, assigned := ft.Partitions[id]; !held && !assigned {
				out = append(out, unplannedDiff{Kind: "unassigned-partition", Subject: fmt.Sprintf("%s partition %d", name, id), From: "none", To: "outside the assignment"})
			}
		}
	}
	return out
}

// sideOf says what img holds at path, a znode undecodable in the other
// image: its own error when it does not decode either, "" when it
// decodes, "none" when img lacks it.
func sideOf(img dualwrite.Image, errs map[string]string, path string) string {
	if e, ok := errs[path]; ok {
		return e
	}
	if img.Holds(path) {
		return ""
	}
	return "none"
}

// undecodableErrors returns the errors of img's undecodable znodes by
// path.
func undecodableErrors(img dualwrite.Image) map[string]string {
	out := make(map[string]string, len(img.Undecodable))
	for _, u := range img.Undecodable {
		out[u.Path] = errorText(u.Err)
	}
	return out
}

// errorText is err's text, "undecodable" for a nil error.
func errorText(err error) string {
	if err == nil {
		return "undecodable"
	}
	return err.Error()
}

// printDiff prints a diff report as text: the cluster when a side is
// live, the plan, one change a line with its values below it, then the unplanned differences and
// the verdict.
func (a *app) printDiff(r diffReport, plan dualwrite.Plan) {
	if r.From == liveSide || r.To == liveSide {
		a.printHeader()
	}
	a.printf("From %s to %s:\n", r.From, r.To)
	a.printPlan(r.diffBody, plan)
	if r.Equal {
		a.printf("\nEqual: %s holds what %s holds.\n", r.To, r.From)
		return
	}
	a.printf("\nDifferent: %s to make %s into %s, %s no change makes.\n",
		pluralVerb(len(r.Changes), "change", "changes"), r.From, r.To, pluralVerb(len(r.Unplanned), "difference", "differences"))
}

// printPlan prints the plan, one change a line with its values below it,
// then the differences no change makes.
func (a *app) printPlan(r diffBody, plan dualwrite.Plan) {
	a.printf("%s", plan)
	for _, u := range r.Unplanned {
		a.printf("unplanned %s %s: from %s, to %s\n", u.Kind, u.Subject, describeSide(u.From), describeSide(u.To))
	}
}

// undecodableIn reports whether path is among img's undecodable znodes.
func undecodableIn(img dualwrite.Image, path string) bool {
	return slices.ContainsFunc(img.Undecodable, func(u dualwrite.UndecodableZnode) bool { return u.Path == path })
}

// describeSide says what a side holds for an unplanned difference: a
// znode that decodes, none, or the error quoted.
func describeSide(s string) string {
	switch s {
	case "":
		return "decodable"
	case "none":
		return "absent"
	}
	return fmt.Sprintf("%q", s)
}
