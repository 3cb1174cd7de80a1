package dualwrite_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// Fault: none. On a secured cluster Kafka creates a new user's config
// znode with the ACL of the entity's name ("alice", not sensitive)
// instead of its path: world-readable, SCRAM credentials included.
// dualwrite creates it with the Writer's ACL for its path (here the
// sensitive one, given with WithACL): others cannot read it.
func TestDefectConfigEntityACLFromName(t *testing.T) {
	scram := map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	k := newCluster(t)
	k.authenticate()
	cfg := znode.Config{znode.ScramSHA256: string(credential.Encode())}
	if err := k.kafkaShapedClient(at(k.s, 300)).kafkaShapedWriteConfigs(znode.UserQuotaEntity(ptr("alice")), cfg, kafkaShapedSecureACL); err != nil {
		t.Fatal(err)
	}
	if data, _, err := k.admin.Get(k.p("/config/users/alice")); err != nil || !strings.Contains(string(data), "SCRAM-SHA-256") {
		t.Fatalf("Kafka-shaped: an unauthenticated session reads %q (%v); the defect is that it reads the credentials", data, err)
	}

	c := newCluster(t)
	c.authenticate()
	secured := must.Get(dualwrite.New(must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(c.root), migrationzk.WithACL(zk.AuthACL(zk.PermAll))))))
	s, err := secured.WriteClientQuotas(testContext(t), at(c.s, 300), aliceQuota, nil, scram)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.admin.Get(c.p("/config/users/alice")); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("dualwrite: an unauthenticated read of the credentials gives %v, want NoAuth", err)
	}
	acl, _, err := c.conn.GetACL(c.p("/config/users/alice"))
	if err != nil || len(acl) != 1 || acl[0].Scheme != "digest" || acl[0].Perms != zk.PermAll {
		t.Fatalf("dualwrite: ACL %+v (%v), want the digest identity's alone", acl, err)
	}
	c.checkState(s)
}

// quotaStep is one writeClientQuotas call and the versions and values it
// must leave.
type quotaStep struct {
	entity  dualwrite.QuotaEntity
	quotas  map[string]float64
	path    string
	version int32
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

// authenticate gives the writer's session a digest identity, and removes
// the test's znodes through it when the test ends, since some may then be
// readable by that identity alone.
func (c *cluster) authenticate() {
	c.t.Helper()
	if err := c.conn.AddAuth("digest", []byte("kafka:secret")); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() {
		if err := zktest.DeleteAll(c.conn, c.root); err != nil {
			c.t.Errorf("remove %s: %v", c.root, err)
		}
	})
}

// ptr returns a pointer to s.
func ptr(s string) *string { return &s }

// kafkaShapedSecureACL is defaultAcls of a secured cluster (zookeeper.set.acl)
// for a path: all to the authenticated creator, and read to the world
// unless the path is sensitive (a plain string prefix test).
func kafkaShapedSecureACL(p string) []zk.ACL {
	creator := zk.AuthACL(zk.PermAll)
	for _, sensitive := range []string{"/config/users", "/config/brokers", "/delegation_token/tokens"} {
		if strings.HasPrefix(p, sensitive) {
			return creator
		}
	}
	return append(creator, zk.WorldACL(zk.PermRead)...)
}

// quotaRows are the client quotas' and SCRAM credentials' rows of the
// tables every domain fills.
func quotaRows() domainRows {
	return domainRows{
		invalid: invalidQuotaChanges(),
		refused: refusedQuotaChanges(),
		undecodable: []undecodable{
			{"user quotas", "/config/users/alice", func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.WriteClientQuotas(aliceQuota, map[string]float64{znode.QuotaConsumerByteRate: 1}, nil)
			}},
		},
		diff: quotaDiffCases(),
		values: []valuesCase{
			{name: "quotas",
				desired: func(img *dualwrite.Image) {
					img.ClientQuotas[clientQuota] = map[string]float64{"consumer_byte_rate": 4096, "request_percentage": 12.5}
				},
				want: "write-client-quotas clients/app\n    consumer_byte_rate: 2048 -> 4096\n    request_percentage: (none) -> 12.5\n"},
		},
	}
}

func invalidQuotaChanges() []invalid {
	quotas := func(e dualwrite.QuotaEntity, q map[string]float64, scram map[string]znode.ScramCredential) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteClientQuotas(e, q, scram) }
	}
	scram := map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	return []invalid{
		{"unknown quota key", quotas(aliceQuota, map[string]float64{"bytes_per_fortnight": 1}, nil)},
		{"non-integral LONG quota", quotas(aliceQuota, map[string]float64{znode.QuotaProducerByteRate: 1024.5}, nil)},
		{"non-integral INT quota", quotas(dualwrite.QuotaEntity{IP: "1.2.3.4"}, map[string]float64{znode.QuotaConnectionCreationRate: 0.5}, nil)},
		{"SCRAM on a client entity", quotas(dualwrite.QuotaEntity{ClientID: "c1"}, nil, scram)},
		{"SCRAM on a user's client", quotas(dualwrite.QuotaEntity{User: "alice", ClientID: "c1"}, nil, scram)},
		{"unknown SCRAM mechanism", quotas(aliceQuota, nil, map[string]znode.ScramCredential{"SCRAM-MD5": credential})},
		{"empty quota entity", quotas(dualwrite.QuotaEntity{}, map[string]float64{znode.QuotaConsumerByteRate: 1}, nil)},
		{"IP entity with a user", quotas(dualwrite.QuotaEntity{User: "alice", IP: "1.2.3.4"}, nil, nil)},
	}
}

func refusedQuotaChanges() []namedInvalid {
	quotas := func(e dualwrite.QuotaEntity, q map[string]float64) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteClientQuotas(e, q, nil) }
	}
	rate := map[string]float64{znode.QuotaConsumerByteRate: 1024}
	return []namedInvalid{
		{invalid{"quota user not UTF-8", quotas(dualwrite.QuotaEntity{User: "al\xffice"}, rate)}, `quota entity user "al\xffice"`},
		{invalid{"quota client id not UTF-8", quotas(dualwrite.QuotaEntity{User: "alice", ClientID: "c\xff"}, rate)}, `quota entity client id "c\xff"`},
		{invalid{"quota IP not UTF-8", quotas(dualwrite.QuotaEntity{IP: "10.0.0.\xff"}, nil)}, `quota entity IP "10.0.0.\xff"`},
		{invalid{"quota of 0", quotas(aliceQuota, map[string]float64{znode.QuotaConsumerByteRate: 0})}, "quota consumer_byte_rate: value 0"},
		{invalid{"negative quota", quotas(aliceQuota, map[string]float64{znode.QuotaRequestPercentage: -1.5})}, "quota request_percentage: value -1.5"},
	}
}

func quotaDiffCases() []diffCase {
	return []diffCase{
		{name: "quota changed", desired: func(img *dualwrite.Image) {
			img.ClientQuotas[clientQuota] = map[string]float64{"consumer_byte_rate": 4096}
		},
			want: []string{"write-client-quotas clients/app"}},
		{name: "quota entity new", desired: func(img *dualwrite.Image) { img.ClientQuotas[bobQuota] = map[string]float64{"request_percentage": 50} },
			want: []string{"write-client-quotas users/bob"}},
		{name: "quota entity absent keeps an empty config", desired: func(img *dualwrite.Image) { delete(img.ClientQuotas, clientQuota) },
			want: []string{"write-client-quotas clients/app"}},
		{name: "quota entity empty in ZooKeeper and absent", current: func(img *dualwrite.Image) { img.ClientQuotas[bobQuota] = map[string]float64{} }},
		{name: "scram added", desired: func(img *dualwrite.Image) {
			img.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: credential, znode.ScramSHA512: sha512}
		}, want: []string{"write-client-quotas users/alice"}},
		{name: "scram of a user without quotas", desired: func(img *dualwrite.Image) {
			img.Scram["bob"] = map[string]znode.ScramCredential{znode.ScramSHA512: sha512}
		}, want: []string{"write-client-quotas users/bob"}},
		{name: "scram removed", desired: func(img *dualwrite.Image) { delete(img.Scram, "alice") }, want: []string{"write-client-quotas users/alice"}},
	}
}
