package dualwrite_test

import (
	"errors"
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

// namedInvalid is an invalid change whose error must contain names: the
// field at fault and its value.
type namedInvalid struct {
	invalid
	names string
}

// Fault: none. Each invalid change fails its Batch with an error matching
// migrationzk.ErrInvalidArgument, naming what is wrong where the row
// says, before a request is sent: ZooKeeper is unchanged, /migration
// included.
func TestInvalidChangesWriteNothing(t *testing.T) {
	c := newCluster(t)
	all := []invalid{{"valid change before an invalid one", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteProducerID(6000).DeleteTopic("") }}}
	names := map[string]string{}
	for _, d := range domains() {
		all = append(all, d.invalid...)
		for _, r := range d.refused {
			all, names[r.name] = append(all, r.invalid), r.names
		}
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

// Fault: none. A znode in the way that does not decode fails the change
// with a *znode.DecodeError naming its path, in a Batch with a valid
// change beside it: nothing is written, the znode least of all.
func TestUndecodableZnodeInTheWay(t *testing.T) {
	for _, u := range everyDomain(func(d domainRows) []undecodable { return d.undecodable }) {
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

// newName is a change that writes a name anew.
type newName struct {
	name, names string
	change      func(b *dualwrite.Batch) *dualwrite.Batch
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
	for _, n := range everyDomain(func(d domainRows) []newName { return d.newNames }) {
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
