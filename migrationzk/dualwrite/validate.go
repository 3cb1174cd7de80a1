package dualwrite

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// The rules a change must pass before anything is sent. They refuse what
// Kafka's KRaft controller refuses, since the image a change comes from is
// the controller's, and what ZooKeeper-mode brokers cannot read back; what
// KRaft accepts passes, even where ZooKeeper mode was stricter. Each error
// names the field at fault and its value, never a config value (it may be
// a secret), and wraps migrationzk.ErrInvalidArgument.
//
// Two kinds of rule:
//   - content rules (replicas, leader state, UTF-8, ACL entries, tokens,
//     quotas) apply to every write;
//   - name rules (Kafka's topic name rule, broker config names, the Cluster
//     resource's name) apply only where a name is written anew: a name
//     ZooKeeper holds already, as legacy data that never passed them does,
//     is written to as it is, and deletes are never refused for a name.

// maxTopicNameLength is the longest topic name Kafka accepts.
const maxTopicNameLength = 249

// clusterResourceName is the one name of the Cluster ACL resource.
const clusterResourceName = "kafka-cluster"

// checkName checks a name that becomes one znode name: ZooKeeper's path
// rules, which no znode escapes (valid UTF-8 included: ZooKeeper decodes
// a path as UTF-8), not Kafka's naming rules.
func checkName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || !utf8.ValidString(name) {
		return invalidf("%s name %q", what, name)
	}
	return nil
}

// topicNameRule checks name against Kafka's rule for a new topic's name.
func topicNameRule(name string) error {
	switch {
	case len(name) > maxTopicNameLength:
		return invalidf("topic name %q: %d characters, Kafka allows at most %d for a new topic", name, len(name), maxTopicNameLength)
	case strings.IndexFunc(name, func(r rune) bool { return !isTopicNameChar(r) }) >= 0:
		return invalidf("topic name %q: Kafka allows only ASCII letters, digits, '.', '_' and '-' in a new topic's name", name)
	}
	return checkName("topic", name) // "", "." and ".."
}

// isTopicNameChar reports whether r may appear in a new topic's name.
func isTopicNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}

// brokerNameRule checks the name of a new broker config entity: empty
// (the default) or a broker id, a base-10 int32 that is not negative.
func brokerNameRule(name string) error {
	if name == "" {
		return nil
	}
	if id, err := strconv.ParseInt(name, 10, 32); err != nil || id < 0 {
		return invalidf("broker name %q: want a broker id, a base-10 number from 0 to %d", name, int32(1<<31-1))
	}
	return nil
}

// aclNameRule checks the name of a new ACL resource pattern: the Cluster
// resource has one name.
func aclNameRule(p ResourcePattern) error {
	if p.Type == znode.ResourceCluster && p.Name != clusterResourceName {
		return invalidf("resource pattern name %q: the Cluster resource is named %q", p.Name, clusterResourceName)
	}
	return nil
}

// admitName reports whether a change whose name broke a name rule
// (nameErr) may go on: when nameErr is nil, or when one of paths, the
// znodes of the entity under that name, exists. When none exists, the
// batch fails with nameErr and the change plans nothing; when that is not
// known yet, the paths are asked for and it returns false.
func (v *view) admitName(nameErr error, paths ...string) bool {
	if nameErr == nil {
		return true
	}
	known := true
	for _, p := range paths {
		exists, k := v.exists(p)
		if k && exists {
			return true
		}
		known = known && k
	}
	if known && v.err == nil {
		v.err = nameErr
	}
	return false
}

// checkReplicas checks the replica list of a partition: not empty, each
// broker id not negative and listed once.
func checkReplicas(topic string, id int32, replicas []int32) error {
	if len(replicas) == 0 {
		return invalidf("topic %q partition %d: replicas []: the replica list is empty", topic, id)
	}
	if r, ok := badBroker(replicas); !ok {
		return invalidf("topic %q partition %d: replicas %v: broker %d is negative or listed twice", topic, id, replicas, r)
	}
	return nil
}

// badBroker returns the first broker id of ids that is negative or
// repeated, and false; true when there is none.
func badBroker(ids []int32) (int32, bool) {
	for i, r := range ids {
		if r < 0 || slices.Contains(ids[:i], r) {
			return r, false
		}
	}
	return 0, true
}

// checkReassignment checks the replicas a reassignment in progress adds
// and removes: replicas of the partition, each listed once, none both
// added and removed, as Kafka's controller computes them from the current
// and the target assignment.
func checkReassignment(topic string, id int32, p Partition) error {
	for _, l := range []struct {
		what string
		ids  []int32
	}{{"adding replicas", p.AddingReplicas}, {"removing replicas", p.RemovingReplicas}} {
		for i, r := range l.ids {
			if !slices.Contains(p.Replicas, r) || slices.Contains(l.ids[:i], r) {
				return invalidf("topic %q partition %d: %s %v: broker %d is not one of the replicas %v or is listed twice", topic, id, l.what, l.ids, r, p.Replicas)
			}
		}
	}
	for _, r := range p.AddingReplicas {
		if slices.Contains(p.RemovingReplicas, r) {
			return invalidf("topic %q partition %d: broker %d is both an adding and a removing replica", topic, id, r)
		}
	}
	return nil
}

// checkLeaderState checks a partition's leader and ISR against its
// replicas: the leader is -1 (none) or a replica, and the ISR lists
// replicas, each once. Kafka's controller never produces other states.
func checkLeaderState(topic string, id int32, replicas []int32, st PartitionState) error {
	if st.Leader != -1 && !slices.Contains(replicas, st.Leader) {
		return invalidf("topic %q partition %d: leader %d is neither -1 nor one of the replicas %v", topic, id, st.Leader, replicas)
	}
	for i, r := range st.ISR {
		if !slices.Contains(replicas, r) || slices.Contains(st.ISR[:i], r) {
			return invalidf("topic %q partition %d: ISR %v: broker %d is not one of the replicas %v or is listed twice", topic, id, st.ISR, r, replicas)
		}
	}
	return nil
}

// checkISR checks an ISR whose replicas are not known: each broker id
// not negative and listed once.
func checkISR(topic string, id int32, isr []int32) error {
	if r, ok := badBroker(isr); !ok {
		return invalidf("topic %q partition %d: ISR %v: broker %d is negative or listed twice", topic, id, isr, r)
	}
	return nil
}

// checkUTF8 checks that value, the field named what, is valid UTF-8:
// ZooKeeper-mode brokers read strings as Java strings, which hold what
// the encoders would write as U+FFFD, so that ZooKeeper would never hold
// what was asked for.
func checkUTF8(what, value string) error {
	if !utf8.ValidString(value) {
		return invalidf("%s %q is not valid UTF-8", what, value)
	}
	return nil
}

// checkConfigs checks the keys and values of a config: valid UTF-8. A
// value is never printed, since it may be a password.
func checkConfigs(configs map[string]string) error {
	for _, key := range slices.Sorted(maps.Keys(configs)) {
		if err := checkUTF8("config key", key); err != nil {
			return err
		}
		if !utf8.ValidString(configs[key]) {
			return invalidf("config %q: the value is not valid UTF-8", key)
		}
	}
	return nil
}

// checkQuotaEntity checks the names of a quota entity: valid UTF-8.
func checkQuotaEntity(q QuotaEntity) error {
	for _, f := range [][2]string{{"quota entity user", q.User}, {"quota entity client id", q.ClientID}, {"quota entity IP", q.IP}} {
		if err := checkUTF8(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

// checkQuotaValue checks a quota's value as Kafka's controller does:
// greater than 0 (NaN passes, as it passes there).
func checkQuotaValue(key string, value float64) error {
	if value <= 0 {
		return invalidf("quota %s: value %v, want one greater than 0", key, value)
	}
	return nil
}

// checkACLEntry checks entry i of an ACL set, field by field: a principal
// of the form Type:name, as ZooKeeper-mode brokers parse it, an operation
// and a permission type other than Any and Unknown, and UTF-8 strings. An
// empty host, and an operation the resource type has no use for (Group
// and Write), are accepted, as KRaft accepts them.
func checkACLEntry(i int, e znode.ACLEntry) error {
	switch {
	case !utf8.ValidString(e.Principal):
		return invalidf("ACL entry %d: principal %q is not valid UTF-8", i, e.Principal)
	case !isPrincipal(e.Principal):
		return invalidf("ACL entry %d: principal %q, want Type:name", i, e.Principal)
	case !utf8.ValidString(e.Host):
		return invalidf("ACL entry %d: host %q is not valid UTF-8", i, e.Host)
	case !e.Operation.Valid():
		return invalidf("ACL entry %d: operation %q is not one of the operations an ACL grants", i, e.Operation)
	case !e.PermissionType.Valid():
		return invalidf("ACL entry %d: permission type %q, want %q or %q", i, e.PermissionType, znode.PermissionAllow, znode.PermissionDeny)
	}
	return nil
}

// isPrincipal reports whether p has the form Kafka's principals have,
// Type:name.
func isPrincipal(p string) bool { return strings.Contains(p, ":") }

// checkToken checks a delegation token of a change: its id names one
// znode; its owner, requester and renewers are UTF-8 principals of the
// form Type:name, as Kafka parses them; and each renewer is a User, as
// Kafka's controller requires.
func checkToken(token znode.DelegationToken) error {
	if err := checkName("delegation token", token.TokenID); err != nil {
		return err
	}
	fields := [][2]string{{"owner", token.Owner}, {"requester", token.TokenRequester}}
	for _, r := range token.Renewers {
		fields = append(fields, [2]string{"renewer", r})
	}
	for _, f := range fields {
		if err := checkUTF8("delegation token "+strconv.Quote(token.TokenID)+" "+f[0], f[1]); err != nil {
			return err
		}
		if !isPrincipal(f[1]) {
			return invalidf("delegation token %q: %s %q, want Type:name", token.TokenID, f[0], f[1])
		}
		if f[0] == "renewer" && !strings.HasPrefix(f[1], "User:") {
			return invalidf("delegation token %q: renewer %q, want a User principal", token.TokenID, f[1])
		}
	}
	return nil
}
