package dualwrite_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// invalid is a change a Batch must refuse before anything is sent.
type invalid struct {
	name   string
	change func(b *dualwrite.Batch) *dualwrite.Batch
}

func invalidTopicChanges() []invalid {
	withPartition := func(name string, id int32) dualwrite.Topic {
		return dualwrite.Topic{Name: name, Partitions: map[int32]dualwrite.Partition{id: topic("x", 1).Partitions[0]}}
	}
	recovering := topic("orders", 1)
	recovering.Partitions[0] = dualwrite.Partition{Replicas: []int32{1}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1}, LeaderRecoveryState: 2}}
	states := func(id int32) map[int32]dualwrite.PartitionState {
		return map[int32]dualwrite.PartitionState{id: {Leader: 1}}
	}
	return []invalid{
		{"empty topic name", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withPartition("", 0)) }},
		{"topic name with a slash", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withPartition("a/b", 0)) }},
		{"topic name ..", func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdateTopic(withPartition("..", 0)) }},
		{"topic name with NUL", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeleteTopic("a\x00b") }},
		{"topic without partitions", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(dualwrite.Topic{Name: "orders"}) }},
		{"negative partition of a topic", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(withPartition("orders", -1)) }},
		{"negative partition created", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.CreatePartitions("orders", withPartition("orders", -2).Partitions)
		}},
		{"negative partition updated", func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdatePartitions("orders", states(-1)) }},
		{"negative partition deleted", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeletePartitions("orders", []int32{0, -1}) }},
		{"partitions of an unnamed topic", func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdatePartitions("", states(0)) }},
		{"leader recovery state 2", func(b *dualwrite.Batch) *dualwrite.Batch { return b.CreateTopic(recovering) }},
	}
}

func invalidConfigChanges() []invalid {
	quotas := func(e dualwrite.QuotaEntity, q map[string]float64, scram map[string]znode.ScramCredential) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteClientQuotas(e, q, scram) }
	}
	scram := map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	return []invalid{
		{"config resource of an unknown type", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.WriteConfigs(dualwrite.ConfigResource{Type: "user", Name: "alice"}, map[string]string{"a": "b"})
		}},
		{"broker name with a slash", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.DeleteConfigs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1/2"})
		}},
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

func invalidOtherChanges() []invalid {
	entry := func(mutate func(*znode.ACLEntry)) []znode.ACLEntry {
		e := readAll[0]
		mutate(&e)
		return []znode.ACLEntry{e}
	}
	acls := func(p dualwrite.ResourcePattern, entries []znode.ACLEntry) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteACLs(p, entries) }
	}
	owner := token
	owner.Owner = "alice"
	return []invalid{
		{"ACL entry with an invalid operation", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.Operation = "Fly" }))},
		{"ACL entry with an invalid permission", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.PermissionType = "Maybe" }))},
		{"ACL entry without a principal", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.Principal = "" }))},
		{"ACL principal without a type", acls(literalFoo, entry(func(e *znode.ACLEntry) { e.Principal = "alice" }))},
		{"ACLs of an unknown resource type", acls(dualwrite.ResourcePattern{Type: "Planet", Name: "x", PatternType: znode.PatternLiteral}, readAll)},
		{"ACLs of an unknown pattern type", acls(dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "x", PatternType: "MATCH"}, readAll)},
		{"ACLs of an unnamed resource", acls(dualwrite.ResourcePattern{Type: znode.ResourceTopic, PatternType: znode.PatternLiteral}, readAll)},
		{"ACLs of a resource named ..", acls(dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "..", PatternType: znode.PatternLiteral}, readAll)},
		{"delegation token without an id", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(znode.DelegationToken{}) }},
		{"delegation token owner without a type", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(owner) }},
		{"delegation token deleted without an id", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeleteDelegationToken("") }},
		{"negative producer id", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(-1) }},
		{"producer id block past the int64 range", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(math.MaxInt64 - 10) }},
		{"valid change before an invalid one", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(6000).DeleteTopic("") }},
	}
}

// Fault: none. Each invalid change fails its Batch with an error matching
// migrationzk.ErrInvalidArgument, naming what is wrong where the row
// says, before a request is sent: ZooKeeper is unchanged, /migration
// included.
func TestInvalidChangesWriteNothing(t *testing.T) {
	c := newCluster(t)
	all := append(append(invalidTopicChanges(), invalidConfigChanges()...), invalidOtherChanges()...)
	names := map[string]string{}
	for _, r := range refusedBeforeSending() {
		all, names[r.name] = append(all, r.invalid), r.names
	}
	for _, inv := range all {
		t.Run(inv.name, func(t *testing.T) {
			c := c.in(t)
			before := c.tree()
			c.faults.ResetCounts()
			s, _, err := inv.change(c.c.Batch()).Apply(testContext(t), at(c.s, 400))
			if !errors.Is(err, migrationzk.ErrInvalidArgument) {
				t.Fatalf("got %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), names[inv.name]) {
				t.Fatalf("got %v, want an error naming %s", err, names[inv.name])
			}
			if n := c.faults.Requests(); n != 0 {
				t.Fatalf("%d requests sent (%v), want none: no read decides", n, c.faults.Counts())
			}
			if s.MigrationZkVersion != c.s.MigrationZkVersion {
				t.Fatalf("State moved to /migration version %d", s.MigrationZkVersion)
			}
			c.sameTree("after an invalid change", before, c.tree())
		})
	}
}

// undecodable is a change that finds, at path, a znode holding data that
// does not decode.
type undecodable struct {
	name, path string
	change     func(b *dualwrite.Batch) *dualwrite.Batch
}

func undecodableChanges() []undecodable {
	return []undecodable{
		{"topic", znode.TopicPath("orders"), func(b *dualwrite.Batch) *dualwrite.Batch { return b.UpdateTopic(topic("orders", 1)) }},
		{"partition state", znode.PartitionStatePath("orders", 0), func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.UpdatePartitions("orders", map[int32]dualwrite.PartitionState{0: {Leader: 1, ISR: []int32{1}}})
		}},
		{"topic config", "/config/topics/orders", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}, map[string]string{"a": "b"})
		}},
		{"user quotas", "/config/users/alice", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.WriteClientQuotas(aliceQuota, map[string]float64{znode.QuotaConsumerByteRate: 1}, nil)
		}},
		{"ACLs", "/kafka-acl/Topic/foo", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteACLs(literalFoo, readAll) }},
		{"delegation token", "/delegation_token/tokens/tok1", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(token) }},
		{"producer id block", znode.ProducerIDBlockPath, func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(6000) }},
	}
}

// Fault: none. A znode in the way that does not decode fails the change
// with a *znode.DecodeError naming its path, in a Batch with a valid
// change beside it: nothing is written, the znode least of all.
func TestUndecodableZnodeInTheWay(t *testing.T) {
	for _, u := range undecodableChanges() {
		t.Run(u.name, func(t *testing.T) {
			c := newCluster(t)
			c.createAll(u.path, []byte(`{"version":1,"garbage`))
			before := c.tree()
			c.faults.ResetCounts()
			_, _, err := u.change(c.c.Batch().WriteConfigs(brokerOne, map[string]string{"a": "b"})).Apply(testContext(t), at(c.s, 400))
			var de *znode.DecodeError
			if !errors.As(err, &de) || de.Path != u.path || !strings.Contains(err.Error(), u.path) {
				t.Fatalf("got %v, want a DecodeError naming %s", err, u.path)
			}
			if n := c.writeRequests(); n != 0 {
				t.Fatalf("%d write requests sent", n)
			}
			c.sameTree("after a change refused", before, c.tree())
		})
	}
}
