package dualwrite

import (
	"context"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Topic is a topic as KRaft's image holds it.
type Topic struct {
	Name string
	// ID is the topic id; the zero Uuid writes a topic without one.
	ID         znode.Uuid
	Partitions map[int32]Partition
}

// Partition is one partition of a topic: its assignment and its leader
// state.
type Partition struct {
	// Replicas lists the replicas in order, the preferred leader first.
	Replicas []int32
	// AddingReplicas and RemovingReplicas list the replicas a reassignment
	// in progress adds and removes; nil when there is none.
	AddingReplicas, RemovingReplicas []int32
	State                            PartitionState
	// noState is set by Read on a partition ZooKeeper holds no state for.
	noState bool
}

// PartitionState is a partition's leader and in-sync replicas. Its
// controller epoch, in ZooKeeper, is the KRaft controller epoch of the
// State the change is written with, as Kafka writes it.
type PartitionState struct {
	Leader      int32
	LeaderEpoch int32
	ISR         []int32
	// LeaderRecoveryState is 1 while the leader recovers, else 0.
	LeaderRecoveryState int8
}

// CreateTopic makes ZooKeeper hold topic t as a ZooKeeper-mode controller
// would have created it: the topic znode with its assignment and id, an
// empty /config/topics/<t> unless one exists, and every partition with its
// state; partitions ZooKeeper holds beyond t's are deleted, state first.
// Of what exists already, only what differs is written.
func (c *Client) CreateTopic(ctx context.Context, s migrationzk.State, t Topic) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().CreateTopic(t))
}

// UpdateTopic writes t's assignment (the topic znode) when it differs from
// ZooKeeper's; its partitions are left to CreatePartitions and
// UpdatePartitions, as Kafka's updateTopic leaves them.
func (c *Client) UpdateTopic(ctx context.Context, s migrationzk.State, t Topic) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().UpdateTopic(t))
}

// DeleteTopic deletes the topic and everything below it, children first,
// and its config znode. A topic that is gone is no error.
func (c *Client) DeleteTopic(ctx context.Context, s migrationzk.State, name string) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteTopic(name))
}

// CreatePartitions creates the given partitions of an existing topic, each
// with its state; partitions that exist get the given state if it differs.
func (c *Client) CreatePartitions(ctx context.Context, s migrationzk.State, topic string, parts map[int32]Partition) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().CreatePartitions(topic, parts))
}

// UpdatePartitions writes the leader and ISR of partitions of a topic; a
// partition ZooKeeper lacks is created with it.
func (c *Client) UpdatePartitions(ctx context.Context, s migrationzk.State, topic string, states map[int32]PartitionState) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().UpdatePartitions(topic, states))
}

// DeletePartitions deletes partitions of a topic, each state first.
// Partitions that are gone are no error.
func (c *Client) DeletePartitions(ctx context.Context, s migrationzk.State, topic string, ids []int32) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeletePartitions(topic, ids))
}

// apply applies b and returns its State.
func (c *Client) apply(ctx context.Context, s migrationzk.State, b *Batch) (migrationzk.State, error) {
	st, _, err := b.Apply(ctx, s)
	return st, err
}

// CreateTopic records CreateTopic's change.
func (b *Batch) CreateTopic(t Topic) *Batch {
	err := checkTopic(t)
	return b.add(func(v *view, s migrationzk.State) bool {
		ok := v.putTopic(t)
		ok = v.ensure(znode.TopicConfigEntity(t.Name).Path(), emptyConfig) && ok
		ok = v.ensure(znode.TopicPartitionsPath(t.Name), nil) && ok
		for _, id := range sortedIDs(t.Partitions) {
			ok = v.putPartition(t.Name, id, t.Partitions[id].State, s) && ok
		}
		return v.removeOtherPartitions(t) && ok
	}, err)
}

// UpdateTopic records UpdateTopic's change.
func (b *Batch) UpdateTopic(t Topic) *Batch {
	return b.add(func(v *view, _ migrationzk.State) bool { return v.putTopic(t) }, checkTopic(t))
}

// DeleteTopic records DeleteTopic's change.
func (b *Batch) DeleteTopic(name string) *Batch {
	return b.add(func(v *view, _ migrationzk.State) bool {
		names, ok := v.childrenOf(znode.TopicPartitionsPath(name))
		for _, p := range childPaths(znode.TopicPartitionsPath(name), names) {
			ok = v.removeTree(p) && ok
		}
		ok = v.remove(znode.TopicPartitionsPath(name)) && ok
		ok = v.remove(znode.TopicConfigEntity(name).Path()) && ok
		return v.remove(znode.TopicPath(name)) && ok
	}, checkName("topic", name))
}

// CreatePartitions records CreatePartitions' change.
func (b *Batch) CreatePartitions(topic string, parts map[int32]Partition) *Batch {
	err := checkName("topic", topic)
	if err == nil {
		err = checkIDs(topic, sortedIDs(parts))
	}
	return b.add(func(v *view, s migrationzk.State) bool {
		ok := v.ensure(znode.TopicPartitionsPath(topic), nil)
		for _, id := range sortedIDs(parts) {
			ok = v.putPartition(topic, id, parts[id].State, s) && ok
		}
		return ok
	}, err)
}

// UpdatePartitions records UpdatePartitions' change.
func (b *Batch) UpdatePartitions(topic string, states map[int32]PartitionState) *Batch {
	err := checkName("topic", topic)
	if err == nil {
		err = checkIDs(topic, sortedIDs(states))
	}
	return b.add(func(v *view, s migrationzk.State) bool {
		ok := true
		for _, id := range sortedIDs(states) {
			ok = v.putPartition(topic, id, states[id], s) && ok
		}
		return ok
	}, err)
}

// DeletePartitions records DeletePartitions' change.
func (b *Batch) DeletePartitions(topic string, ids []int32) *Batch {
	err := checkName("topic", topic)
	if err == nil {
		err = checkIDs(topic, ids)
	}
	return b.add(func(v *view, _ migrationzk.State) bool {
		ok := true
		for _, id := range ids {
			ok = v.removeTree(znode.PartitionPath(topic, id)) && ok
		}
		return ok
	}, err)
}

// emptyConfig is the content of a config znode without configs.
var emptyConfig = znode.Config{}.Encode()

// putTopic plans the topic znode of t.
func (v *view) putTopic(t Topic) bool {
	want := topicZnode(t)
	_, known := v.put(znode.TopicPath(t.Name), want.Encode(), func(cur []byte) (bool, error) {
		got, err := znode.DecodeTopic(cur)
		return err == nil && got.Equal(want), err
	})
	return known
}

// topicZnode is the content of t's topic znode.
func topicZnode(t Topic) znode.Topic {
	z := znode.Topic{ID: t.ID, Partitions: make(map[int32]znode.ReplicaAssignment, len(t.Partitions))}
	for id, p := range t.Partitions {
		z.Partitions[id] = znode.ReplicaAssignment{Replicas: p.Replicas, AddingReplicas: p.AddingReplicas, RemovingReplicas: p.RemovingReplicas}
	}
	return z
}

// putPartition plans partition id of topic, with its parent partitions
// znode, holding st stamped with s's KRaft controller epoch.
func (v *view) putPartition(topic string, id int32, st PartitionState, s migrationzk.State) bool {
	ok := v.ensure(znode.PartitionPath(topic, id), nil)
	want := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: st.Leader, LeaderEpoch: st.LeaderEpoch,
		ISR: st.ISR, LeaderRecoveryState: st.LeaderRecoveryState}
	_, known := v.put(znode.PartitionStatePath(topic, id), want.Encode(), func(cur []byte) (bool, error) {
		got, err := znode.DecodePartitionState(cur)
		return err == nil && got.Equal(want), err
	})
	return ok && known
}

// ensure plans a create of p holding data, with its missing parents,
// unless p exists.
func (v *view) ensure(p string, data []byte) bool {
	_, known := v.put(p, data, func([]byte) (bool, error) { return true, nil })
	return known
}

// removeTree plans the delete of partition znode p: its state child, then
// p.
func (v *view) removeTree(p string) bool {
	ok := v.remove(p + "/state")
	return v.remove(p) && ok
}

// removeOtherPartitions plans the delete of the partitions of t's topic
// that t does not have.
func (v *view) removeOtherPartitions(t Topic) bool {
	names, ok := v.childrenOf(znode.TopicPartitionsPath(t.Name))
	for _, name := range names {
		id, isID := parseID(name)
		if _, kept := t.Partitions[id]; isID && kept {
			continue
		}
		ok = v.removeTree(znode.TopicPartitionsPath(t.Name)+"/"+name) && ok
	}
	return ok
}

// checkTopic checks a topic of a change.
func checkTopic(t Topic) error {
	if err := checkName("topic", t.Name); err != nil {
		return err
	}
	if len(t.Partitions) == 0 {
		return invalidf("topic %q has no partitions", t.Name)
	}
	return checkIDs(t.Name, sortedIDs(t.Partitions))
}

// checkName checks a name that becomes one znode name.
func checkName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return invalidf("%s name %q", what, name)
	}
	return nil
}

// checkIDs checks partition ids.
func checkIDs(topic string, ids []int32) error {
	for _, id := range ids {
		if id < 0 {
			return invalidf("topic %q: partition %d", topic, id)
		}
	}
	return nil
}

// sortedIDs returns the keys of m in ascending order.
func sortedIDs[V any](m map[int32]V) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// parseID parses a partition znode's name.
func parseID(name string) (int32, bool) {
	var id int64
	if name == "" || len(name) > 10 || (len(name) > 1 && name[0] == '0') {
		return 0, false
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int64(c-'0')
	}
	return int32(id), id <= 1<<31-1
}
