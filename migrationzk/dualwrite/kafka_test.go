package dualwrite_test

// Kafka 3.9's own expectations of its migration clients (ZkMigrationClientTest,
// ZkConfigMigrationClientTest, ZkAclMigrationClientTest, KafkaZkClientTest,
// ZkMigrationIntegrationTest), reproduced against a real ZooKeeper. Kafka's
// harness starts, as newCluster does, with /migration at version 0 and a
// claimed /controller_epoch at version 1. Kafka's tests call its migration
// clients one at a time, each call one fenced request per znode; the
// /migration versions they assert are those of one transaction per call,
// as ours, unless a test's comment says otherwise.

import (
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// kafkaTopicID is the topic id of Kafka's byte examples,
// ASNFZ4mrze_-3LqYdlQyEA.
var kafkaTopicID = znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: -0x0123456789abcdf0}

// Fault: none. testCreateNewTopic and testIdempotentCreateTopics: a new
// topic moves /migration to 1 and reads back byte for byte as Kafka
// writes it. Created again, Kafka sends nothing and stays at 1; ours
// writes the checkpoint alone, in one request, and reaches 2.
func TestKafkaCreateNewAndIdempotentTopic(t *testing.T) {
	c := newCluster(t)
	tp := topic("test", 2)
	tp.ID = kafkaTopicID
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), tp)
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	c.wantData(znode.TopicPath("test"), `{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`)
	c.wantData(znode.PartitionStatePath("test", 1), `{"controller_epoch":5,"leader":2,"version":1,"leader_epoch":0,"isr":[2,3,1]}`)
	c.wantData("/config/topics/test", `{"version":1,"config":{}}`)
	before := c.tree()
	c.faults.ResetCounts()
	if s, err = c.c.CreateTopic(testContext(t), s, tp); err != nil {
		t.Fatal(err)
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("%d write requests for a topic that exists, want the checkpoint alone", n)
	}
	c.sameTree("after creating the topic again", before, c.tree(), "/migration")
	c.wantVersion(s, 2)
}

// Fault: none. testUpdateExistingPartitions: on a topic a ZooKeeper-mode
// controller created, updateTopicPartitions of two partitions gives
// version 1 and reads back leader 1, epoch 6, ISR [1,2] and leader 3,
// epoch 7, ISR [3]; deleteTopic gives 2 and leaves nothing of the topic.
func TestKafkaUpdateExistingPartitions(t *testing.T) {
	c := newCluster(t)
	c.seedZkModeTopic("test", 2)
	s, err := c.c.UpdatePartitions(testContext(t), at(c.s, 200), "test", map[int32]dualwrite.PartitionState{
		0: {Leader: 1, LeaderEpoch: 6, ISR: []int32{1, 2}}, 1: {Leader: 3, LeaderEpoch: 7, ISR: []int32{3}}})
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	for p, want := range map[int32]znode.PartitionState{
		0: {ControllerEpoch: 5, Leader: 1, LeaderEpoch: 6, ISR: []int32{1, 2}},
		1: {ControllerEpoch: 5, Leader: 3, LeaderEpoch: 7, ISR: []int32{3}},
	} {
		if got := c.partitionState("test", p); !got.Equal(want) {
			t.Fatalf("partition %d: %+v, want %+v", p, got, want)
		}
	}
	if s, err = c.c.DeleteTopic(testContext(t), at(s, 201), "test"); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	if _, _, ok := c.get(znode.TopicPath("test")); ok || c.version("/config/topics/test") != -1 {
		t.Fatal("the topic or its config is still there")
	}
}

// Fault: none. testReadMigrateAndWriteProducerId: writeProducerId(6000)
// gives version 1; the block reads back as [6000, 6999] for broker -1, so
// the next block a ZooKeeper-mode broker allocates starts at 7000.
func TestKafkaWriteProducerID(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.WriteProducerID(testContext(t), at(c.s, 200), 6000)
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	data := c.wantData(znode.ProducerIDBlockPath, `{"version":1,"broker":-1,"block_start":"6000","block_end":"6999"}`)
	block, err := znode.DecodeProducerIDBlock(data)
	if err != nil || block.NextBlockFirstID() != 7000 {
		t.Fatalf("next block starts at %d (%v), want 7000", block.NextBlockFirstID(), err)
	}
}

// Fault: none. testUpdateExistingTopicWithNewAndChangedPartitions:
// createTopic gives 1, updateTopic with a third partition 2,
// createTopicPartitions of it 3, and the new partition's state reads back
// at partition epoch 0, its znode version.
func TestKafkaNewAndChangedPartitions(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), topic("test", 2))
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	grown := topic("test", 3)
	if s, err = c.c.UpdateTopic(testContext(t), at(s, 201), grown); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	if s, err = c.c.CreatePartitions(testContext(t), at(s, 202), "test", map[int32]dualwrite.Partition{2: grown.Partitions[2]}); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 3)
	if v := c.version(znode.PartitionStatePath("test", 2)); v != 0 {
		t.Fatalf("new partition at partition epoch %d, want 0", v)
	}
	if got := c.partitionState("test", 2); got.Leader != 3 || got.LeaderEpoch != 0 {
		t.Fatalf("new partition state %+v", got)
	}
}

// Fault: none. testTopicAndBrokerConfigsMigrationWithSnapshots: a full
// sync writes the topic with its id and assignment, its state (leader 1,
// leader epoch 100, recovered, ISR [1,2,3]), and broker and topic configs,
// a password config in plain text as Kafka's NOOP encoder writes it. Kafka
// makes one call per item; ours is one Batch, one transaction: version 1.
func TestKafkaSnapshotTopicAndConfigs(t *testing.T) {
	c := newCluster(t)
	tp := dualwrite.Topic{Name: "test", ID: kafkaTopicID, Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, State: dualwrite.PartitionState{Leader: 1, LeaderEpoch: 100, ISR: []int32{1, 2, 3}}}}}
	s, _, err := c.c.Batch().CreateTopic(tp).
		WriteConfigs(brokerOne, map[string]string{"ssl.keystore.password": "SECRET"}).
		WriteConfigs(dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "test"}, map[string]string{"segment.ms": "100000"}).
		Apply(testContext(t), at(c.s, 200))
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	c.wantData(znode.TopicPath("test"), `{"partitions":{"0":[1,2,3]},"topic_id":"ASNFZ4mrze_-3LqYdlQyEA","adding_replicas":{},"removing_replicas":{},"version":3}`)
	c.wantData(znode.PartitionStatePath("test", 0), `{"controller_epoch":5,"leader":1,"version":1,"leader_epoch":100,"isr":[1,2,3]}`)
	if got := c.config("/config/brokers/1")["ssl.keystore.password"]; got != "SECRET" {
		t.Fatalf("broker password config %q", got)
	}
	if got := c.config("/config/topics/test"); len(got) != 1 || got["segment.ms"] != "100000" {
		t.Fatalf("topic configs %v", got)
	}
}

// Fault: none. testMigrationBrokerConfigs: writeConfigs of broker 1 makes
// config_change_0000000000 = {"version":2,"entity_path":"brokers/1"},
// deleteConfigs config_change_0000000001 with the same data, and there is
// no config_change_0000000002. Versions 1 and 2.
func TestKafkaBrokerConfigNotifications(t *testing.T) {
	c := newCluster(t)
	c.create("/config/brokers/1", znode.Config{"default.replication.factor": "1"}.Encode())
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 200), brokerOne, map[string]string{"default.replication.factor": "2"})
	if err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 1)
	if s, err = c.c.DeleteConfigs(testContext(t), at(s, 201), brokerOne); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	want := `{"version":2,"entity_path":"brokers/1"}`
	if got := c.children(znode.ConfigChangesPath); strings.Join(got, ",") != "config_change_0000000000,config_change_0000000001" {
		t.Fatalf("notifications %v", got)
	}
	c.wantData("/config/changes/config_change_0000000000", want)
	c.wantData("/config/changes/config_change_0000000001", want)
	if c.version("/config/brokers/1") != -1 {
		t.Fatal("broker 1's configs are still there")
	}
}

// Fault: none. testCreateConfigChangeNotification: the notification's
// parent is created when missing. Kafka's test echoes its argument; ours
// is the entity path Kafka's migration writes, topics/topic1.
func TestKafkaConfigChangeNotificationParent(t *testing.T) {
	c := newCluster(t)
	if err := c.admin.Delete(c.p(znode.ConfigChangesPath), -1); err != nil {
		t.Fatal(err)
	}
	s, err := c.c.WriteConfigs(testContext(t), at(c.s, 200), dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "topic1"},
		map[string]string{"retention.ms": "1"})
	if err != nil {
		t.Fatal(err)
	}
	c.wantData(znode.ConfigChangesPath, "")
	c.wantData("/config/changes/config_change_0000000000", `{"version":2,"entity_path":"topics/topic1"}`)
	c.wantVersion(s, 1)
}

// seedZkModeTopic creates topic name with n partitions of three replicas
// as a ZooKeeper-mode controller (epoch 1) does.
func (c *cluster) seedZkModeTopic(name string, n int) {
	c.t.Helper()
	tp := topic(name, n)
	c.create(znode.TopicPath(name), topicBytes(tp))
	c.create(znode.TopicPartitionsPath(name), nil)
	for _, p := range sortedPartitions(tp) {
		st := tp.Partitions[p].State
		c.create(znode.PartitionPath(name, p), nil)
		c.create(znode.PartitionStatePath(name, p), znode.PartitionState{ControllerEpoch: 1, Leader: st.Leader, ISR: st.ISR}.Encode())
	}
}

// partitionState decodes the state of partition p of topic.
func (c *cluster) partitionState(topic string, p int32) znode.PartitionState {
	c.t.Helper()
	data, _, _ := c.get(znode.PartitionStatePath(topic, p))
	st, err := znode.DecodePartitionState(data)
	if err != nil {
		c.t.Fatalf("partition %d of %s: %v", p, topic, err)
	}
	return st
}

// wantData fails unless path holds want, and returns it.
func (c *cluster) wantData(path, want string) []byte {
	c.t.Helper()
	data, _, ok := c.get(path)
	if !ok || string(data) != want {
		c.t.Fatalf("%s holds %q (present %v), want %q", path, data, ok, want)
	}
	return data
}
