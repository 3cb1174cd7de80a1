package dualwrite

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"strings"

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

// CreateTopic applies [Batch.CreateTopic] alone.
func (c *Client) CreateTopic(ctx context.Context, s migrationzk.State, t Topic) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().CreateTopic(t))
}

// UpdateTopic applies [Batch.UpdateTopic] alone.
func (c *Client) UpdateTopic(ctx context.Context, s migrationzk.State, t Topic) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().UpdateTopic(t))
}

// DeleteTopic applies [Batch.DeleteTopic] alone.
func (c *Client) DeleteTopic(ctx context.Context, s migrationzk.State, name string) (migrationzk.State, error) {
	return c.apply(ctx, s, c.Batch().DeleteTopic(name))
}

// CreateTopic records the change that makes ZooKeeper hold topic t as a
// ZooKeeper-mode controller would have created it: the topic znode with
// its assignment and id, an empty /config/topics/<t> unless one exists,
// and every partition with its state; partitions ZooKeeper holds beyond
// t's (its Partitions and Unassigned) are deleted, state first. A
// partition without a state (HasState) gets none: it is in the topic znode
// only. Of what exists already, only what differs is written. A topic
// ZooKeeper holds under another id (or with an id when t has none) is left
// as it is, and Apply's error is a *TopicIDError naming both ids:
// ZooKeeper-mode brokers fail the partitions of a topic whose id changes.
// A topic ZooKeeper holds without an id gets t's. A topic ZooKeeper lacks
// must have a name Kafka accepts for a new topic (at most 249 ASCII
// letters, digits, '.', '_' and '-'; not "." or ".."); every partition
// must pass the rules of the package doc.
func (b *Batch) CreateTopic(t Topic) *Batch {
	r := recordPartitions(t.Partitions) // recorded as it is now, as the topic znode is
	unassigned := maps.Clone(t.Unassigned)
	err := cmp.Or(checkTopic(t.Name, r), r.checkStates(t.Name))
	nameErr := topicNameRule(t.Name)
	data := znode.EncodeTopic(t.ID, r.assignments)
	b.expect(3+2*len(r.ids), 3) // a new topic's partitions are planned by id
	return b.add(func(v *view, s migrationzk.State) bool {
		if !v.admitName(nameErr, znode.TopicPath(t.Name)) {
			return false
		}
		known, conflict := v.topicID(t.Name, t.ID)
		if !known || conflict {
			return known
		}
		ok := v.putTopic(t.Name, t.ID, r, data)
		ok = v.ensure(znode.TopicConfigEntity(t.Name).Path(), emptyConfig) && ok
		if len(r.ids) > 0 {
			ok = v.ensure(znode.TopicPartitionsPath(t.Name), nil) && ok
		}
		if !v.listPartitions(t.Name) {
			return false
		}
		ok = v.putPartitions(t.Name, r.ids, r.states, s) && ok
		return v.removeOtherPartitions(t.Name, r, unassigned) && ok
	}, err)
}

// UpdateTopic records the change that writes t's assignment and id (the
// topic znode) when they differ from ZooKeeper's; its partitions are left
// to CreatePartitions and UpdatePartitions, as Kafka's updateTopic leaves
// them. As Kafka's updateTopic, it writes t's id even over another one;
// Diff plans such a change as ChangeReplaceTopic, not through UpdateTopic.
// Its name is checked as CreateTopic checks it, and its replica lists.
func (b *Batch) UpdateTopic(t Topic) *Batch {
	r := recordPartitions(t.Partitions)
	data := znode.EncodeTopic(t.ID, r.assignments)
	err := checkTopic(t.Name, r)
	nameErr := topicNameRule(t.Name)
	return b.add(func(v *view, _ migrationzk.State) bool {
		return v.admitName(nameErr, znode.TopicPath(t.Name)) && v.putTopic(t.Name, t.ID, r, data)
	}, err)
}

// DeleteTopic records the change that deletes the topic and everything
// below it, children first, and its config znode. A topic that is gone is
// no error.
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

// emptyConfig is the content of a config znode without configs.
var emptyConfig = znode.Config{}.Encode()

// putTopic plans the topic znode of topic to hold id and the assignments
// of r, encoded as data (once, when the change is recorded, not in each
// round of planning).
func (v *view) putTopic(topic string, id znode.Uuid, r recordedPartitions, data []byte) bool {
	_, known := v.put(znode.TopicPath(topic), data, func(cur []byte) (bool, error) {
		got, err := znode.DecodeTopic(cur)
		return err == nil && r.heldBy(got, id), err
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

// ensure plans a create of p holding data, with its missing parents,
// unless p exists.
func (v *view) ensure(p string, data []byte) bool {
	_, known := v.put(p, data, func([]byte) (bool, error) { return true, nil })
	return known
}

// checkTopic checks a topic of a change, named name, and its partitions.
func checkTopic(name string, r recordedPartitions) error {
	if err := checkName("topic", name); err != nil {
		return err
	}
	if len(r.assignments) == 0 {
		return invalidf("topic %q has no partitions", name)
	}
	return r.checkAssignments(name)
}

// maxTopicNameLength is the longest topic name Kafka accepts.
const maxTopicNameLength = 249

// topicNameRule checks name against Kafka's rule for a new topic's name.
func topicNameRule(name string) error {
	switch {
	case len(name) > maxTopicNameLength:
		return invalidf("topic name %q: %d characters, Kafka allows at most %d for a new topic", name, len(name), maxTopicNameLength)
	case strings.IndexFunc(name, func(r rune) bool { return !isTopicNameChar(r) }) >= 0:
		return invalidf("topic name %q: Kafka allows only ASCII letters, digits, '.', '_' and '-' in a new topic's name", name)
	}
	return checkName("topic", name) // "", "." and ".."
}

// isTopicNameChar reports whether r may appear in a new topic's name.
func isTopicNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}

// TopicsPerPage is how many topics Read takes at once: their znodes and
// partition lists in one round, then their partitions' states in another.
// A tool that pages through the topics as Read does takes as many.
const TopicsPerPage = 500

// topics reads every topic with its partitions, a page at a time: while
// one page's partition states decode, the next page's reads are in
// flight.
func (r *imageReader) topics(ctx context.Context) error {
	names, err := r.children(ctx, znode.TopicsPath)
	if err != nil {
		return err
	}
	r.done.TopicsTotal = len(names)
	var decoding *statesDecode // the page before
	for len(names) > 0 {
		page := names[:min(len(names), TopicsPerPage)]
		names = names[len(page):]
		next, err := r.topicPage(ctx, page)
		if decoding != nil {
			r.finishPage(decoding)
		}
		if err != nil {
			return err
		}
		decoding = next
	}
	if decoding != nil {
		r.finishPage(decoding)
	}
	return nil
}

// topicPage reads the topics named in page, and starts decoding their
// partitions' states.
func (r *imageReader) topicPage(ctx context.Context, page []string) (*statesDecode, error) {
	paths, lists := make([]string, len(page)), make([]string, len(page))
	for i, name := range page {
		paths[i], lists[i] = znode.TopicPath(name), znode.TopicPartitionsPath(name)
	}
	zs, err := r.read(ctx, paths...)
	if err != nil {
		return nil, err
	}
	ls, err := r.list(ctx, lists...)
	if err != nil {
		return nil, err
	}
	var states []string
	topics := make([]*Topic, len(page))
	for i, name := range page {
		topics[i] = r.topic(name, zs[i])
		if topics[i] != nil {
			addUnassigned(topics[i], ls[i].Names)
			states = append(states, statePaths(name, ls[i].Names)...)
		}
	}
	read, err := r.read(ctx, states...)
	if err != nil {
		return nil, err
	}
	return decodeStates(topics, read), nil
}

// finishPage waits for the states of a page to decode, and adds its
// topics to the Image.
func (r *imageReader) finishPage(d *statesDecode) {
	<-d.done
	r.img.Undecodable = append(r.img.Undecodable, d.bad...)
	for _, t := range d.topics {
		if t != nil {
			r.img.Topics[t.Name] = *t
		}
	}
	r.done.Topics += len(d.topics)
	r.done.Partitions += d.decoded
	if r.progress != nil {
		r.progress(r.done)
	}
}

// topic decodes a topic znode; nil when it does not decode or is gone.
func (r *imageReader) topic(name string, z migrationzk.Znode) *Topic {
	if !z.Exists {
		return nil
	}
	zt, err := znode.DecodeTopic(z.Data)
	if err != nil {
		r.bad(z.Path, err)
		return nil
	}
	t := &Topic{Name: name, ID: zt.ID, Partitions: make(map[int32]Partition, len(zt.Partitions))}
	for id, a := range zt.Partitions {
		t.Partitions[id] = Partition{Replicas: a.Replicas, AddingReplicas: a.AddingReplicas, RemovingReplicas: a.RemovingReplicas, noState: true}
	}
	return t
}

// addUnassigned records in t, as its Unassigned partitions, those named
// in names that its assignment lacks, without a state until one is read.
func addUnassigned(t *Topic, names []string) {
	for _, n := range names {
		if id, ok := parseID(n); ok {
			if _, assigned := t.Partitions[id]; !assigned {
				if t.Unassigned == nil {
					t.Unassigned = map[int32]UnassignedPartition{}
				}
				t.Unassigned[id] = UnassignedPartition{}
			}
		}
	}
}

// topics plans the topics: created, their assignment updated, their
// partitions created, updated or deleted, deleted; a topic whose id
// changed is replaced (deleted and created anew, as Kafka's full sync
// does), one change of its own kind so that it shows before it happens.
func (d *differ) topics(current, desired map[string]Topic) {
	for _, name := range sortedKeys(desired, stringLess) {
		want := desired[name]
		want.Name = name
		have, exists := current[name]
		switch {
		case !exists:
			d.addTree(Change{Kind: ChangeCreateTopic, Subject: name, Fields: topicFields(nil, &want, true), add: func(b *Batch) { b.CreateTopic(want) }}, topicTrees(name)...)
		case idReplaced(have.ID, want.ID):
			d.replaced[name] = true
			d.addTree(Change{Kind: ChangeReplaceTopic, Subject: name, FromID: have.ID.String(), ToID: idText(want.ID),
				Fields: topicFields(&have, &want, true),
				add:    func(b *Batch) { b.DeleteTopic(name).CreateTopic(want) }}, topicTrees(name)...)
		default:
			d.topicChanges(name, have, want)
		}
	}
	for _, name := range sortedKeys(current, stringLess) {
		if _, kept := desired[name]; !kept {
			have := current[name]
			d.addTree(Change{Kind: ChangeDeleteTopic, Subject: name, Fields: topicFields(&have, nil, false), add: func(b *Batch) { b.DeleteTopic(name) }}, topicTrees(name)...)
		}
	}
}

// idReplaced reports whether a topic ZooKeeper holds with id have is
// desired with another id, want: have is set and want differs from it
// (the zero Uuid included, which removes the id). Giving an id to a
// topic that has none is no replacement but an update of its topic
// znode, as a ZooKeeper-mode controller gives ids to topics created
// without one.
func idReplaced(have, want znode.Uuid) bool { return !have.IsZero() && have != want }

// idText is a topic id as a Change shows it, "" for none.
func idText(id znode.Uuid) string {
	if id.IsZero() {
		return ""
	}
	return id.String()
}

// topicTrees are the subtrees a topic's create or delete writes: the
// topic's znodes and its config.
func topicTrees(name string) []string {
	return []string{znode.TopicPath(name), znode.TopicConfigEntity(name).Path()}
}

// topicChanges plans what differs between have and want, one topic. A
// partition want holds without a state asks for no state: its state is
// left as ZooKeeper holds it, and none is created.
func (d *differ) topicChanges(name string, have, want Topic) {
	if !sameAssignment(have, want) {
		d.add(Change{Kind: ChangeUpdateTopic, Subject: name, Fields: topicFields(&have, &want, false), add: func(b *Batch) { b.UpdateTopic(want) }}, znode.TopicPath(name))
	}
	created, updated := map[int32]Partition{}, map[int32]PartitionState{}
	for _, id := range sortedIDs(want.Partitions) {
		p := want.Partitions[id]
		haveState, held := heldState(have, id)
		switch {
		case d.bad[znode.PartitionStatePath(name, id)] || p.noState:
		case !held:
			created[id] = p
		case haveState == nil || !sameState(*haveState, p.State):
			updated[id] = p.State
		}
	}
	var deleted []int32
	for _, id := range heldIDs(have) {
		_, kept := want.Partitions[id]
		_, keptUnassigned := want.Unassigned[id]
		if !kept && !keptUnassigned && !d.bad[znode.PartitionStatePath(name, id)] {
			deleted = append(deleted, id)
		}
	}
	d.partitionChanges(name, have, created, updated, deleted)
}

// sameAssignment compares the ids and replica assignments of the topic
// ZooKeeper holds, have, and the one desired, want: their topic znodes.
func sameAssignment(have, want Topic) bool {
	if have.ID != want.ID || len(have.Partitions) != len(want.Partitions) {
		return false
	}
	for id, p := range have.Partitions {
		q, ok := want.Partitions[id]
		if !ok || !sameInt32s(p.Replicas, q.Replicas) || !sameInt32s(p.AddingReplicas, q.AddingReplicas) || !sameInt32s(p.RemovingReplicas, q.RemovingReplicas) {
			return false
		}
	}
	return true
}

// topicIDValues is a topic's id as a value; none for the zero id.
func topicIDValues(id znode.Uuid) []fieldValue {
	if id.IsZero() {
		return nil
	}
	return []fieldValue{{name: "topic_id", value: id.String()}}
}

// topicFields lists what differs between two topics (nil for none):
// their ids, the assignments of their partitions, and, withStates,
// the partitions' states.
func topicFields(have, want *Topic, withStates bool) []FieldChange {
	var haveID, wantID znode.Uuid
	ids := map[int32]bool{}
	for _, t := range []*Topic{have, want} {
		if t != nil {
			for id := range t.Partitions {
				ids[id] = true
			}
		}
	}
	if have != nil {
		haveID = have.ID
	}
	if want != nil {
		wantID = want.ID
	}
	out := fieldChanges(nil, topicIDValues(haveID), topicIDValues(wantID))
	for _, id := range sortedIDs(ids) {
		old, new := partitionValues(have, id, withStates), partitionValues(want, id, withStates)
		out = append(out, fieldChanges(&id, old, new)...)
	}
	return out
}

// assignmentValues are the values of a partition's assignment.
func assignmentValues(p Partition) []fieldValue {
	vs := []fieldValue{{name: "replicas", value: int32sText(p.Replicas)}}
	if len(p.AddingReplicas) > 0 {
		vs = append(vs, fieldValue{name: "adding_replicas", value: int32sText(p.AddingReplicas)})
	}
	if len(p.RemovingReplicas) > 0 {
		vs = append(vs, fieldValue{name: "removing_replicas", value: int32sText(p.RemovingReplicas)})
	}
	return vs
}
