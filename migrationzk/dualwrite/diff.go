package dualwrite

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// ChangeKind names what a Change does, after the Client method that does
// it.
type ChangeKind string

// The kinds of change a Plan holds.
const (
	ChangeCreateTopic           ChangeKind = "create-topic"
	ChangeUpdateTopic           ChangeKind = "update-topic"
	ChangeDeleteTopic           ChangeKind = "delete-topic"
	ChangeCreatePartitions      ChangeKind = "create-partitions"
	ChangeUpdatePartitions      ChangeKind = "update-partitions"
	ChangeDeletePartitions      ChangeKind = "delete-partitions"
	ChangeWriteConfigs          ChangeKind = "write-configs"
	ChangeDeleteConfigs         ChangeKind = "delete-configs"
	ChangeWriteClientQuotas     ChangeKind = "write-client-quotas"
	ChangeWriteACLs             ChangeKind = "write-acls"
	ChangeDeleteACLs            ChangeKind = "delete-acls"
	ChangeWriteDelegationToken  ChangeKind = "write-delegation-token"
	ChangeDeleteDelegationToken ChangeKind = "delete-delegation-token"
	ChangeWriteProducerID       ChangeKind = "write-producer-id"

	// ChangeReplaceTopic deletes a topic whose id differs from the one
	// desired and creates it anew with that id, as Kafka's full sync
	// does; its FromID and ToID name both ids. ZooKeeper-mode brokers
	// holding the topic under its old id fail its partitions
	// (InconsistentTopicIdException) until they learn the new one.
	ChangeReplaceTopic ChangeKind = "replace-topic"
)

// Change is one change of a Plan.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Subject names what changes: a topic, a config resource, a quota
	// entity, a resource pattern, a token id, a path.
	Subject string `json:"subject"`
	// Partitions lists the partitions of a partition change.
	Partitions []int32 `json:"partitions,omitempty"`
	// FromID and ToID are the topic ids of a replace-topic change: the
	// one ZooKeeper holds, and the one desired ("" for none).
	FromID string `json:"from_id,omitempty"`
	ToID   string `json:"to_id,omitempty"`
	// Fields lists the values the change alters, each old and new, in
	// a deterministic order; a Change built by Diff holds every value
	// that differs (see FieldChange), secrets hidden.
	Fields []FieldChange `json:"fields,omitempty"`

	// add records the change in a Batch; only Diff sets it, so a Change
	// built by hand or decoded from JSON describes a change but cannot
	// make one.
	add func(*Batch)
}

// ErrNotPlanned is the cause of AddTo's error for a Change that Diff did
// not make: one built by hand or decoded from a Plan's JSON, which names
// a change but does not hold its content. It wraps
// migrationzk.ErrInvalidArgument.
var ErrNotPlanned = fmt.Errorf("%w: dualwrite: the change was not made by Diff", migrationzk.ErrInvalidArgument)

// Plan is what makes one Image into another: the changes, in a
// deterministic order, and the znodes left alone because they do not
// decode.
type Plan struct {
	Changes []Change           `json:"changes"`
	Skipped []UndecodableZnode `json:"-"`
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return len(p.Changes) == 0 }

// Counts returns how many changes of each kind the plan holds.
func (p Plan) Counts() map[ChangeKind]int {
	counts := map[ChangeKind]int{}
	for _, c := range p.Changes {
		counts[c.Kind]++
	}
	return counts
}

// String lists the changes, one a line, each followed by its Fields,
// one an indented line, then the znodes skipped, then the counts by kind; a plan with neither changes nor skipped znodes is
// "no changes".
func (p Plan) String() string {
	if p.Empty() && len(p.Skipped) == 0 {
		return "no changes\n"
	}
	var b strings.Builder
	for _, c := range p.Changes {
		fmt.Fprintf(&b, "%s %s", c.Kind, c.Subject)
		if c.Kind == ChangeReplaceTopic {
			fmt.Fprintf(&b, " id %s to %s", orNone(c.FromID), orNone(c.ToID))
		}
		if len(c.Partitions) > 0 {
			fmt.Fprintf(&b, " partitions %v", c.Partitions)
		}
		b.WriteByte('\n')
		for _, f := range c.Fields {
			fmt.Fprintf(&b, "    %s\n", f)
		}
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "skipped %s: %v\n", s.Path, s.Err)
	}
	counts := p.Counts()
	kinds := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, "%s (%s), %s skipped\n", counted(len(p.Changes), "change"), strings.Join(parts, ", "), counted(len(p.Skipped), "znode"))
	} else {
		fmt.Fprintf(&b, "0 changes, %s skipped\n", counted(len(p.Skipped), "znode"))
	}
	return b.String()
}

// counted returns "1 <noun>" or "<n> <noun>s".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// orNone is an id as Plan.String shows it.
func orNone(id string) string {
	if id == "" {
		return "none"
	}
	return id
}

// AddTo adds the plan's changes, in order, to b. When a change was not
// made by Diff (a Change built by hand, or a Plan decoded from JSON), it
// adds none of them and returns an error wrapping ErrNotPlanned, which b
// also records: its Apply then fails without writing anything. A change
// b's method refuses, such as one writing a redacted value (a
// *SecretError), stops it too: AddTo returns the error b records. A nil b
// is an error too.
func (p Plan) AddTo(b *Batch) error {
	if b == nil {
		return invalidf("AddTo a nil Batch")
	}
	for i, c := range p.Changes {
		if c.add == nil {
			err := fmt.Errorf("change %d (%s %q): %w", i, c.Kind, c.Subject, ErrNotPlanned)
			b.add(nil, err)
			return err
		}
	}
	failed := b.err != nil
	for _, c := range p.Changes {
		c.add(b)
		if !failed && b.err != nil {
			return b.err
		}
	}
	return nil
}

// Diff returns the plan that makes ZooKeeper, holding current, hold
// desired: only what differs in meaning (the order of keys, of ACL
// entries and of JSON fields, and the controller epoch a partition state
// was stamped with, are no difference). Znodes current could not decode
// are left alone and listed as skipped. Nothing desired does not hold is
// planned: a partition of desired without a state (HasState) gets none,
// and a partition outside the assignment is deleted when desired lacks
// it (Topic.Unassigned), never written into the topic znode, so that
// Diff(x, x) is empty for every image x Read returns. A topic whose id
// differs is a ChangeReplaceTopic; a topic given an id where it has none
// is a ChangeUpdateTopic. Diff is pure and deterministic.
func Diff(current, desired Image) Plan {
	d := differ{bad: map[string]bool{}, replaced: map[string]bool{}}
	for _, u := range current.Undecodable {
		d.bad[u.Path] = true
		d.plan.Skipped = append(d.plan.Skipped, u)
	}
	d.topics(current.Topics, desired.Topics)
	d.configs(current.Configs, desired.Configs)
	d.quotas(current, desired)
	d.acls(current.ACLs, desired.ACLs)
	d.tokens(current.DelegationTokens, desired.DelegationTokens)
	d.producerID(current.ProducerIDBlock, desired.ProducerIDBlock)
	return d.plan
}

// differ builds a Plan.
type differ struct {
	plan Plan
	bad  map[string]bool // paths that do not decode
	// replaced holds the topics replaced, whose configs are deleted and
	// created empty with them.
	replaced map[string]bool
}

// add appends a change unless it would write one of the paths that do not
// decode.
func (d *differ) add(c Change, paths ...string) {
	for _, p := range paths {
		if d.bad[p] {
			return
		}
	}
	d.plan.Changes = append(d.plan.Changes, c)
}

// addTree appends a change unless one of the paths that do not decode is
// at or under one of roots, the subtrees the change replaces or deletes.
func (d *differ) addTree(c Change, roots ...string) {
	for p := range d.bad {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") {
				return
			}
		}
	}
	d.plan.Changes = append(d.plan.Changes, c)
}

// sortedKeys returns the keys of m, ordered by less.
func sortedKeys[K comparable, V any](m map[K]V, less func(a, b K) bool) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	return keys
}

func stringLess(a, b string) bool { return a < b }

// sameInt32s compares two lists, nil and empty alike.
func sameInt32s(a, b []int32) bool { return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b)) }
