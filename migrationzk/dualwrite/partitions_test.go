package dualwrite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// Fault: none. Partitions of a topic ZooKeeper lacks are refused, with an
// error naming the topic znode, and nothing is written: creating them
// would create the topic znode with null data, which no broker can read.
// With the topic created earlier in the same Batch they are written.
func TestPartitionsOfMissingTopic(t *testing.T) {
	c := newCluster(t)
	for name, b := range map[string]*dualwrite.Batch{
		"create": c.c.Batch().CreatePartitions("ghost", topic("ghost", 2).Partitions),
		"update": c.c.Batch().UpdatePartitions("ghost", map[int32]dualwrite.PartitionState{0: {Leader: 1, ISR: []int32{1}}}),
	} {
		before := c.tree()
		c.faults.ResetCounts()
		if _, _, err := b.Apply(testContext(t), at(c.s, 300)); err == nil || !strings.Contains(err.Error(), "/brokers/topics/ghost") {
			t.Fatalf("%s: got %v, want an error naming /brokers/topics/ghost", name, err)
		}
		if n := c.writeRequests(); n != 0 {
			t.Fatalf("%s: %d write requests sent", name, n)
		}
		c.sameTree(name+" partitions of a missing topic", before, c.tree())
	}
	s, _, err := c.c.Batch().CreateTopic(topic("ghost", 1)).CreatePartitions("ghost", topic("ghost", 2).Partitions).
		Apply(testContext(t), at(c.s, 300))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.children(znode.TopicPartitionsPath("ghost")); strings.Join(got, ",") != "0,1" {
		t.Fatalf("partitions %v, want 0,1", got)
	}
	c.wantVersion(s, 1)
}

// Fault: none. Partition states updated alone are checked against the
// replicas the topic znode assigns, read as planning reads it anyway: a
// leader outside them is refused and nothing is written; with the
// assignment moved in the same Batch, the same state is written.
func TestUpdatedStatesCheckedAgainstAssignment(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	s, err := c.c.CreateTopic(ctx, at(c.s, 400), topic("orders", 1))
	if err != nil {
		t.Fatal(err)
	}
	moved := map[int32]dualwrite.PartitionState{0: {Leader: 7, LeaderEpoch: 1, ISR: []int32{7}}}
	before := c.tree()
	c.faults.ResetCounts()
	if _, err := c.c.UpdatePartitions(ctx, at(s, 401), "orders", moved); !errors.Is(err, migrationzk.ErrInvalidArgument) || !strings.Contains(err.Error(), "leader 7") {
		t.Fatalf("got %v, want ErrInvalidArgument naming leader 7", err)
	}
	if n := c.writeRequests(); n != 0 {
		t.Fatalf("%d write requests sent", n)
	}
	c.sameTree("after a leader outside the replicas", before, c.tree())
	reassigned := dualwrite.Topic{Name: "orders", ID: topic("orders", 1).ID, Partitions: map[int32]dualwrite.Partition{0: {Replicas: []int32{7, 8}}}}
	if s, _, err = c.c.Batch().UpdateTopic(reassigned).UpdatePartitions("orders", moved).Apply(ctx, at(s, 402)); err != nil {
		t.Fatal(err)
	}
	data, _, _ := c.get(znode.PartitionStatePath("orders", 0))
	if st, err := znode.DecodePartitionState(data); err != nil || st.Leader != 7 {
		t.Fatalf("state %s: %v", data, err)
	}
	c.checkState(s)
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

// kafkaShapedDeletePartitions is deleteTopicPartitions: a delete of each
// partition znode, its state left in place.
func (k *kafkaShaped) kafkaShapedDeletePartitions(topic string, ids []int32) error {
	var errs []error
	for i, id := range ids {
		errs = append(errs, k.kafkaShapedMulti(&zk.DeleteRequest{Path: k.c.p(znode.PartitionPath(topic, id)), Version: -1}, i == len(ids)-1))
	}
	return errors.Join(errs...)
}

// kafkaShapedUpdatePartitions is updateTopicPartitions, which
// handleSnapshot also calls for partitions ZooKeeper lacks: a SetData of
// each state.
func (k *kafkaShaped) kafkaShapedUpdatePartitions(topic string, states map[int32]dualwrite.PartitionState) error {
	var errs []error
	i := 0
	for id, st := range states {
		i++
		state := znode.PartitionState{ControllerEpoch: k.s.KRaftControllerEpoch, Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ISR: st.ISR}
		req := &zk.SetDataRequest{Path: k.c.p(znode.PartitionStatePath(topic, id)), Data: state.Encode(), Version: -1}
		errs = append(errs, k.kafkaShapedMulti(req, i == len(states)))
	}
	return errors.Join(errs...)
}
