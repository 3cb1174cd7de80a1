package dualwrite

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
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
	if f.Secret && f.Old != nil && f.New != nil {
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

// ACLEntryText is an ACL entry as a FieldChange holds it, for example
// "User:alice Allow Read from host *".
func ACLEntryText(e znode.ACLEntry) string {
	return fmt.Sprintf("%s %s %s from host %s", e.Principal, e.PermissionType, e.Operation, e.Host)
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

// assignmentValues are the values of a partition's assignment.
func assignmentValues(p Partition) []fieldValue {
	vs := []fieldValue{{name: "replicas", value: int32sText(p.Replicas)}}
	if len(p.AddingReplicas) > 0 {
		vs = append(vs, fieldValue{name: "adding_replicas", value: int32sText(p.AddingReplicas)})
	}
	if len(p.RemovingReplicas) > 0 {
		vs = append(vs, fieldValue{name: "removing_replicas", value: int32sText(p.RemovingReplicas)})
	}
	return vs
}

// stateValues are the values of a partition state; none for nil.
func stateValues(s *PartitionState) []fieldValue {
	if s == nil {
		return nil
	}
	return []fieldValue{
		{name: "leader", value: int64Text(s.Leader)},
		{name: "leader_epoch", value: int64Text(s.LeaderEpoch)},
		{name: "isr", value: int32sText(s.ISR)},
		{name: "leader_recovery_state", value: int64Text(s.LeaderRecoveryState)},
	}
}

// topicIDValues is a topic's id as a value; none for the zero id.
func topicIDValues(id znode.Uuid) []fieldValue {
	if id.IsZero() {
		return nil
	}
	return []fieldValue{{name: "topic_id", value: id.String()}}
}

// topicFields lists what differs between two topics (nil for none):
// their ids, the assignments of their partitions, and, withStates,
// the partitions' states.
func topicFields(have, want *Topic, withStates bool) []FieldChange {
	var haveID, wantID znode.Uuid
	ids := map[int32]bool{}
	for _, t := range []*Topic{have, want} {
		if t != nil {
			for id := range t.Partitions {
				ids[id] = true
			}
		}
	}
	if have != nil {
		haveID = have.ID
	}
	if want != nil {
		wantID = want.ID
	}
	out := fieldChanges(nil, topicIDValues(haveID), topicIDValues(wantID))
	for _, id := range sortedIDs(ids) {
		old, new := partitionValues(have, id, withStates), partitionValues(want, id, withStates)
		out = append(out, fieldChanges(&id, old, new)...)
	}
	return out
}

// partitionValues are the values of partition id of t: none when t is
// nil or lacks it.
func partitionValues(t *Topic, id int32, withState bool) []fieldValue {
	if t == nil {
		return nil
	}
	p, ok := t.Partitions[id]
	if !ok {
		return nil
	}
	vs := assignmentValues(p)
	if withState && p.HasState() {
		vs = append(vs, stateValues(&p.State)...)
	}
	return vs
}

// stateFields lists what differs between the states of partitions ids,
// have's (nil for none) and want's (absent for none).
func stateFields(ids []int32, have func(int32) *PartitionState, want map[int32]*PartitionState) []FieldChange {
	var out []FieldChange
	for _, id := range ids {
		out = append(out, fieldChanges(&id, stateValues(have(id)), stateValues(want[id]))...)
	}
	return out
}

// configValues are the values of a config; password configs are secret.
func configValues(cfg map[string]string) []fieldValue {
	vs := make([]fieldValue, 0, len(cfg))
	for _, k := range sortedKeys(cfg, stringLess) {
		vs = append(vs, fieldValue{name: k, value: cfg[k], secret: passwordencoder.IsPasswordConfig(k)})
	}
	return vs
}

// quotaValues are the quotas and SCRAM credentials of an entity; the
// credentials are secret.
func quotaValues(quotas map[string]float64, scram map[string]znode.ScramCredential) []fieldValue {
	vs := make([]fieldValue, 0, len(quotas)+len(scram))
	for _, k := range sortedKeys(quotas, stringLess) {
		vs = append(vs, fieldValue{name: k, value: strconv.FormatFloat(quotas[k], 'f', -1, 64)})
	}
	for _, m := range sortedKeys(scram, stringLess) {
		c := scram[m]
		vs = append(vs, fieldValue{name: m, value: fmt.Sprintf("%x/%x/%x/%d", c.Salt, c.StoredKey, c.ServerKey, c.Iterations), secret: true})
	}
	return vs
}

// aclFields lists the entries of an ACL set removed (in have, not in
// want) and added (in want, not in have), each once.
func aclFields(have, want []znode.ACLEntry) []FieldChange {
	var out []FieldChange
	for _, e := range canonicalACLs(want) {
		if !slices.Contains(have, e) {
			text := ACLEntryText(e)
			out = append(out, FieldChange{Field: "acl", New: &text})
		}
	}
	for _, e := range canonicalACLs(have) {
		if !slices.Contains(want, e) {
			text := ACLEntryText(e)
			out = append(out, FieldChange{Field: "acl", Old: &text})
		}
	}
	return out
}

// canonicalACLs returns entries sorted by their text, each once.
func canonicalACLs(entries []znode.ACLEntry) []znode.ACLEntry {
	c := slices.Clone(entries)
	slices.SortFunc(c, func(a, b znode.ACLEntry) int { return strings.Compare(ACLEntryText(a), ACLEntryText(b)) })
	return slices.Compact(c)
}

// tokenValues are the fields of a delegation token; none for nil.
func tokenValues(t *znode.DelegationToken) []fieldValue {
	if t == nil {
		return nil
	}
	return []fieldValue{
		{name: "owner", value: t.Owner},
		{name: "token_requester", value: t.TokenRequester},
		{name: "renewers", value: "[" + strings.Join(t.Renewers, ",") + "]"},
		{name: "issue_timestamp", value: int64Text(t.IssueTimestamp)},
		{name: "max_timestamp", value: int64Text(t.MaxTimestamp)},
		{name: "expiry_timestamp", value: int64Text(t.ExpiryTimestamp)},
	}
}

// producerIDValues are the fields of a producer-id block; none for nil.
func producerIDValues(b *znode.ProducerIDBlock) []fieldValue {
	if b == nil {
		return nil
	}
	return []fieldValue{
		{name: "broker_id", value: int64Text(b.BrokerID)},
		{name: "block_start", value: int64Text(b.BlockStart)},
		{name: "block_end", value: int64Text(b.BlockEnd)},
	}
}
