package dualwrite

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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

// sameState compares two partition states.
func sameState(a, b PartitionState) bool {
	return a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && a.LeaderRecoveryState == b.LeaderRecoveryState && sameInt32s(a.ISR, b.ISR)
}

// configs plans the topic and broker configs: written where they differ,
// deleted where desired has none (no config and an empty one are alike,
// as a topic's empty config znode and none are).
func (d *differ) configs(current, desired map[ConfigResource]map[string]string) {
	all := map[ConfigResource]bool{}
	for r := range current {
		all[r] = true
	}
	for r := range desired {
		all[r] = true
	}
	less := func(a, b ConfigResource) bool { return a.Type < b.Type || a.Type == b.Type && a.Name < b.Name }
	for _, r := range sortedKeys(all, less) {
		want, have := desired[r], current[r]
		if r.Type == TopicConfig && d.replaced[r.Name] {
			have = nil // deleted with the topic, and created empty
		}
		if maps.Equal(want, have) {
			continue
		}
		subject, path := fmt.Sprintf("%s %q", r.Type, r.Name), ""
		if e, err := r.entity(); err == nil {
			subject, path = e.EntityPath(), e.Path()
		}
		if len(want) == 0 {
			d.add(Change{Kind: ChangeDeleteConfigs, Subject: subject, Fields: fieldChanges(nil, configValues(have), nil), add: func(b *Batch) { b.DeleteConfigs(r) }}, path)
			continue
		}
		d.add(Change{Kind: ChangeWriteConfigs, Subject: subject, Fields: fieldChanges(nil, configValues(have), configValues(want)), add: func(b *Batch) { b.WriteConfigs(r, want) }}, path)
	}
}

// quotas plans the client quotas and SCRAM credentials, which share the
// znodes of their entities. An entity ZooKeeper holds that desired lacks
// keeps its znode with an empty config, as Kafka's full sync keeps it.
func (d *differ) quotas(current, desired Image) {
	entities := map[QuotaEntity]bool{}
	for _, img := range []Image{current, desired} {
		for e := range img.ClientQuotas {
			entities[e] = true
		}
		for u := range img.Scram {
			entities[QuotaEntity{User: u}] = true
		}
	}
	less := func(a, b QuotaEntity) bool { return fmt.Sprint(a) < fmt.Sprint(b) }
	for _, e := range sortedKeys(entities, less) {
		want, wantScram := desired.ClientQuotas[e], scramOf(desired, e)
		if maps.Equal(want, current.ClientQuotas[e]) && sameScram(wantScram, scramOf(current, e)) {
			continue
		}
		subject, path := fmt.Sprintf("%+v", e), ""
		if ze, err := e.configEntity(); err == nil {
			subject, path = ze.EntityPath(), ze.Path()
		}
		fields := fieldChanges(nil, quotaValues(current.ClientQuotas[e], scramOf(current, e)), quotaValues(want, wantScram))
		d.add(Change{Kind: ChangeWriteClientQuotas, Subject: subject, Fields: fields, add: func(b *Batch) { b.WriteClientQuotas(e, want, wantScram) }}, path)
	}
}

// scramOf returns the SCRAM credentials img holds for a user entity.
func scramOf(img Image, e QuotaEntity) map[string]znode.ScramCredential {
	if e.User == "" || e.ClientID != "" {
		return nil
	}
	return img.Scram[e.User]
}

// sameScram compares two users' credentials by mechanism.
func sameScram(a, b map[string]znode.ScramCredential) bool {
	return maps.EqualFunc(a, b, znode.ScramCredential.Equal)
}

// acls plans the ACL sets: written where they differ or are new,
// deleted where desired has none (an empty set is none).
func (d *differ) acls(current, desired map[ResourcePattern][]znode.ACLEntry) {
	less := func(a, b ResourcePattern) bool { return fmt.Sprint(a) < fmt.Sprint(b) }
	for _, p := range sortedKeys(desired, less) {
		want := desired[p]
		have, exists := current[p]
		if len(want) == 0 || exists && znode.ACLs(want).Equal(have) {
			continue
		}
		d.add(Change{Kind: ChangeWriteACLs, Subject: patternSubject(p), Fields: aclFields(have, want), add: func(b *Batch) { b.WriteACLs(p, want) }}, patternPath(p))
	}
	for _, p := range sortedKeys(current, less) {
		if len(desired[p]) == 0 {
			d.add(Change{Kind: ChangeDeleteACLs, Subject: patternSubject(p), Fields: aclFields(current[p], nil), add: func(b *Batch) { b.DeleteACLs(p) }}, patternPath(p))
		}
	}
}

// patternSubject names a resource pattern in a Change.
func patternSubject(p ResourcePattern) string {
	return fmt.Sprintf("%s %s %s", p.PatternType, p.Type, p.Name)
}

// patternPath is the ACL znode of p, "" for an invalid pattern (whose
// change then fails the batch).
func patternPath(p ResourcePattern) string {
	path, _, _, _ := p.path()
	return path
}

// tokens plans the delegation tokens: written where they differ or are
// new, deleted where desired has none.
func (d *differ) tokens(current, desired map[string]znode.DelegationToken) {
	for _, id := range sortedKeys(desired, stringLess) {
		want := desired[id]
		have, ok := current[id]
		if ok && have.Equal(want) {
			continue
		}
		want.TokenID = id
		var old *znode.DelegationToken
		if ok {
			old = &have
		}
		fields := fieldChanges(nil, tokenValues(old), tokenValues(&want))
		d.add(Change{Kind: ChangeWriteDelegationToken, Subject: id, Fields: fields, add: func(b *Batch) { b.WriteDelegationToken(want) }}, znode.DelegationTokenPath(id))
	}
	for _, id := range sortedKeys(current, stringLess) {
		if _, kept := desired[id]; !kept {
			have := current[id]
			d.add(Change{Kind: ChangeDeleteDelegationToken, Subject: id, Fields: fieldChanges(nil, tokenValues(&have), nil), add: func(b *Batch) { b.DeleteDelegationToken(id) }}, znode.DelegationTokenPath(id))
		}
	}
}

// producerID plans the producer-id block when desired has one that
// ZooKeeper does not hold.
func (d *differ) producerID(current, desired *znode.ProducerIDBlock) {
	if desired == nil || current != nil && *current == *desired {
		return
	}
	want := *desired
	d.add(Change{Kind: ChangeWriteProducerID, Subject: fmt.Sprintf("[%d, %d]", want.BlockStart, want.BlockEnd),
		Fields: fieldChanges(nil, producerIDValues(current), producerIDValues(&want)),
		add:    func(b *Batch) { b.writeProducerIDBlock(want, nil) }}, znode.ProducerIDBlockPath)
}
