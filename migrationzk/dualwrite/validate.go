package dualwrite

import (
	"strings"
	"unicode/utf8"
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
//
// The checks every domain uses are here; each domain's own rules are in
// its file (topics.go, partitions.go, configs.go, quotas.go, acls.go,
// tokens.go).

// checkName checks a name that becomes one znode name: ZooKeeper's path
// rules, which no znode escapes (valid UTF-8 included: ZooKeeper decodes
// a path as UTF-8), not Kafka's naming rules.
func checkName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || !utf8.ValidString(name) {
		return invalidf("%s name %q", what, name)
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
