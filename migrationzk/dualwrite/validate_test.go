package dualwrite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// namedInvalid is an invalid change whose error must contain names: the
// field at fault and its value.
type namedInvalid struct {
	invalid
	names string
}

// refusedBeforeSending lists changes that Kafka's controller refuses, or
// that ZooKeeper-mode brokers cannot read back, and that are refused
// without a read.
func refusedBeforeSending() []namedInvalid {
	return append(append(invalidReplicaChanges(), invalidUTF8Changes()...), invalidACLAndTokenChanges()...)
}

// partitionOf returns a topic named orders with the one partition 0.
func partitionOf(replicas []int32, leader int32, isr []int32) dualwrite.Topic {
	return dualwrite.Topic{Name: "orders", Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: replicas, State: dualwrite.PartitionState{Leader: leader, ISR: isr}}}}
}

// reassigning returns a topic named orders whose partition 0, on brokers
// 1, 2 and 3, is being reassigned.
func reassigning(adding, removing []int32) dualwrite.Topic {
	t := partitionOf([]int32{1, 2, 3}, 1, []int32{1, 2, 3})
	p := t.Partitions[0]
	p.AddingReplicas, p.RemovingReplicas = adding, removing
	t.Partitions[0] = p
	return t
}

func invalidReplicaChanges() []namedInvalid {
	create := func(t dualwrite.Topic) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(t) }
	}
	createParts := func(t dualwrite.Topic) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreatePartitions(t.Name, t.Partitions) }
	}
	update := func(isr ...int32) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.UpdatePartitions("orders", map[int32]dualwrite.PartitionState{0: {Leader: 2, ISR: isr}})
		}
	}
	return []namedInvalid{
		{invalid{"empty replica list", create(partitionOf([]int32{}, -1, nil))}, "partition 0: replicas []"},
		{invalid{"nil replica list", create(partitionOf(nil, -1, nil))}, "partition 0: replicas []"},
		{invalid{"replica listed twice", create(partitionOf([]int32{1, 2, 1}, 1, []int32{1}))}, "replicas [1 2 1]: broker 1"},
		{invalid{"negative replica", create(partitionOf([]int32{1, -2}, 1, []int32{1}))}, "replicas [1 -2]: broker -2"},
		{invalid{"empty replica list updated", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.UpdateTopic(partitionOf(nil, -1, nil))
		}}, "replicas []"},
		{invalid{"created partition with a replica twice", createParts(partitionOf([]int32{3, 3}, 3, []int32{3}))}, "replicas [3 3]"},
		{invalid{"leader outside the replicas", create(partitionOf([]int32{1, 2}, 4, []int32{1, 2}))}, "leader 4"},
		{invalid{"leader 0 outside the replicas", create(partitionOf([]int32{1, 2}, 0, nil))}, "leader 0"},
		{invalid{"leader -2", create(partitionOf([]int32{1, 2}, -2, nil))}, "leader -2"},
		{invalid{"ISR outside the replicas", create(partitionOf([]int32{1, 2}, 1, []int32{1, 4}))}, "ISR [1 4]: broker 4"},
		{invalid{"ISR broker twice", create(partitionOf([]int32{1, 2}, 1, []int32{1, 1}))}, "ISR [1 1]: broker 1"},
		{invalid{"created partition's leader outside its replicas", createParts(partitionOf([]int32{1, 2}, 9, []int32{1}))}, "leader 9"},
		{invalid{"updated ISR broker twice", update(2, 2)}, "ISR [2 2]: broker 2"},
		{invalid{"adding replica outside the replicas", create(reassigning([]int32{4}, nil))}, "adding replicas [4]: broker 4"},
		{invalid{"removing replica twice", create(reassigning(nil, []int32{3, 3}))}, "removing replicas [3 3]: broker 3"},
		{invalid{"replica both added and removed", create(reassigning([]int32{3}, []int32{3}))}, "broker 3 is both"},
		{invalid{"updated ISR negative broker", update(2, -1)}, "ISR [2 -1]: broker -1"},
	}
}

func invalidUTF8Changes() []namedInvalid {
	configs := func(r dualwrite.ConfigResource, cfg map[string]string) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteConfigs(r, cfg) }
	}
	quotas := func(e dualwrite.QuotaEntity, q map[string]float64) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteClientQuotas(e, q, nil) }
	}
	rate := map[string]float64{znode.QuotaConsumerByteRate: 1024}
	return []namedInvalid{
		{invalid{"topic deleted by a name not UTF-8", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeleteTopic("a\xffb") }}, `topic name "a\xffb"`},
		{invalid{"config key not UTF-8", configs(brokerOne, map[string]string{"ok": "1", "log.\xff": "1"})}, `config key "log.\xff"`},
		{invalid{"config value not UTF-8", configs(brokerOne, map[string]string{"ssl.key.password": "s3cr\xffet"})}, `config "ssl.key.password": the value`},
		{invalid{"topic config of a topic not UTF-8", configs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "\xfe"}, nil)}, `topic name "\xfe"`},
		{invalid{"quota user not UTF-8", quotas(dualwrite.QuotaEntity{User: "al\xffice"}, rate)}, `quota entity user "al\xffice"`},
		{invalid{"quota client id not UTF-8", quotas(dualwrite.QuotaEntity{User: "alice", ClientID: "c\xff"}, rate)}, `quota entity client id "c\xff"`},
		{invalid{"quota IP not UTF-8", quotas(dualwrite.QuotaEntity{IP: "10.0.0.\xff"}, nil)}, `quota entity IP "10.0.0.\xff"`},
		{invalid{"quota of 0", quotas(aliceQuota, map[string]float64{znode.QuotaConsumerByteRate: 0})}, "quota consumer_byte_rate: value 0"},
		{invalid{"negative quota", quotas(aliceQuota, map[string]float64{znode.QuotaRequestPercentage: -1.5})}, "quota request_percentage: value -1.5"},
	}
}

func invalidACLAndTokenChanges() []namedInvalid {
	entries := func(mutate func(*znode.ACLEntry)) []znode.ACLEntry {
		e := readAll[0]
		mutate(&e)
		return []znode.ACLEntry{readAll[0], e}
	}
	acls := func(p dualwrite.ResourcePattern, es []znode.ACLEntry) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteACLs(p, es) }
	}
	tokenWith := func(mutate func(*znode.DelegationToken)) func(*dualwrite.Batch) *dualwrite.Batch {
		tok := token
		tok.Renewers = append([]string(nil), token.Renewers...)
		mutate(&tok)
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(tok) }
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
		{invalid{"token owner not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.Owner = "User:\xff" })}, `owner "User:\xff"`},
		{invalid{"token requester not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.TokenRequester = "User:a\xff" })}, `requester "User:a\xff"`},
		{invalid{"token renewer not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.Renewers = append(t.Renewers, "User:\xfe") })}, `renewer "User:\xfe"`},
		{invalid{"token renewer not a User", tokenWith(func(t *znode.DelegationToken) { t.Renewers = []string{"Group:ops"} })}, `renewer "Group:ops"`},
		{invalid{"token id not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.TokenID = "t\xff" })}, `delegation token name "t\xff"`},
	}
}

// newName is a change that writes a name anew.
type newName struct {
	name, names string
	change      func(b *dualwrite.Batch) *dualwrite.Batch
}

func newNameChanges() []newName {
	long := strings.Repeat("t", 250)
	withName := func(name string) dualwrite.Topic { return topic(name, 1) }
	configs := func(r dualwrite.ConfigResource) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteConfigs(r, map[string]string{"a": "b"}) }
	}
	return []newName{
		{"topic name of 250 characters", `topic name "` + long + `": 250 characters`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName(long)) }},
		{"topic name with a space", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName("a b")) }},
		{"topic name with a colon", `topic name "a:b"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName("a:b")) }},
		{"topic name not ASCII", `topic name "zürich"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName("zürich")) }},
		{"topic name .", `topic name "."`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withName(".")) }},
		{"topic updated under a new bad name", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdateTopic(withName("a b")) }},
		{"partitions created under a bad name", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.CreatePartitions("a b", withName("a b").Partitions)
		}},
		{"partitions updated under a bad name", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.UpdatePartitions("a b", map[int32]dualwrite.PartitionState{0: {Leader: 1, ISR: []int32{1}}})
		}},
		{"configs of a new topic with a bad name", `topic name "a b"`, configs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "a b"})},
		{"configs of a new broker not numbered", `broker name "one"`, configs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "one"})},
		{"configs of a new broker numbered -1", `broker name "-1"`, configs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "-1"})},
		{"ACLs of a new Cluster resource not kafka-cluster", `resource pattern name "my-cluster"`, func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.WriteACLs(dualwrite.ResourcePattern{Type: znode.ResourceCluster, Name: "my-cluster", PatternType: znode.PatternLiteral}, readAll)
		}},
	}
}

// maxNameReads is the most requests a change refused for a new name may
// send: the sync and the read that find its entity missing.
const maxNameReads = 3

// Fault: none. A name Kafka refuses for a new topic, broker or Cluster
// resource, whose entity ZooKeeper does not hold, is refused with an
// error naming it, after the read that finds the entity missing and
// before any write: ZooKeeper is unchanged.
func TestNewNamesFollowKafka(t *testing.T) {
	c := newCluster(t)
	for _, n := range newNameChanges() {
		t.Run(n.name, func(t *testing.T) {
			c := c.in(t)
			before := c.tree()
			c.faults.ResetCounts()
			s, _, err := n.change(c.c.Batch()).Apply(testContext(t), at(c.s, 400))
			if !errors.Is(err, migrationzk.ErrInvalidArgument) || !strings.Contains(err.Error(), n.names) {
				t.Fatalf("got %v, want ErrInvalidArgument naming %s", err, n.names)
			}
			if n := c.writeRequests(); n != 0 {
				t.Fatalf("%d write requests sent", n)
			}
			if got := c.faults.Requests(); got > maxNameReads {
				t.Fatalf("%d requests sent (%v), want at most %d", got, c.faults.Counts(), maxNameReads)
			}
			if s.MigrationZkVersion != c.s.MigrationZkVersion {
				t.Fatalf("State moved to /migration version %d", s.MigrationZkVersion)
			}
			c.sameTree("after a new name refused", before, c.tree())
		})
	}
}

// legacyName is a topic name Kafka 3.9 refuses for a new topic, as tools
// writing ZooKeeper directly have left them.
const legacyName = "legacy topic!"

// Fault: none. Entities ZooKeeper holds under names Kafka refuses for new
// ones, as legacy tools left them, are written to and deleted: the topic
// updated, its partitions created and updated, its configs written and
// deleted, a broker config and a Cluster ACL written, then all deleted.
func TestLegacyNamesWrittenTo(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	legacy := topic(legacyName, 1)
	c.createAll(znode.TopicPath(legacyName), topicBytes(legacy))
	c.createAll(znode.PartitionStatePath(legacyName, 0), znode.PartitionState{Leader: 1, ISR: []int32{1, 2, 3}, ControllerEpoch: 1}.Encode())
	c.createAll("/config/brokers/legacy", znode.Config{"a": "b"}.Encode())
	cluster := dualwrite.ResourcePattern{Type: znode.ResourceCluster, Name: "legacy-cluster", PatternType: znode.PatternLiteral}
	c.createAll("/kafka-acl/Cluster/legacy-cluster", znode.ACLs(readAll).Encode())

	grown := topic(legacyName, 2)
	s, _, err := c.c.Batch().UpdateTopic(grown).
		CreatePartitions(legacyName, map[int32]dualwrite.Partition{1: grown.Partitions[1]}).
		UpdatePartitions(legacyName, map[int32]dualwrite.PartitionState{0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}}}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: legacyName}, map[string]string{"retention.ms": "1000"}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "legacy"}, map[string]string{"a": "c"}).
		WriteACLs(cluster, append(readAll, znode.ACLEntry{Principal: "User:bob", PermissionType: znode.PermissionAllow, Operation: znode.OperationAlter, Host: "*"})).
		Apply(ctx, at(c.s, 400))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.config("/config/topics/" + legacyName); got["retention.ms"] != "1000" {
		t.Fatalf("topic config %v", got)
	}
	if got := c.config("/config/brokers/legacy"); got["a"] != "c" {
		t.Fatalf("broker config %v", got)
	}
	if got := c.children(znode.TopicPartitionsPath(legacyName)); strings.Join(got, ",") != "0,1" {
		t.Fatalf("partitions %v, want 0,1", got)
	}
	data, _, _ := c.get(znode.PartitionStatePath(legacyName, 0))
	if st, err := znode.DecodePartitionState(data); err != nil || st.Leader != 2 {
		t.Fatalf("partition 0 state %s: %v", data, err)
	}
	s, _, err = c.c.Batch().DeleteTopic(legacyName).
		DeleteConfigs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "legacy"}).
		DeleteACLs(cluster).Apply(ctx, at(s, 401))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{znode.TopicPath(legacyName), "/config/topics/" + legacyName, "/config/brokers/legacy", "/kafka-acl/Cluster/legacy-cluster"} {
		if c.version(p) != -1 {
			t.Fatalf("%s is still there", p)
		}
	}
	c.checkState(s)
}
