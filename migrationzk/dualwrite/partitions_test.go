package dualwrite_test

import (
	"errors"
	"fmt"
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

// Fault: none. What a Batch plans for a topic's partitions is seen by
// the changes after it: a topic deleted and created again in one Batch
// (as Diff replaces a topic), its partitions created again, then one of
// them updated, writes each new partition once, with the update, in one
// transaction.
func TestPartitionsPlannedEarlierInTheBatch(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	s, err := c.c.CreateTopic(ctx, at(c.s, 400), topic("orders", 2))
	if err != nil {
		t.Fatal(err)
	}
	renamed := topic("orders", 2)
	renamed.ID = znode.Uuid{MostSignificantBits: 7, LeastSignificantBits: 8}
	update := dualwrite.PartitionState{Leader: 2, LeaderEpoch: 3, ISR: []int32{2}}
	c.faults.ResetCounts()
	s, _, err = c.c.Batch().DeleteTopic("orders").CreateTopic(renamed).CreatePartitions("orders", renamed.Partitions).
		UpdatePartitions("orders", map[int32]dualwrite.PartitionState{0: update}).Apply(ctx, at(s, 401))
	if err != nil {
		t.Fatal(err)
	}
	if n := c.writeRequests(); n != 1 {
		t.Fatalf("%d transactions, want 1", n)
	}
	data, _, _ := c.get(znode.PartitionStatePath("orders", 0))
	st, err := znode.DecodePartitionState(data)
	if err != nil || st.Leader != 2 || st.LeaderEpoch != 3 {
		t.Fatalf("partition 0 holds %s (%v), want leader 2 at epoch 3", data, err)
	}
	if got := c.children(znode.TopicPartitionsPath("orders")); strings.Join(got, ",") != "0,1" {
		t.Fatalf("partitions %v, want 0,1", got)
	}
	c.checkState(s)
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

// partitionRows are the partitions' rows of the tables every domain fills.
func partitionRows() domainRows {
	withName := func(name string) dualwrite.Topic { return topic(name, 1) }
	return domainRows{
		invalid: invalidPartitionChanges(),
		refused: invalidReplicaChanges(),
		newNames: []newName{
			{"partitions created under a bad name", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.CreatePartitions("a b", withName("a b").Partitions)
			}},
			{"partitions updated under a bad name", `topic name "a b"`, func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.UpdatePartitions("a b", map[int32]dualwrite.PartitionState{0: {Leader: 1, ISR: []int32{1}}})
			}},
		},
		undecodable: []undecodable{
			{"partition state", znode.PartitionStatePath("orders", 0), func(b *dualwrite.Batch) *dualwrite.Batch {
				return b.UpdatePartitions("orders", map[int32]dualwrite.PartitionState{0: {Leader: 1, ISR: []int32{1}}})
			}},
		},
		diff:   append(partitionDiffCases(), statelessDiffCases()...),
		values: partitionValuesCases(),
	}
}

func invalidPartitionChanges() []invalid {
	recovering := topic("orders", 1)
	recovering.Partitions[0] = dualwrite.Partition{Replicas: []int32{1}, State: dualwrite.PartitionState{Leader: 1, ISR: []int32{1}, LeaderRecoveryState: 2}}
	states := func(id int32) map[int32]dualwrite.PartitionState {
		return map[int32]dualwrite.PartitionState{id: {Leader: 1}}
	}
	return []invalid{
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

func partitionDiffCases() []diffCase {
	return []diffCase{
		{name: "partition added", desired: editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[2] = topic("x", 3).Partitions[2] }),
			want: []string{"update-topic orders", "create-partitions orders partitions [2]"}},
		{name: "partition removed", desired: editTopic("orders", func(t *dualwrite.Topic) { delete(t.Partitions, 1) }),
			want: []string{"update-topic orders", "delete-partitions orders partitions [1]"}},
		{name: "partition state", desired: editTopic("orders", func(t *dualwrite.Topic) {
			p := t.Partitions[0]
			p.State.Leader, p.State.LeaderEpoch, p.State.ISR = p.Replicas[1], 1, p.Replicas[1:]
			t.Partitions[0] = p
		}), want: []string{"update-partitions orders partitions [0]"}},
		{name: "leader recovery", desired: editTopic("payments", func(t *dualwrite.Topic) {
			p := t.Partitions[0]
			p.State.LeaderRecoveryState = 1
			t.Partitions[0] = p
		}), want: []string{"update-partitions payments partitions [0]"}},
	}
}

// statelessDiffCases are the Diff rows of partitions without a state and
// of partitions outside the assignment: what the desired image does not
// ask for is never planned.
func statelessDiffCases() []diffCase {
	noState := func(id int32) func(*dualwrite.Image) {
		return editTopic("orders", func(t *dualwrite.Topic) { dropState(t, id) })
	}
	stray := func(st *dualwrite.PartitionState) func(*dualwrite.Image) {
		return editTopic("orders", func(t *dualwrite.Topic) { t.Unassigned = map[int32]dualwrite.UnassignedPartition{7: {State: st}} })
	}
	both := func(fs ...func(*dualwrite.Image)) func(*dualwrite.Image) {
		return func(img *dualwrite.Image) {
			for _, f := range fs {
				f(img)
			}
		}
	}
	state := dualwrite.PartitionState{Leader: 1, LeaderEpoch: 4, ISR: []int32{1}}
	return []diffCase{
		{name: "no state on both sides", current: noState(1), desired: noState(1)},
		{name: "no state in ZooKeeper, one desired", current: noState(1), want: []string{"update-partitions orders partitions [1]"}},
		{name: "a state in ZooKeeper, none desired", desired: noState(1)},
		{name: "a new partition without a state", desired: both(editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[2] = topic("x", 3).Partitions[2] }), noState(2)),
			want: []string{"update-topic orders"}},
		{name: "unassigned on both sides", current: stray(&state), desired: stray(nil)},
		{name: "unassigned without a state on both sides", current: stray(nil), desired: stray(nil)},
		{name: "unassigned desired, absent in ZooKeeper", desired: stray(&state)},
		{name: "unassigned in ZooKeeper, absent desired", current: stray(nil), want: []string{"delete-partitions orders partitions [7]"}},
		{name: "unassigned in ZooKeeper, assigned desired", current: stray(nil), desired: editTopic("orders", func(t *dualwrite.Topic) { t.Partitions[7] = topic("x", 3).Partitions[2] }),
			want: []string{"update-topic orders", "update-partitions orders partitions [7]"}},
		{name: "unassigned with its state, assigned desired with it", current: stray(&state), desired: editTopic("orders", func(t *dualwrite.Topic) {
			t.Partitions[7] = dualwrite.Partition{Replicas: []int32{1}, State: state}
		}), want: []string{"update-topic orders"}},
		{name: "assigned in ZooKeeper, unassigned desired", desired: editTopic("orders", func(t *dualwrite.Topic) {
			delete(t.Partitions, 1)
			t.Unassigned = map[int32]dualwrite.UnassignedPartition{1: {}}
		}), want: []string{"update-topic orders"}},
	}
}

// dropState makes partition id of t one without a state, as Read finds
// it, through the image JSON (the only way to build one).
func dropState(t *dualwrite.Topic, id int32) {
	doc := fmt.Sprintf(`{"schema_version":2,"topics":[{"name":"x","partitions":[{"id":%d,"replicas":[1],"state":null}]}]}`, id)
	img, err := dualwrite.ReadImageJSON(strings.NewReader(doc))
	if err != nil {
		panic(err)
	}
	p := img.Topics["x"].Partitions[id]
	p.Replicas = t.Partitions[id].Replicas
	t.Partitions[id] = p
}

func partitionValuesCases() []valuesCase {
	return []valuesCase{
		{name: "leader, epoch and ISR",
			desired: editTopic("orders", func(t *dualwrite.Topic) {
				p := t.Partitions[1]
				p.State = dualwrite.PartitionState{Leader: 3, LeaderEpoch: 7, ISR: []int32{3}}
				t.Partitions[1] = p
			}),
			want: "update-partitions orders partitions [1]\n    partition 1 leader: 2 -> 3\n    partition 1 leader_epoch: 0 -> 7\n    partition 1 isr: [2,3,1] -> [3]\n"},
		{name: "partitions deleted",
			desired: editTopic("orders", func(t *dualwrite.Topic) { delete(t.Partitions, 1) }),
			want: "update-topic orders\n    partition 1 replicas: [2,3,1] -> (none)\n" +
				"delete-partitions orders partitions [1]\n    partition 1 leader: 2 -> (none)\n    partition 1 leader_epoch: 0 -> (none)\n" +
				"    partition 1 isr: [2,3,1] -> (none)\n    partition 1 leader_recovery_state: 0 -> (none)\n"},
	}
}
