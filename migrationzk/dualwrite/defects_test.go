package dualwrite_test

// Each test here shows one way Kafka 3.9's migration clients go wrong,
// with the Kafka-shaped client of kafkashaped_test.go, next to the same
// situation through dualwrite, which must get it right.

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func worldACL(string) []zk.ACL { return zk.WorldACL(zk.PermAll) }

// Fault: reply lost after commit, on the request that creates the config
// change notification. Kafka creates it with a plain sequential create
// after the multi and resends it: two notifications of one change.
// dualwrite creates it inside the change's transaction: one.
func TestDefectNotificationDuplicatedByResend(t *testing.T) {
	k := newCluster(t)
	k.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpCreate, Path: znode.ConfigChangePrefix})
	err := k.kafkaShapedClient(at(k.s, 300)).kafkaShapedWriteConfigs(znode.BrokerConfigEntity("1"), znode.Config{"a": "1"}, worldACL)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.notifications(znode.ConfigChangesPath, "config_change_"); len(got) != 2 {
		t.Fatalf("Kafka-shaped: %d notifications %q; the defect is 2", len(got), got)
	}

	c := newCluster(t)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpCreate, Path: znode.ConfigChangePrefix})
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 300), brokerOne, map[string]string{"a": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.notifications(znode.ConfigChangesPath, "config_change_"); len(got) != 1 {
		t.Fatalf("dualwrite: %d notifications %q, want 1", len(got), got)
	}
	c.checkState(s)
}

// Fault: request lost, a rival controller elected before it is resent,
// on the request that creates the config change notification. Kafka's
// notification is a plain create: the fenced controller creates it after
// the rival's election.
func TestDefectFencedNotifyKafkaShaped(t *testing.T) {
	k := newCluster(t)
	k.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpCreate, Path: znode.ConfigChangePrefix, Then: k.raiseEpoch})
	err := k.kafkaShapedClient(at(k.s, 300)).kafkaShapedWriteConfigs(znode.BrokerConfigEntity("1"), znode.Config{"a": "1"}, worldACL)
	if err != nil {
		t.Fatal(err)
	}
	if k.czxid("/config/changes/config_change_0000000000") < k.mzxid("/controller_epoch") {
		t.Fatal("Kafka-shaped: the notification predates the rival's election; the defect is that it follows it")
	}
}

// Fault: a rival controller elected right when dualwrite's transaction
// reaches the server (request lost, then resent), and right after it
// commits (reply lost). Before, nothing is written; after, the change and
// its notification are in whole, older than the election. Either way the
// writer is fenced and retired, and the call's outcome is unknown: the
// client cannot tell a lost request from a lost reply.
func TestDefectFencedNotifyDualwrite(t *testing.T) {
	c := newCluster(t)
	before := c.tree()
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: transaction, Then: c.raiseEpoch})
	_, err := c.c.WriteConfigs(testContext(t), at(c.s, 300), brokerOne, map[string]string{"a": "1"})
	c.checkFenced(err, before)

	c = newCluster(t)
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: transaction, Then: c.raiseEpoch})
	_, err = c.c.WriteConfigs(testContext(t), at(c.s, 300), brokerOne, map[string]string{"a": "1"})
	if !errors.Is(err, migrationzk.ErrFenced) || !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("got %v, want ErrFenced with the outcome unknown", err)
	}
	if got := c.notifications(znode.ConfigChangesPath, "config_change_"); len(got) != 1 || c.config("/config/brokers/1")["a"] != "1" {
		t.Fatalf("the change landed before the election: want its config and 1 notification, got %q", got)
	}
	if c.czxid("/config/changes/config_change_0000000000") > c.mzxid("/controller_epoch") {
		t.Fatal("dualwrite created a notification after the rival's election")
	}
}

// Fault: none. Kafka's deleteTopicPartitions deletes a partition's znode
// with its state still below it: NotEmpty. dualwrite deletes the state
// first.
func TestDefectDeletePartitionsLeavesState(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), topic("orders", 3))
	if err != nil {
		t.Fatal(err)
	}
	before := c.tree()
	if err := c.kafkaShapedClient(at(s, 300)).kafkaShapedDeletePartitions("orders", []int32{2}); !errors.Is(err, zk.ErrNotEmpty) {
		t.Fatalf("Kafka-shaped: %v; the defect is NotEmpty", err)
	}
	c.sameTree("after the Kafka-shaped delete", before, c.tree())

	if s, err = c.c.DeletePartitions(testContext(t), at(s, 300), "orders", []int32{2}); err != nil {
		t.Fatal(err)
	}
	if got := c.children(znode.TopicPartitionsPath("orders")); strings.Join(got, ",") != "0,1" {
		t.Fatalf("dualwrite left partitions %v, want 0,1", got)
	}
	c.wantVersion(s, 2)
}

// Fault: none. Kafka's full sync writes a partition that ZooKeeper lacks
// with SetData: NoNode. dualwrite creates it, its state at version 0.
func TestDefectSnapshotSetsMissingPartition(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), topic("orders", 2))
	if err != nil {
		t.Fatal(err)
	}
	missing := map[int32]dualwrite.PartitionState{2: {Leader: 3, LeaderEpoch: 0, ISR: []int32{3, 1, 2}}}
	if err := c.kafkaShapedClient(at(s, 300)).kafkaShapedUpdatePartitions("orders", missing); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("Kafka-shaped: %v; the defect is NoNode", err)
	}
	if s, err = c.c.UpdatePartitions(testContext(t), at(s, 300), "orders", missing); err != nil {
		t.Fatal(err)
	}
	data, st, ok := c.get(znode.PartitionStatePath("orders", 2))
	if !ok || st.Version != 0 || string(data) != `{"controller_epoch":5,"leader":3,"version":1,"leader_epoch":0,"isr":[3,1,2]}` {
		t.Fatalf("dualwrite: partition 2 state %s (present %v, version %v)", data, ok, st)
	}
	c.wantVersion(s, 2)
}

// Fault: none. Kafka's deleteTopic of a topic already gone fails on its
// last request: NoNode. dualwrite finds nothing to delete and writes the
// checkpoint alone.
func TestDefectDeleteDeletedTopic(t *testing.T) {
	c := newCluster(t)
	if err := c.kafkaShapedClient(at(c.s, 300)).kafkaShapedDeleteTopic("orders"); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("Kafka-shaped: %v; the defect is NoNode", err)
	}
	before := c.tree()
	c.faults.ResetCounts()
	s, err := c.c.DeleteTopic(testContext(t), at(c.s, 300), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("dualwrite sent %d write requests, want the checkpoint alone", n)
	}
	c.sameTree("after deleting a topic that is gone", before, c.tree(), "/migration")
	c.wantVersion(s, 1)
}

// Fault: none. An earlier createTopic left only the topic znode (Kafka's
// requests are not one transaction). Kafka's createTopic then lands the
// rest, /migration included, but returns the version it was given, since
// the topic znode existed: its next write fails. dualwrite finishes the
// topic and returns the version ZooKeeper holds.
func TestDefectCreateTopicReturnsStaleVersion(t *testing.T) {
	k := newCluster(t)
	kafka := k.kafkaShapedClient(at(k.s, 300))
	if err := kafka.kafkaShapedMulti(kafka.kafkaShapedCreate(znode.TopicPath("orders"), topicBytes(topic("orders", 2))), false); err != nil {
		t.Fatal(err)
	}
	s, err := kafka.kafkaShapedCreateTopic(topic("orders", 2))
	if err != nil || s.MigrationZkVersion != 0 || k.version("/migration") != 1 {
		t.Fatalf("Kafka-shaped: %v, version %d, ZooKeeper %d; the defect is 0 against 1", err, s.MigrationZkVersion, k.version("/migration"))
	}
	if err := kafka.kafkaShapedSyncProducerID(6000); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("Kafka-shaped next write: %v; the defect is BadVersion", err)
	}

	c := newCluster(t)
	c.create(znode.TopicPath("orders"), topicBytes(topic("orders", 2)))
	if s, err = c.c.CreateTopic(testContext(t), at(c.s, 300), topic("orders", 2)); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	if s, err = c.c.WriteProducerID(testContext(t), at(s, 301), 6000); err != nil {
		t.Fatalf("dualwrite next write: %v", err)
	}
	c.wantVersion(s, 2)
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

// Fault: none. Kafka writes the producer-id block [next, next+999],
// whose next block starts at next+1000, never at KRaft's next id: every
// full sync rewrites it. dualwrite compares the block it would write.
func TestDefectProducerIDRewrittenEverySync(t *testing.T) {
	k := newCluster(t)
	kafka := k.kafkaShapedClient(at(k.s, 300))
	for sync := 0; sync < 2; sync++ {
		if err := kafka.kafkaShapedSyncProducerID(6000); err != nil {
			t.Fatal(err)
		}
	}
	if v := k.version(znode.ProducerIDBlockPath); v != 2 {
		t.Fatalf("Kafka-shaped: block at version %d after two syncs; the defect is 2", v)
	}

	c := newCluster(t)
	s := at(c.s, 300)
	for sync := 0; sync < 2; sync++ {
		var err error
		if s, err = c.c.WriteProducerID(testContext(t), s, 6000); err != nil {
			t.Fatal(err)
		}
	}
	if v := c.version(znode.ProducerIDBlockPath); v != 1 {
		t.Fatalf("dualwrite: block at version %d after two syncs, want 1", v)
	}
	c.wantVersion(s, 2)
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
