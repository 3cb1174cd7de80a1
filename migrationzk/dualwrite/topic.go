package dualwrite

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Topic is a topic as KRaft's image holds it.
type Topic struct {
	Name string
	// ID is the topic id; the zero Uuid writes a topic without one.
	ID znode.Uuid
	// Partitions is the topic's assignment, the partitions its topic
	// znode lists, by id.
	Partitions map[int32]Partition
	// Unassigned holds the partitions ZooKeeper holds below the topic
	// (brokers/topics/<t>/partitions/<id>) that its assignment lacks, as
	// Read finds them; nil for none. Writes never create them: a desired
	// topic that holds one keeps it as ZooKeeper holds it, one that lacks
	// it deletes it (Diff). KRaft's image holds none.
	Unassigned map[int32]UnassignedPartition
}

// UnassignedPartition is a partition znode outside its topic's
// assignment: no replicas of its own, only the state ZooKeeper may hold
// for it.
type UnassignedPartition struct {
	// State is the partition's state; nil when ZooKeeper holds none.
	State *PartitionState
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
// state; partitions ZooKeeper holds beyond t's (its Partitions and
// Unassigned) are deleted, state first. A partition without a state
// (HasState) gets none: it is in the topic znode only. Of what exists
// already, only what differs is written. A topic ZooKeeper holds under
// another id (or with an id when t has none) is left as it is, and the
// error is a *TopicIDError naming both ids: ZooKeeper-mode brokers fail
// the partitions of a topic whose id changes. A topic ZooKeeper holds
// without an id gets t's. A topic ZooKeeper lacks must have a name Kafka
// accepts for a new topic (at most 249 ASCII letters, digits, '.', '_'
// and '-'; not "." or ".."); every partition must pass the rules of the
// package doc.
func (c *Client) CreateTopic(ctx context.Context, s migrationzk.State, t Topic) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().CreateTopic(t))
}

// UpdateTopic writes t's assignment and id (the topic znode) when they
// differ from ZooKeeper's; its partitions are left to CreatePartitions and
// UpdatePartitions, as Kafka's updateTopic leaves them. As Kafka's
// updateTopic, it writes t's id even over another one; Diff plans such a
// change as ChangeReplaceTopic, not through UpdateTopic. Its name is
// checked as CreateTopic checks it, and its replica lists.
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
// A partition without a state (HasState) is left as it is.
// A topic ZooKeeper lacks fails the call, and nothing is written.
func (c *Client) CreatePartitions(ctx context.Context, s migrationzk.State, topic string, parts map[int32]Partition) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().CreatePartitions(topic, parts))
}

// UpdatePartitions writes the leader and ISR of partitions of a topic; a
// partition ZooKeeper lacks is created with it, a topic it lacks fails the
// call, and nothing is written. Each leader and ISR is checked against
// the replicas the topic znode assigns, as the Batch leaves it.
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
	t.Partitions = maps.Clone(t.Partitions) // recorded as it is now, as the topic znode is
	t.Unassigned = maps.Clone(t.Unassigned)
	err := checkTopic(t, sortedIDs(t.Partitions))
	ids := statedIDs(t.Partitions)
	if err == nil {
		err = checkStates(t.Name, ids, t.Partitions)
	}
	nameErr := topicNameRule(t.Name)
	want := topicZnode(t)
	data := want.Encode()
	b.expect(3 + 2*len(ids))
	return b.add(func(v *view, s migrationzk.State) bool {
		if !v.admitName(nameErr, znode.TopicPath(t.Name)) {
			return false
		}
		known, conflict := v.topicID(t.Name, t.ID)
		if !known || conflict {
			return known
		}
		ok := v.putTopic(t.Name, want, data)
		ok = v.ensure(znode.TopicConfigEntity(t.Name).Path(), emptyConfig) && ok
		if len(ids) > 0 {
			ok = v.ensure(znode.TopicPartitionsPath(t.Name), nil) && ok
		}
		if !v.listPartitions(t.Name) {
			return false
		}
		ok = v.putPartitions(t.Name, ids, func(id int32) PartitionState { return t.Partitions[id].State }, s) && ok
		return v.removeOtherPartitions(t) && ok
	}, err)
}

// UpdateTopic records UpdateTopic's change.
func (b *Batch) UpdateTopic(t Topic) *Batch {
	want := topicZnode(t)
	data := want.Encode()
	err := checkTopic(t, sortedIDs(t.Partitions))
	nameErr := topicNameRule(t.Name)
	return b.add(func(v *view, _ migrationzk.State) bool {
		return v.admitName(nameErr, znode.TopicPath(t.Name)) && v.putTopic(t.Name, want, data)
	}, err)
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
	parts = maps.Clone(parts) // recorded as they are now
	err := checkName("topic", topic)
	if err == nil {
		err = checkAssignment(topic, sortedIDs(parts), parts)
	}
	ids := statedIDs(parts)
	if err == nil {
		err = checkStates(topic, ids, parts)
	}
	nameErr := topicNameRule(topic)
	b.expect(2 * len(ids))
	return b.add(func(v *view, s migrationzk.State) bool {
		if !v.admitName(nameErr, znode.TopicPath(topic)) {
			return false
		}
		ok := v.requireTopic(topic) && v.ensure(znode.TopicPartitionsPath(topic), nil)
		if !v.listPartitions(topic) {
			return false
		}
		return v.putPartitions(topic, ids, func(id int32) PartitionState { return parts[id].State }, s) && ok
	}, err)
}

// UpdatePartitions records UpdatePartitions' change.
func (b *Batch) UpdatePartitions(topic string, states map[int32]PartitionState) *Batch {
	states = maps.Clone(states) // recorded as they are now
	ids := sortedIDs(states)
	err := checkName("topic", topic)
	if err == nil {
		err = checkIDs(topic, ids)
	}
	for _, id := range ids {
		if err == nil {
			err = cmp.Or(checkRecovery(topic, id, states[id]), checkISR(topic, id, states[id].ISR))
		}
	}
	nameErr := topicNameRule(topic)
	b.expect(len(ids))
	return b.add(func(v *view, s migrationzk.State) bool {
		// Everything is asked for at once, so that a cold delta reads in
		// one wave.
		ok := v.admitName(nameErr, znode.TopicPath(topic))
		ok = v.checkAssigned(topic, ids, states) && ok
		return v.putPartitions(topic, ids, func(id int32) PartitionState { return states[id] }, s) && ok
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

// putTopic plans the topic znode of topic to hold want, encoded as data
// (once, when the change is recorded, not in each round of planning).
func (v *view) putTopic(topic string, want znode.Topic, data []byte) bool {
	_, known := v.put(znode.TopicPath(topic), data, func(cur []byte) (bool, error) {
		got, err := znode.DecodeTopic(cur)
		return err == nil && got.Equal(want), err
	})
	return known
}

// topicID reports whether the id of the topic ZooKeeper holds as topic
// is known once the ops planned so far apply, and whether it conflicts
// with id: the topic exists with an id other than id. A conflict fails
// the batch with a *TopicIDError; a topic znode that does not decode is
// left to putTopic.
func (v *view) topicID(topic string, id znode.Uuid) (known, conflict bool) {
	z, known := v.current(znode.TopicPath(topic))
	if !known || !z.Exists {
		return known, false
	}
	held, err := znode.DecodeTopic(z.Data)
	if err != nil || !idReplaced(held.ID, id) {
		return true, false
	}
	if !v.fresh(znode.TopicPath(topic)) {
		v.wantData[znode.TopicPath(topic)] = true // an error must not rest on memory
		return false, false
	}
	if v.err == nil {
		v.err = &TopicIDError{Topic: topic, Held: held.ID, Requested: id}
	}
	return true, true
}

// TopicIDError is CreateTopic's error for a topic ZooKeeper holds under
// another id than the one requested; ZooKeeper is left as it is.
type TopicIDError struct {
	Topic string
	// Held is the id ZooKeeper holds; Requested the one asked for, the
	// zero Uuid for none.
	Held, Requested znode.Uuid
}

func (e *TopicIDError) Error() string {
	return fmt.Sprintf("dualwrite: topic %q exists with id %s, not %s; it is left as it is (Sync replaces a topic whose id changed)",
		e.Topic, e.Held, orNone(idText(e.Requested)))
}

// statedIDs returns, sorted, the ids of the partitions of parts that have
// a state.
func statedIDs(parts map[int32]Partition) []int32 {
	ids := make([]int32, 0, len(parts))
	for id, p := range parts {
		if !p.noState {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// topicZnode is the content of t's topic znode.
func topicZnode(t Topic) znode.Topic {
	z := znode.Topic{ID: t.ID, Partitions: make(map[int32]znode.ReplicaAssignment, len(t.Partitions))}
	for id, p := range t.Partitions {
		z.Partitions[id] = znode.ReplicaAssignment{Replicas: p.Replicas, AddingReplicas: p.AddingReplicas, RemovingReplicas: p.RemovingReplicas}
	}
	return z
}

// putPartitions plans each partition of ids of topic, with its parent
// partitions znode, holding the state stateOf gives it, stamped with s's
// KRaft controller epoch. The topic znode must exist.
func (v *view) putPartitions(topic string, ids []int32, stateOf func(id int32) PartitionState, s migrationzk.State) bool {
	ok := v.requireTopic(topic)
	for _, id := range ids {
		ok = v.putPartition(topic, id, stateOf(id), s) && ok
	}
	return ok
}

// putPartition plans partition id of topic as putPartitions does, once
// the topic is known to exist. The state is looked at first: when it
// exists, so does the partition znode, which then needs no read.
func (v *view) putPartition(topic string, id int32, st PartitionState, s migrationzk.State) bool {
	statePath := znode.PartitionStatePath(topic, id)
	cur, known := v.current(statePath)
	if !known || (!cur.Exists && !v.ensure(parent(statePath), nil)) {
		return false
	}
	want := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: st.Leader, LeaderEpoch: st.LeaderEpoch,
		ISR: st.ISR, LeaderRecoveryState: st.LeaderRecoveryState}
	_, known = v.putOver(statePath, cur, want.Encode(), func(cur []byte) (bool, error) {
		got, err := znode.DecodePartitionState(cur)
		return err == nil && got.Equal(want), err
	})
	return known
}

// listPartitions reports whether the partitions of topic were listed, and
// asks for the listing if not. Planning new partitions after it spares
// them a read each: the listing proves missing those it lacks.
func (v *view) listPartitions(topic string) bool {
	_, listed := v.childrenOf(znode.TopicPartitionsPath(topic))
	return listed
}

// requireTopic fails the batch when the topic znode of topic does not
// exist once the ops planned before apply: its partitions would otherwise
// be created under a topic znode of null data, which no broker can read.
// It reports whether that is known.
func (v *view) requireTopic(topic string) bool {
	exists, known := v.exists(znode.TopicPath(topic))
	if known && !exists && !v.fresh(znode.TopicPath(topic)) {
		v.wantData[znode.TopicPath(topic)] = true // an error must not rest on memory
		return false
	}
	if known && !exists && v.lacking == nil {
		v.lacking = fmt.Errorf("dualwrite: %s does not exist: the partitions of topic %q are written with their topic (CreateTopic) or after it", znode.TopicPath(topic), topic)
	}
	return known
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
// that t does not have, in its assignment or outside it.
func (v *view) removeOtherPartitions(t Topic) bool {
	names, ok := v.childrenOf(znode.TopicPartitionsPath(t.Name))
	for _, name := range names {
		id, isID := parseID(name)
		_, kept := t.Partitions[id]
		_, keptUnassigned := t.Unassigned[id]
		if isID && (kept || keptUnassigned) {
			continue
		}
		ok = v.removeTree(znode.TopicPartitionsPath(t.Name)+"/"+name) && ok
	}
	return ok
}

// checkTopic checks a topic of a change and its assignment; ids are its
// partitions' ids, sorted.
func checkTopic(t Topic, ids []int32) error {
	if err := checkName("topic", t.Name); err != nil {
		return err
	}
	if len(t.Partitions) == 0 {
		return invalidf("topic %q has no partitions", t.Name)
	}
	return checkAssignment(t.Name, ids, t.Partitions)
}

// checkAssignment checks the partition ids of a change (the keys of
// parts, sorted) and the replicas of each, those of a reassignment
// included.
func checkAssignment(topic string, ids []int32, parts map[int32]Partition) error {
	if err := checkIDs(topic, ids); err != nil {
		return err
	}
	for _, id := range ids {
		if err := cmp.Or(checkReplicas(topic, id, parts[id].Replicas), checkReassignment(topic, id, parts[id])); err != nil {
			return err
		}
	}
	return nil
}

// checkStates checks the leader state of each partition of ids against
// its replicas.
func checkStates(topic string, ids []int32, parts map[int32]Partition) error {
	for _, id := range ids {
		p := parts[id]
		if err := cmp.Or(checkRecovery(topic, id, p.State), checkLeaderState(topic, id, p.Replicas, p.State)); err != nil {
			return err
		}
	}
	return nil
}

// checkRecovery checks a leader recovery state: one Kafka knows (0,
// recovered, or 1, recovering), which is all a broker reads.
func checkRecovery(topic string, id int32, st PartitionState) error {
	if rs := st.LeaderRecoveryState; rs != 0 && rs != 1 {
		return invalidf("topic %q partition %d: leader recovery state %d, want 0 (recovered) or 1 (recovering)", topic, id, rs)
	}
	return nil
}

// checkAssigned checks the states of the partitions of ids of topic
// against the replicas the topic znode assigns them once the ops planned
// so far apply, and fails the batch on the first that breaks the rule. A
// topic znode that is missing or does not decode checks nothing: the
// write that needs it fails or is refused on its own. It reports whether
// the topic znode is known.
func (v *view) checkAssigned(topic string, ids []int32, states map[int32]PartitionState) bool {
	z, known := v.current(znode.TopicPath(topic))
	if !known || !z.Exists {
		return known
	}
	assigned, err := v.decodeTopic(z)
	if err != nil {
		return true
	}
	for _, id := range ids {
		a, ok := assigned.Partitions[id]
		if !ok {
			continue
		}
		err := checkLeaderState(topic, id, a.Replicas, states[id])
		if err != nil && !v.fresh(znode.TopicPath(topic)) {
			v.wantData[znode.TopicPath(topic)] = true // an error must not rest on memory
			return false
		}
		if err != nil && v.err == nil {
			v.err = err
		}
	}
	return true
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
