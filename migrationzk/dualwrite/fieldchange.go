package dualwrite

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FieldChange is one value a Change alters: what ZooKeeper holds before
// the change and what the change leaves there. Values are text: numbers
// in decimal, lists of broker ids as "[1,2,3]", lists of principals as
// "[User:a,User:b]", ACL entries as ACLEntryText writes them.
type FieldChange struct {
	// Field names the value:
	//   - a config key (write-configs, delete-configs);
	//   - a quota name or a SCRAM mechanism (write-client-quotas);
	//   - "acl" for one ACL entry (write-acls, delete-acls), Old for an
	//     entry removed, New for one added;
	//   - "topic_id", and per partition "replicas", "adding_replicas",
	//     "removing_replicas", "leader", "leader_epoch", "isr" and
	//     "leader_recovery_state" (the topic and partition changes);
	//   - "owner", "token_requester", "renewers", "issue_timestamp",
	//     "max_timestamp" and "expiry_timestamp" (the token changes);
	//   - "broker_id", "block_start" and "block_end" (write-producer-id).
	Field string `json:"field"`
	// Partition is the partition the field belongs to; nil for a field
	// of no partition.
	Partition *int32 `json:"partition,omitempty"`
	// Old is the value ZooKeeper holds; nil where it holds none, when
	// the change adds the field.
	Old *string `json:"old,omitempty"`
	// New is the value the change writes; nil where it writes none,
	// when the change removes the field.
	New *string `json:"new,omitempty"`
	// Secret marks a password config (passwordencoder.IsPasswordConfig)
	// or a SCRAM credential. Old and New are then SecretValue where set,
	// never the value: a Change says that a secret changed, not to what.
	Secret bool `json:"secret,omitempty"`
	// Rewritten marks a value that does not change but is written again,
	// because the change recreates what holds it: a key of the config of
	// a topic a ChangeReplaceTopic deletes and creates anew. Old and New
	// are then equal.
	Rewritten bool `json:"rewritten,omitempty"`
}

// SecretValue stands for the value of a secret field (FieldChange.Secret).
const SecretValue = "(secret)"

// String is the field change as Plan.String writes it: "field: old ->
// new", "(none)" for a missing value, prefixed with the partition.
func (f FieldChange) String() string {
	name := f.Field
	if f.Partition != nil {
		name = fmt.Sprintf("partition %d %s", *f.Partition, f.Field)
	}
	switch {
	case f.Rewritten:
		return fmt.Sprintf("%s: %s (unchanged, rewritten with the recreated topic)", name, orNoValue(f.New))
	case f.Secret && f.Old != nil && f.New != nil:
		return name + ": changed " + SecretValue
	}
	return fmt.Sprintf("%s: %s -> %s", name, orNoValue(f.Old), orNoValue(f.New))
}

// orNoValue is a value as FieldChange.String writes it.
func orNoValue(v *string) string {
	if v == nil {
		return "(none)"
	}
	return *v
}

// fieldValue is one named value of something a change writes; secret
// values are compared by value but never shown.
type fieldValue struct {
	name, value string
	secret      bool
}

// fieldChanges lists what differs between old and new, the values of one
// thing (nil for none), in the order of new, then of old.
func fieldChanges(partition *int32, old, new []fieldValue) []FieldChange {
	var out []FieldChange
	find := func(vs []fieldValue, name string) (fieldValue, bool) {
		i := slices.IndexFunc(vs, func(v fieldValue) bool { return v.name == name })
		if i < 0 {
			return fieldValue{}, false
		}
		return vs[i], true
	}
	emit := func(o, n fieldValue, hasOld, hasNew bool) {
		if hasOld && hasNew && o.value == n.value {
			return
		}
		f := FieldChange{Field: cmp.Or(n.name, o.name), Partition: partition, Secret: o.secret || n.secret}
		if hasOld {
			f.Old = shown(o.value, f.Secret)
		}
		if hasNew {
			f.New = shown(n.value, f.Secret)
		}
		out = append(out, f)
	}
	for _, n := range new {
		o, hasOld := find(old, n.name)
		emit(o, n, hasOld, true)
	}
	for _, o := range old {
		if _, hasNew := find(new, o.name); !hasNew {
			emit(o, fieldValue{}, true, false)
		}
	}
	return out
}

// rewrittenFields lists the values of new, each written again over old,
// in the order of new, then those of old that new lacks: old -> new where
// they differ, and the unchanged ones marked Rewritten.
func rewrittenFields(partition *int32, old, new []fieldValue) []FieldChange {
	changed := fieldChanges(partition, old, new)
	out := make([]FieldChange, 0, len(new)+len(changed))
	for _, n := range new {
		if i := slices.IndexFunc(changed, func(f FieldChange) bool { return f.Field == n.name }); i >= 0 {
			out = append(out, changed[i])
			continue
		}
		v := shown(n.value, n.secret)
		out = append(out, FieldChange{Field: n.name, Partition: partition, Old: v, New: v, Secret: n.secret, Rewritten: true})
	}
	for _, f := range changed {
		if f.New == nil {
			out = append(out, f)
		}
	}
	return out
}

// shown is a value as a FieldChange holds it.
func shown(v string, secret bool) *string {
	if secret {
		v = SecretValue
	}
	return &v
}

// int32sText is a list of broker ids as a FieldChange holds it.
func int32sText(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// int64Text is a number as a FieldChange holds it.
func int64Text[N ~int8 | ~int32 | ~int64](n N) string { return strconv.FormatInt(int64(n), 10) }
