package dualwrite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none. Kafka's ACL change notifications: a literal pattern's under
// /kafka-acl-changes as TOPIC:<name> (not JSON), a prefixed pattern's
// under /kafka-acl-extended-changes as a JSON event; the ACL znodes read
// back as Kafka writes them; a delete notifies again.
func TestKafkaACLNotifications(t *testing.T) {
	c := newCluster(t)
	s, _, err := c.c.Batch().WriteACLs(literalFoo, readAll).WriteACLs(prefixBar, readAll).Apply(testContext(t), at(c.s, 200))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = c.c.DeleteACLs(testContext(t), at(s, 201), literalFoo); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	c.wantData("/kafka-acl-extended/prefixed/Topic/bar-", `{"acls":[{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"}],"version":1}`)
	if got := c.notifications(znode.LiteralACLChangesPath, "acl_changes_"); strings.Join(got, " ") != "TOPIC:foo TOPIC:foo" {
		t.Fatalf("literal notifications %q", got)
	}
	c.wantData("/kafka-acl-extended-changes/acl_changes_0000000000", `{"version":1,"resourceType":"TOPIC","name":"bar-","patternType":"PREFIXED"}`)
	if c.version("/kafka-acl/Topic/foo") != -1 {
		t.Fatal("the deleted ACL znode is still there")
	}
}

// Fault: none. testAclUpdateAndDelete's counts, a Batch per KRaft delta:
// four literal ACLs; then one of them removed, two prefixed and two on
// another topic added (3, 2, 2); then the literal set changed, the
// prefixed removed and another added to the other topic (3, 0, 3).
func TestKafkaACLUpdateAndDelete(t *testing.T) {
	c := newCluster(t)
	other := dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "other", PatternType: znode.PatternLiteral}
	s := at(c.s, 200)
	for i, delta := range []struct {
		literal, prefixed, other []string
	}{
		{[]string{"alice", "bob", "carol", "dave"}, nil, nil},
		{[]string{"bob", "carol", "dave"}, []string{"alice", "bob"}, []string{"carol", "dave"}},
		{[]string{"alice", "bob", "carol"}, nil, []string{"carol", "dave", "eve"}},
	} {
		var err error
		b := c.c.Batch().WriteACLs(literalFoo, readers(delta.literal...)).WriteACLs(prefixBar, readers(delta.prefixed...)).WriteACLs(other, readers(delta.other...))
		if s, _, err = b.Apply(testContext(t), at(s, s.KRaftMetadataOffset+1)); err != nil {
			t.Fatal(err)
		}
		c.wantVersion(s, int32(i+1))
		for p, want := range map[string][]string{"/kafka-acl/Topic/foo": delta.literal, "/kafka-acl-extended/prefixed/Topic/bar-": delta.prefixed, "/kafka-acl/Topic/other": delta.other} {
			if got := c.aclCount(p); got != len(want) {
				t.Fatalf("delta %d: %s holds %d ACLs, want %d", i+1, p, got, len(want))
			}
		}
	}
}

// Fault: none. What KRaft accepts is written even where ZooKeeper mode
// was stricter: an operation the resource type has no use for (Group and
// Write), and an empty host. ZooKeeper-mode brokers read both back.
func TestKRaftAcceptedACLsWritten(t *testing.T) {
	c := newCluster(t)
	group := dualwrite.ResourcePattern{Type: znode.ResourceGroup, Name: "g1", PatternType: znode.PatternLiteral}
	want := znode.ACLs{
		{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationWrite, Host: "*"},
		{Principal: "User:bob", PermissionType: znode.PermissionDeny, Operation: znode.OperationRead, Host: ""},
	}
	s, err := c.c.WriteACLs(testContext(t), at(c.s, 400), group, want)
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := c.get("/kafka-acl/Group/g1")
	if got, err := znode.DecodeACLs(data); err != nil || !got.Equal(want) {
		t.Fatalf("/kafka-acl/Group/g1 holds %s (%v), want %v", data, err, want)
	}
	c.checkState(s)
}

// Fault: none. Kafka notifies ZooKeeper-mode authorizers of an ACL write
// that ZooKeeper refused (here NoAuth on an ACL znode another owns).
// dualwrite's notification shares the refused transaction: none.
func TestDefectACLNotificationAfterFailedWrite(t *testing.T) {
	alice := []znode.ACLEntry{{Principal: "User:alice", PermissionType: znode.PermissionDeny, Operation: znode.OperationAll, Host: "*"}}
	k := newCluster(t)
	k.readOnlyACLZnode(literalFoo)
	err := k.kafkaShapedClient(at(k.s, 300)).kafkaShapedWriteResourceACLs(literalFoo, alice)
	if !errors.Is(err, zk.ErrNoAuth) || len(k.notifications(znode.LiteralACLChangesPath, "acl_changes_")) != 1 {
		t.Fatalf("Kafka-shaped: %v, notifications %q; the defect is NoAuth and a notification", err, k.notifications(znode.LiteralACLChangesPath, "acl_changes_"))
	}

	c := newCluster(t)
	c.readOnlyACLZnode(literalFoo)
	before := c.tree()
	_, err = c.c.WriteACLs(testContext(t), at(c.s, 300), literalFoo, alice)
	if !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("dualwrite: %v, want NoAuth", err)
	}
	c.sameTree("after a refused ACL write", before, c.tree())
}

// readers is an ACL set letting each user read.
func readers(users ...string) []znode.ACLEntry {
	var out []znode.ACLEntry
	for _, u := range users {
		out = append(out, znode.ACLEntry{Principal: "User:" + u, PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"})
	}
	return out
}

// aclCount returns how many ACLs path holds, 0 when it is missing.
func (c *cluster) aclCount(path string) int {
	c.t.Helper()
	data, _, ok := c.get(path)
	if !ok {
		return 0
	}
	acls, err := znode.DecodeACLs(data)
	if err != nil {
		c.t.Fatalf("%s: %v", path, err)
	}
	return len(acls)
}

// readOnlyACLZnode creates the literal ACL znode of p, granting one
// entry, with a ZooKeeper ACL that lets others only read it.
func (c *cluster) readOnlyACLZnode(p dualwrite.ResourcePattern) {
	c.t.Helper()
	c.create(znode.LiteralACLRootPath, nil)
	c.create(znode.LiteralACLRootPath+"/"+string(p.Type), nil)
	c.create(znode.LiteralACLChangesPath, nil)
	path := znode.LiteralACLPath(p.Type, p.Name)
	if _, err := c.admin.Create(c.p(path), znode.ACLs(readAll).Encode(), 0, zk.WorldACL(zk.PermRead)); err != nil {
		c.t.Fatal(err)
	}
}

// kafkaShapedWriteResourceACLs is writeResourceAcls: SetData the ACL
// znode; on NoNode create it; on any other outcome, failures included, a
// plain notification whose result is ignored.
func (k *kafkaShaped) kafkaShapedWriteResourceACLs(p dualwrite.ResourcePattern, entries znode.ACLs) error {
	aclPath := znode.LiteralACLPath(p.Type, p.Name)
	err := k.kafkaShapedMulti(&zk.SetDataRequest{Path: k.c.p(aclPath), Data: entries.Encode(), Version: -1}, true)
	if errors.Is(err, zk.ErrNoNode) {
		if err = k.kafkaShapedMulti(k.kafkaShapedCreate(aclPath, entries.Encode()), true); errors.Is(err, zk.ErrNoNode) {
			return err
		}
	}
	change := znode.LiteralACLChange{ResourceType: p.Type, Name: p.Name}.Encode()
	_ = k.kafkaShapedResend(znode.LiteralACLChangePrefix, change, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	return err
}

// aclRows are the ACLs' rows of the tables every domain fills.
func aclRows() domainRows {
	return domainRows{
		invalid: invalidACLChanges(),
		refused: refusedACLChanges(),
		newNames: []newName{
			{"ACLs of a new Cluster resource not kafka-cluster", `resource pattern name "my-cluster"`, func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.WriteACLs(dualwrite.ResourcePattern{Type: znode.ResourceCluster, Name: "my-cluster", PatternType: znode.PatternLiteral}, readAll)
			}},
		},
		undecodable: []undecodable{
			{"ACLs", "/kafka-acl/Topic/foo", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteACLs(literalFoo, readAll) }},
		},
		diff: aclDiffCases(),
		values: []valuesCase{
			{name: "ACL entries added and removed",
				desired: func(img *dualwrite.Image) { img.ACLs[prefixBar] = []znode.ACLEntry{writeBob} },
				want:    "write-acls PREFIXED Topic bar-\n    acl: (none) -> User:bob Allow Write from host *\n    acl: User:alice Allow Read from host * -> (none)\n"},
			{name: "ACLs deleted",
				desired: func(img *dualwrite.Image) { delete(img.ACLs, prefixBar) },
				want:    "delete-acls PREFIXED Topic bar-\n    acl: User:alice Allow Read from host * -> (none)\n"},
		},
	}
}

func invalidACLChanges() []invalid {
	entry := func(mutate func(*znode.ACLEntry)) []znode.ACLEntry {
		e := readAll[0]
		mutate(&e)
		return []znode.ACLEntry{e}
	}
	acls := func(p dualwrite.ResourcePattern, entries []znode.ACLEntry) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteACLs(p, entries) }
	}
	return []invalid{
		{"ACL entry with an invalid operation", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.Operation = "Fly" }))},
		{"ACL entry with an invalid permission", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.PermissionType = "Maybe" }))},
		{"ACL entry without a principal", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.Principal = "" }))},
		{"ACL principal without a type", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.Principal = "alice" }))},
		{"ACLs of an unknown resource type", acls(dualwrite.ResourcePattern{Type: "Planet", Name: "x", PatternType: znode.PatternLiteral}, readAll)},
		{"ACLs of an unknown pattern type", acls(dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "x", PatternType: "MATCH"}, readAll)},
		{"ACLs of an unnamed resource", acls(dualwrite.ResourcePattern{Type: znode.ResourceTopic, PatternType: znode.PatternLiteral}, readAll)},
		{"ACLs of a resource named ..", acls(dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "..", PatternType: znode.PatternLiteral}, readAll)},
	}
}

func refusedACLChanges() []namedInvalid {
	entries := func(mutate func(*znode.ACLEntry)) []znode.ACLEntry {
		e := readAll[0]
		mutate(&e)
		return []znode.ACLEntry{readAll[0], e}
	}
	acls := func(p dualwrite.ResourcePattern, es []znode.ACLEntry) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteACLs(p, es) }
	}
	pattern := func(rt znode.ResourceType, name string, pt znode.PatternType) dualwrite.ResourcePattern {
		return dualwrite.ResourcePattern{Type: rt, Name: name, PatternType: pt}
	}
	return []namedInvalid{
		{invalid{"ACL principal not UTF-8", acls(literalFoo, entries(func(e *znode.ACLEntry) { e.Principal = "User:\xff" }))}, `ACL entry 1: principal "User:\xff"`},
		{invalid{"ACL principal without a type named", acls(literalFoo, entries(func(e *znode.ACLEntry) { e.Principal = "bob" }))}, `ACL entry 1: principal "bob"`},
		{invalid{"ACL host not UTF-8", acls(literalFoo, entries(func(e *znode.ACLEntry) { e.Host = "10.0.0.\xff" }))}, `ACL entry 1: host "10.0.0.\xff"`},
		{invalid{"ACL operation Any", acls(literalFoo, entries(func(e *znode.ACLEntry) { e.Operation = "Any" }))}, `ACL entry 1: operation "Any"`},
		{invalid{"ACL permission type Any", acls(literalFoo, entries(func(e *znode.ACLEntry) { e.PermissionType = "Any" }))}, `ACL entry 1: permission type "Any"`},
		{invalid{"ACL resource type named", acls(pattern("Planet", "x", znode.PatternLiteral), readAll)}, `resource pattern type "Planet"`},
		{invalid{"ACL pattern type named", acls(pattern(znode.ResourceTopic, "x", "MATCH"), readAll)}, `pattern type "MATCH"`},
		{invalid{"ACL resource name not UTF-8", acls(pattern(znode.ResourceGroup, "g\xff", znode.PatternPrefixed), readAll)}, `resource pattern name "g\xff"`},
	}
}

func aclDiffCases() []diffCase {
	return []diffCase{
		{name: "acl new", desired: func(img *dualwrite.Image) {
			img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceGroup, Name: "g", PatternType: znode.PatternLiteral}] = readAll
		}, want: []string{"write-acls LITERAL Group g"}},
		{name: "acl changed", desired: func(img *dualwrite.Image) { img.ACLs[prefixBar] = []znode.ACLEntry{writeBob} }, want: []string{"write-acls PREFIXED Topic bar-"}},
		{name: "acl entry order is no change", desired: func(img *dualwrite.Image) { img.ACLs[literalFoo] = []znode.ACLEntry{writeBob, readAll[0]} }},
		{name: "acl removed", desired: func(img *dualwrite.Image) { delete(img.ACLs, literalFoo) }, want: []string{"delete-acls LITERAL Topic foo"}},
		{name: "acl emptied", desired: func(img *dualwrite.Image) { img.ACLs[literalFoo] = nil }, want: []string{"delete-acls LITERAL Topic foo"}},
	}
}
