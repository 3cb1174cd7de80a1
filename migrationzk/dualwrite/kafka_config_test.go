package dualwrite_test

// Kafka 3.9's expectations of its config, quota, SCRAM, ACL and token
// writes, reproduced against a real ZooKeeper; see kafka_test.go.

import (
	"maps"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// quotaStep is one writeClientQuotas call and the versions and values it
// must leave.
type quotaStep struct {
	entity  dualwrite.QuotaEntity
	quotas  map[string]float64
	path    string
	version int32
}

// Fault: none. testWriteExistingClientQuotas: on quotas a ZooKeeper-mode
// broker wrote, five writes give versions 1 to 5 and read back as
// written: a changed quota, another, an empty quota map (the znode kept
// with an empty config), a new key, and the default user.
func TestKafkaWriteExistingClientQuotas(t *testing.T) {
	c := newCluster(t)
	c.create("/config/users/user1", znode.Config{znode.QuotaProducerByteRate: "100000"}.Encode())
	c.create("/config/users/user1/clients", nil)
	c.create("/config/users/user1/clients/clientA", znode.Config{znode.QuotaProducerByteRate: "100000"}.Encode())
	user1 := dualwrite.QuotaEntity{User: "user1"}
	c.writeQuotas(at(c.s, 200), []quotaStep{
		{user1, map[string]float64{znode.QuotaProducerByteRate: 20000}, "/config/users/user1", 1},
		{user1, map[string]float64{znode.QuotaProducerByteRate: 10000}, "/config/users/user1", 2},
		{user1, map[string]float64{}, "/config/users/user1", 3},
		{user1, map[string]float64{znode.QuotaConsumerByteRate: 100}, "/config/users/user1", 4},
		{dualwrite.QuotaEntity{User: znode.DefaultEntityName}, map[string]float64{znode.QuotaConsumerByteRate: 200}, "/config/users/<default>", 5},
	})
	c.wantData("/config/users/user1/clients/clientA", `{"version":1,"config":{"producer_byte_rate":"100000"}}`)
}

// Fault: none. The new-entity quota tests (testWriteNewClientQuotas): a
// new user's quotas give version 1, a new client of that user 2; the
// clients znode between them is made with null data, as Kafka's
// createRecursive makes it.
func TestKafkaWriteNewClientQuotas(t *testing.T) {
	c := newCluster(t)
	c.writeQuotas(at(c.s, 200), []quotaStep{
		{dualwrite.QuotaEntity{User: "user2"}, map[string]float64{znode.QuotaProducerByteRate: 20000, znode.QuotaConsumerByteRate: 100},
			"/config/users/user2", 1},
		{dualwrite.QuotaEntity{User: "user2", ClientID: "clientA"}, map[string]float64{znode.QuotaProducerByteRate: 10000, znode.QuotaConsumerByteRate: 200},
			"/config/users/user2/clients/clientA", 2},
	})
	c.wantData("/config/users/user2/clients", "")
	c.wantData("/config/changes/config_change_0000000001", `{"version":2,"entity_path":"users/user2/clients/clientA"}`)
}

// writeQuotas makes each step's write from s, checking its version and
// that the quotas read back as a ZooKeeper-mode broker parses them.
func (c *cluster) writeQuotas(s migrationzk.State, steps []quotaStep) {
	c.t.Helper()
	for i, step := range steps {
		var err error
		if s, err = c.c.WriteClientQuotas(testContext(c.t), at(s, s.KRaftMetadataOffset+1), step.entity, step.quotas, nil); err != nil {
			c.t.Fatalf("step %d: %v", i+1, err)
		}
		c.wantVersion(s, step.version)
		got := map[string]float64{}
		for key, text := range c.config(step.path) {
			if got[key], err = znode.ParseQuota(key, text); err != nil {
				c.t.Fatalf("step %d: %s: %v", i+1, step.path, err)
			}
		}
		if !maps.Equal(got, step.quotas) {
			c.t.Fatalf("step %d: %s reads back %v, want %v", i+1, step.path, got, step.quotas)
		}
	}
}

// Fault: none. testWriteNewTopicConfigs and testWriteExistingTopicConfigs:
// writeConfigs of a topic with one config gives version 1 and leaves
// exactly that config, whether the znode was new or held others.
func TestKafkaTopicConfigsNewAndExisting(t *testing.T) {
	for _, existing := range []bool{false, true} {
		c := newCluster(t)
		if existing {
			c.create("/config/topics/test", znode.Config{"flush.ms": "60000", "retention.ms": "300000"}.Encode())
		}
		s, err := c.c.WriteConfigs(testContext(t), at(c.s, 200), dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "test"},
			map[string]string{"segment.ms": "100000"})
		if err != nil {
			t.Fatal(err)
		}
		c.wantVersion(s, 1)
		c.wantData("/config/topics/test", `{"version":1,"config":{"segment.ms":"100000"}}`)
	}
}

// Fault: none. testScramAndQuotaChangesInSnapshot: a full sync empties
// user1 (quotas) and alice (SCRAM), keeping their znodes, and writes user2
// (one quota) and george (one SCRAM credential of 8192 iterations).
// Kafka makes four calls; ours is one Batch: version 1.
func TestKafkaScramAndQuotaSnapshot(t *testing.T) {
	c := newCluster(t)
	c.create("/config/users/user1", znode.Config{znode.QuotaProducerByteRate: "100000"}.Encode())
	c.create("/config/users/alice", znode.Config{znode.ScramSHA256: string(credential.Encode())}.Encode())
	s, _, err := c.c.Batch().
		WriteClientQuotas(dualwrite.QuotaEntity{User: "user1"}, nil, nil).
		WriteClientQuotas(aliceQuota, nil, nil).
		WriteClientQuotas(dualwrite.QuotaEntity{User: "user2"}, map[string]float64{znode.QuotaRequestPercentage: 58.58}, nil).
		WriteClientQuotas(dualwrite.QuotaEntity{User: "george"}, nil, map[string]znode.ScramCredential{znode.ScramSHA256: credential}).
		Apply(testContext(t), at(c.s, 200))
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	for user, n := range map[string]int{"user1": 0, "alice": 0, "user2": 1, "george": 1} {
		if got := c.config("/config/users/" + user); len(got) != n {
			t.Fatalf("%s holds %v, want %d properties", user, got, n)
		}
	}
	c.wantData("/config/users/user2", `{"version":1,"config":{"request_percentage":"58.58"}}`)
}

// Fault: none. ZkMigrationIntegrationTest's values, written by the
// migration and read back from ZooKeeper: /config/users/user%401
// consumer_byte_rate "1000", the default user "900",
// users/user%401/clients/clientA "800" and "100", ips/8.8.8.8
// connection_creation_rate "10", and SCRAM credentials of 8191 and 8192
// iterations that round-trip.
func TestKafkaIntegrationQuotaValues(t *testing.T) {
	c := newCluster(t)
	scram := map[string]znode.ScramCredential{
		znode.ScramSHA256: {Salt: []byte("s1"), StoredKey: []byte("k1"), ServerKey: []byte("v1"), Iterations: 8191},
		znode.ScramSHA512: credential, // 8192 iterations
	}
	s, _, err := c.c.Batch().
		WriteClientQuotas(dualwrite.QuotaEntity{User: "user@1"}, map[string]float64{znode.QuotaConsumerByteRate: 1000}, scram).
		WriteClientQuotas(dualwrite.QuotaEntity{User: znode.DefaultEntityName}, map[string]float64{znode.QuotaConsumerByteRate: 900}, nil).
		WriteClientQuotas(dualwrite.QuotaEntity{User: "user@1", ClientID: "clientA"},
			map[string]float64{znode.QuotaConsumerByteRate: 800, znode.QuotaProducerByteRate: 100}, nil).
		WriteClientQuotas(dualwrite.QuotaEntity{IP: "8.8.8.8"}, map[string]float64{znode.QuotaConnectionCreationRate: 10}, nil).
		Apply(testContext(t), at(c.s, 200))
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	user := c.config("/config/users/user%401")
	defaults := c.config("/config/users/<default>")
	client := c.config("/config/users/user%401/clients/clientA")
	ip := c.config("/config/ips/8.8.8.8")
	if user[znode.QuotaConsumerByteRate] != "1000" || defaults[znode.QuotaConsumerByteRate] != "900" ||
		client[znode.QuotaConsumerByteRate] != "800" || client[znode.QuotaProducerByteRate] != "100" || ip[znode.QuotaConnectionCreationRate] != "10" {
		t.Fatalf("user %v, default %v, client %v, ip %v", user, defaults, client, ip)
	}
	for mechanism, want := range scram {
		got, err := znode.DecodeScramCredential([]byte(user[mechanism]))
		if err != nil || !got.Equal(want) {
			t.Fatalf("%s reads back %+v (%v), want %+v", mechanism, got, err, want)
		}
	}
}

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

// Fault: none. testEmptyWrite: Kafka sends nothing for an empty batch and
// its version stays; ours carries the checkpoint, so an empty Batch
// writes it alone, in one request: version 1.
func TestKafkaEmptyBatch(t *testing.T) {
	c := newCluster(t)
	c.faults.ResetCounts()
	s, results, err := c.c.Batch().Apply(testContext(t), at(c.s, 200))
	if err != nil || len(results) != 0 {
		t.Fatalf("%v, %d results", err, len(results))
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("%d write requests, want 1", n)
	}
	c.wantVersion(s, 1)
}

// Fault: none. A delegation token is written as Kafka 3.9 writes it,
// principals sanitized, with no token_change_ notification (Kafka's
// migration sends none), and deleted.
func TestKafkaDelegationToken(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.WriteDelegationToken(testContext(t), at(c.s, 200), token)
	if err != nil {
		t.Fatal(err)
	}
	c.wantData("/delegation_token/tokens/tok1", `{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000,"maxTimestamp":100,"version":3}`)
	if got := c.children("/delegation_token"); strings.Join(got, ",") != "tokens" {
		t.Fatalf("/delegation_token holds %v, want the tokens alone", got)
	}
	if s, err = c.c.DeleteDelegationToken(testContext(t), at(s, 201), "tok1"); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	if c.version("/delegation_token/tokens/tok1") != -1 {
		t.Fatal("the deleted token is still there")
	}
}
