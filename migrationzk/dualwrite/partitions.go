package dualwrite

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// HasState reports whether p has a leader state: false for a partition
// Read found without a state znode (or ReadImageJSON read with "state":
// null); true for every partition a caller builds. Diff plans a state
// written for a partition of current without one only when desired holds
// one, and none for a partition of desired without one.
func (p Partition) HasState() bool { return !p.noState }

// CreatePartitions applies [Batch.CreatePartitions] alone.
func (c *Client) CreatePartitions(ctx context.Context, s migrationzk.State, topic string, parts map[int32]Partition) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().CreatePartitions(topic, parts))
}

// UpdatePartitions applies [Batch.UpdatePartitions] alone.
func (c *Client) UpdatePartitions(ctx context.Context, s migrationzk.State, topic string, states map[int32]PartitionState) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().UpdatePartitions(topic, states))
}

// DeletePartitions applies [Batch.DeletePartitions] alone.
func (c *Client) DeletePartitions(ctx context.Context, s migrationzk.State, topic string, ids []int32) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeletePartitions(topic, ids))
}

// CreatePartitions records the change that creates the given partitions of
// an existing topic, each with its state; partitions that exist get the
// given state if it differs. A partition without a state (HasState) is
// left as it is. A topic ZooKeeper lacks, unless a change recorded before
// creates it, fails Apply, and nothing is written.
func (b *Batch) CreatePartitions(topic string, parts map[int32]Partition) *Batch {
	r := recordPartitions(parts) // recorded as they are now
	err := checkName("topic", topic)
	if err == nil {
		err = cmp.Or(r.checkAssignments(topic), r.checkStates(topic))
	}
	nameErr := topicNameRule(topic)
	b.expect(2*len(r.ids), 1) // new partitions are planned by id
	return b.add(func(v *view, s migrationzk.State) bool {
		if !v.admitName(nameErr, znode.TopicPath(topic)) {
			return false
		}
		ok := v.requireTopic(topic) && v.ensure(znode.TopicPartitionsPath(topic), nil)
		if !v.listPartitions(topic) {
			return false
		}
		return v.putPartitions(topic, r.ids, r.states, s) && ok
	}, err)
}

// UpdatePartitions records the change that writes the leader and ISR of
// partitions of a topic; a partition ZooKeeper lacks is created with it, a
// topic it lacks fails Apply, and nothing is written. Each leader and ISR
// is checked against the replicas the topic znode assigns, as the Batch
// leaves it.
func (b *Batch) UpdatePartitions(topic string, states map[int32]PartitionState) *Batch {
	ids, list := recordStates(states) // recorded as they are now
	err := checkName("topic", topic)
	if err == nil {
		err = checkIDs(topic, ids)
	}
	for i, id := range ids {
		if err == nil {
			err = cmp.Or(checkRecovery(topic, id, list[i]), checkISR(topic, id, list[i].ISR))
		}
	}
	nameErr := topicNameRule(topic)
	b.expect(len(ids), len(ids))
	return b.add(func(v *view, s migrationzk.State) bool {
		// Everything is asked for at once, so that a cold delta reads in
		// one wave.
		ok := v.admitName(nameErr, znode.TopicPath(topic))
		ok = v.checkAssigned(topic, ids, list) && ok
		return v.putPartitions(topic, ids, list, s) && ok
	}, err)
}

// DeletePartitions records the change that deletes partitions of a topic,
// each state first. Partitions that are gone are no error.
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

// putPartitions plans each partition of ids of topic, with its parent
// partitions znode, holding its state of states (aligned with ids),
// stamped with s's KRaft controller epoch. The topic znode must exist.
func (v *view) putPartitions(topic string, ids []int32, states []PartitionState, s migrationzk.State) bool {
	ok := v.requireTopic(topic)
	var fresh *partitionCreates
	if c := v.created[topic]; c != nil && v.createdHere(znode.TopicPartitionsPath(topic)) {
		fresh = newPartitionCreates(v, c, topic, ids, s)
	}
	for i, id := range ids {
		if fresh != nil && fresh.create(id, states[i]) {
			continue
		}
		ok = v.putPartition(topic, id, states[i], s) && ok
	}
	return ok
}

// createPartition plans the creates of partition id of topic and its
// state, as putPartition does, when the partitions znode is created by
// the ops planned so far and nothing is planned at either path: both are
// then missing, which needs no lookup. It reports whether it planned them.
func (v *view) createPartition(topic string, id int32, st PartitionState, s migrationzk.State) bool {
	statePath := znode.PartitionStatePath(topic, id)
	partPath := parent(statePath)
	_, partPlanned := v.plannedAt(partPath)
	_, statePlanned := v.plannedAt(statePath)
	if partPlanned || statePlanned {
		return false
	}
	v.create(partPath, nil)
	v.create(statePath, stateZnode(st, s).Encode())
	return true
}

// stateZnode is the partition state znode holding st, stamped with s's
// KRaft controller epoch.
func stateZnode(st PartitionState, s migrationzk.State) znode.PartitionState {
	return znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: st.Leader, LeaderEpoch: st.LeaderEpoch,
		ISR: st.ISR, LeaderRecoveryState: st.LeaderRecoveryState}
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
	want := stateZnode(st, s)
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

// removeTree plans the delete of partition znode p: its state child, then
// p.
func (v *view) removeTree(p string) bool {
	ok := v.remove(p + "/state")
	return v.remove(p) && ok
}

// removeOtherPartitions plans the delete of the partitions of topic that
// the change does not keep: those of neither r nor unassigned.
func (v *view) removeOtherPartitions(topic string, r recordedPartitions, unassigned map[int32]UnassignedPartition) bool {
	names, ok := v.childrenOf(znode.TopicPartitionsPath(topic))
	for _, name := range names {
		id, isID := parseID(name)
		_, keptUnassigned := unassigned[id]
		if isID && (r.has(id) || keptUnassigned) {
			continue
		}
		ok = v.removeTree(znode.TopicPartitionsPath(topic)+"/"+name) && ok
	}
	return ok
}

// checkPartition checks the id of a partition of a change and its
// replicas, those of a reassignment included.
func checkPartition(topic string, a znode.PartitionAssignment) error {
	if err := checkID(topic, a.Partition); err != nil {
		return err
	}
	if err := checkReplicas(topic, a.Partition, a.Replicas); err != nil {
		return err
	}
	return checkReassignment(topic, a.Partition, a.ReplicaAssignment)
}

// checkRecovery checks a leader recovery state: one Kafka knows (0,
// recovered, or 1, recovering), which is all a broker reads.
func checkRecovery(topic string, id int32, st PartitionState) error {
	if rs := st.LeaderRecoveryState; rs != 0 && rs != 1 {
		return invalidf("topic %q partition %d: leader recovery state %d, want 0 (recovered) or 1 (recovering)", topic, id, rs)
	}
	return nil
}

// checkAssigned checks the states (aligned with ids) of the partitions of
// ids of topic against the replicas the topic znode assigns them once the
// ops planned so far apply, and fails the batch on the first that breaks
// the rule. A
// topic znode that is missing or does not decode checks nothing: the
// write that needs it fails or is refused on its own. It reports whether
// the topic znode is known.
func (v *view) checkAssigned(topic string, ids []int32, states []PartitionState) bool {
	z, known := v.current(znode.TopicPath(topic))
	if !known || !z.Exists {
		return known
	}
	assigned, err := v.decodeTopic(z)
	if err != nil {
		return true
	}
	for i, id := range ids {
		a, ok := assigned.Partitions[id]
		if !ok {
			continue
		}
		err := checkLeaderState(topic, id, a.Replicas, states[i])
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
		if err := checkID(topic, id); err != nil {
			return err
		}
	}
	return nil
}

// checkID checks a partition id.
func checkID(topic string, id int32) error {
	if id < 0 {
		return invalidf("topic %q: partition %d", topic, id)
	}
	return nil
}

// checkReplicas checks the replica list of a partition: not empty, each
// broker id not negative and listed once.
func checkReplicas(topic string, id int32, replicas []int32) error {
	if len(replicas) == 0 {
		return invalidf("topic %q partition %d: replicas []: the replica list is empty", topic, id)
	}
	if r, ok := badBroker(replicas); !ok {
		return invalidf("topic %q partition %d: replicas %v: broker %d is negative or listed twice", topic, id, replicas, r)
	}
	return nil
}

// badBroker returns the first broker id of ids that is negative or
// repeated, and false; true when there is none.
func badBroker(ids []int32) (int32, bool) {
	for i, r := range ids {
		if r < 0 || slices.Contains(ids[:i], r) {
			return r, false
		}
	}
	return 0, true
}

// checkReassignment checks the replicas a reassignment in progress adds
// and removes: replicas of the partition, each listed once, none both
// added and removed, as Kafka's controller computes them from the current
// and the target assignment.
func checkReassignment(topic string, id int32, p znode.ReplicaAssignment) error {
	if len(p.AddingReplicas) == 0 && len(p.RemovingReplicas) == 0 {
		return nil
	}
	for _, l := range []struct {
		what string
		ids  []int32
	}{{"adding replicas", p.AddingReplicas}, {"removing replicas", p.RemovingReplicas}} {
		for i, r := range l.ids {
			if !slices.Contains(p.Replicas, r) || slices.Contains(l.ids[:i], r) {
				return invalidf("topic %q partition %d: %s %v: broker %d is not one of the replicas %v or is listed twice", topic, id, l.what, l.ids, r, p.Replicas)
			}
		}
	}
	for _, r := range p.AddingReplicas {
		if slices.Contains(p.RemovingReplicas, r) {
			return invalidf("topic %q partition %d: broker %d is both an adding and a removing replica", topic, id, r)
		}
	}
	return nil
}

// checkLeaderState checks a partition's leader and ISR against its
// replicas: the leader is -1 (none) or a replica, and the ISR lists
// replicas, each once. Kafka's controller never produces other states.
func checkLeaderState(topic string, id int32, replicas []int32, st PartitionState) error {
	if st.Leader != -1 && !slices.Contains(replicas, st.Leader) {
		return invalidf("topic %q partition %d: leader %d is neither -1 nor one of the replicas %v", topic, id, st.Leader, replicas)
	}
	for i, r := range st.ISR {
		if !slices.Contains(replicas, r) || slices.Contains(st.ISR[:i], r) {
			return invalidf("topic %q partition %d: ISR %v: broker %d is not one of the replicas %v or is listed twice", topic, id, st.ISR, r, replicas)
		}
	}
	return nil
}

// checkISR checks an ISR whose replicas are not known: each broker id
// not negative and listed once.
func checkISR(topic string, id int32, isr []int32) error {
	if r, ok := badBroker(isr); !ok {
		return invalidf("topic %q partition %d: ISR %v: broker %d is negative or listed twice", topic, id, isr, r)
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

// statePaths returns the state paths of the partitions named in names.
func statePaths(topic string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if id, ok := parseID(n); ok {
			out = append(out, znode.PartitionStatePath(topic, id))
		}
	}
	return out
}

// statesDecode is the decoding of a page's partition states into its
// topics, on a goroutine of its own.
type statesDecode struct {
	topics []*Topic // nil for a topic that is gone or does not decode
	done   chan struct{}
	// Set once done is closed: the states that do not decode, and how
	// many did.
	bad     []UndecodableZnode
	decoded int
}

// decodeStates starts decoding the states zs into the partitions of
// topics.
func decodeStates(topics []*Topic, zs []migrationzk.Znode) *statesDecode {
	d := &statesDecode{topics: topics, done: make(chan struct{})}
	go d.decode(zs)
	return d
}

func (d *statesDecode) decode(zs []migrationzk.Znode) {
	defer close(d.done)
	byName := map[string]*Topic{}
	for _, t := range d.topics {
		if t != nil {
			byName[t.Name] = t
		}
	}
	for _, z := range zs {
		if !z.Exists {
			continue
		}
		st, err := znode.DecodePartitionState(z.Data)
		if err != nil {
			d.bad = append(d.bad, undecodable(z.Path, err))
			continue
		}
		topic, id := splitStatePath(z.Path)
		if t := byName[topic]; t != nil {
			t.setState(id, PartitionState{Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ISR: st.ISR, LeaderRecoveryState: st.LeaderRecoveryState})
		}
		d.decoded++
	}
}

// setState records the state read for partition id of t, assigned or
// not.
func (t *Topic) setState(id int32, st PartitionState) {
	if p, assigned := t.Partitions[id]; assigned {
		p.State, p.noState = st, false
		t.Partitions[id] = p
		return
	}
	if _, ok := t.Unassigned[id]; ok {
		t.Unassigned[id] = UnassignedPartition{State: &st}
	}
}

// splitStatePath returns the topic and partition of a state path.
func splitStatePath(p string) (string, int32) {
	rest := strings.TrimPrefix(p, znode.TopicsPath+"/")
	topic, rest, _ := strings.Cut(rest, "/partitions/")
	idText, _, _ := strings.Cut(rest, "/")
	id, _ := strconv.ParseInt(idText, 10, 32)
	return topic, int32(id)
}

// partitionChanges plans the partitions of topic name created, updated
// and deleted, with the states ZooKeeper holds for them (in have) and
// the ones written.
func (d *differ) partitionChanges(name string, have Topic, created map[int32]Partition, updated map[int32]PartitionState, deleted []int32) {
	held := func(id int32) *PartitionState { s, _ := heldState(have, id); return s }
	none := func(int32) *PartitionState { return nil }
	if len(created) > 0 {
		want := map[int32]*PartitionState{}
		for id, p := range created {
			want[id] = &p.State
		}
		ids := sortedIDs(created)
		d.add(Change{Kind: ChangeCreatePartitions, Subject: name, Partitions: ids, Fields: stateFields(ids, none, want),
			add: func(b *Batch) { b.CreatePartitions(name, created) }})
	}
	if len(updated) > 0 {
		want := map[int32]*PartitionState{}
		for id, s := range updated {
			want[id] = &s
		}
		ids := sortedIDs(updated)
		d.add(Change{Kind: ChangeUpdatePartitions, Subject: name, Partitions: ids, Fields: stateFields(ids, held, want),
			add: func(b *Batch) { b.UpdatePartitions(name, updated) }})
	}
	if len(deleted) > 0 {
		d.add(Change{Kind: ChangeDeletePartitions, Subject: name, Partitions: deleted, Fields: stateFields(deleted, held, nil),
			add: func(b *Batch) { b.DeletePartitions(name, deleted) }})
	}
}

// heldState returns the state ZooKeeper holds for partition id of t (nil
// for none), and whether t holds the partition at all, in its assignment
// or outside it.
func heldState(t Topic, id int32) (*PartitionState, bool) {
	if p, ok := t.Partitions[id]; ok {
		if p.noState {
			return nil, true
		}
		return &p.State, true
	}
	u, ok := t.Unassigned[id]
	return u.State, ok
}

// heldIDs returns the ids of every partition t holds, assigned or not,
// sorted.
func heldIDs(t Topic) []int32 {
	ids := sortedIDs(t.Partitions)
	for id := range t.Unassigned {
		if _, assigned := t.Partitions[id]; !assigned {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// sameState compares two partition states.
func sameState(a, b PartitionState) bool {
	return a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && a.LeaderRecoveryState == b.LeaderRecoveryState && sameInt32s(a.ISR, b.ISR)
}

// partitionValues are the values of partition id of t: none when t is
// nil or lacks it.
func partitionValues(t *Topic, id int32, withState bool) []fieldValue {
	if t == nil {
		return nil
	}
	p, ok := t.Partitions[id]
	if !ok {
		return nil
	}
	vs := assignmentValues(p)
	if withState && p.HasState() {
		vs = append(vs, stateValues(&p.State)...)
	}
	return vs
}

// stateValues are the values of a partition state; none for nil.
func stateValues(s *PartitionState) []fieldValue {
	if s == nil {
		return nil
	}
	return []fieldValue{
		{name: "leader", value: int64Text(s.Leader)},
		{name: "leader_epoch", value: int64Text(s.LeaderEpoch)},
		{name: "isr", value: int32sText(s.ISR)},
		{name: "leader_recovery_state", value: int64Text(s.LeaderRecoveryState)},
	}
}

// stateFields lists what differs between the states of partitions ids,
// have's (nil for none) and want's (absent for none).
func stateFields(ids []int32, have func(int32) *PartitionState, want map[int32]*PartitionState) []FieldChange {
	var out []FieldChange
	for _, id := range ids {
		out = append(out, fieldChanges(&id, stateValues(have(id)), stateValues(want[id]))...)
	}
	return out
}
