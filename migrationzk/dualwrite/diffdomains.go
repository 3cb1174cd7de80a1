package dualwrite

import (
	"fmt"
	"maps"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// topics plans the topics: created, their assignment updated, their
// partitions created, updated or deleted, deleted; a topic whose id
// changed is deleted and created anew.
func (d *differ) topics(current, desired map[string]Topic) {
	for _, name := range sortedKeys(desired, stringLess) {
		want := desired[name]
		want.Name = name
		have, exists := current[name]
		if exists && !have.ID.IsZero() && !want.ID.IsZero() && have.ID != want.ID {
			d.add(Change{Kind: ChangeDeleteTopic, Subject: name, add: func(b *Batch) { b.DeleteTopic(name) }}, znode.TopicPath(name))
			exists = false
		}
		if !exists {
			d.add(Change{Kind: ChangeCreateTopic, Subject: name, add: func(b *Batch) { b.CreateTopic(want) }}, znode.TopicPath(name))
			continue
		}
		d.topicChanges(name, have, want)
	}
	for _, name := range sortedKeys(current, stringLess) {
		if _, kept := desired[name]; !kept {
			d.add(Change{Kind: ChangeDeleteTopic, Subject: name, add: func(b *Batch) { b.DeleteTopic(name) }}, znode.TopicPath(name))
		}
	}
}

// topicChanges plans what differs between have and want, one topic.
func (d *differ) topicChanges(name string, have, want Topic) {
	if !sameAssignment(have, want) {
		d.add(Change{Kind: ChangeUpdateTopic, Subject: name, add: func(b *Batch) { b.UpdateTopic(want) }}, znode.TopicPath(name))
	}
	created, updated := map[int32]Partition{}, map[int32]PartitionState{}
	for _, id := range sortedIDs(want.Partitions) {
		p, ok := have.Partitions[id]
		switch {
		case d.bad[znode.PartitionStatePath(name, id)]:
		case !ok:
			created[id] = want.Partitions[id]
		case p.noState || !sameState(p.State, want.Partitions[id].State):
			updated[id] = want.Partitions[id].State
		}
	}
	var deleted []int32
	for _, id := range sortedIDs(have.Partitions) {
		if _, kept := want.Partitions[id]; !kept && !d.bad[znode.PartitionStatePath(name, id)] {
			deleted = append(deleted, id)
		}
	}
	if len(created) > 0 {
		d.add(Change{Kind: ChangeCreatePartitions, Subject: name, Partitions: sortedIDs(created), add: func(b *Batch) { b.CreatePartitions(name, created) }})
	}
	if len(updated) > 0 {
		d.add(Change{Kind: ChangeUpdatePartitions, Subject: name, Partitions: sortedIDs(updated), add: func(b *Batch) { b.UpdatePartitions(name, updated) }})
	}
	if len(deleted) > 0 {
		d.add(Change{Kind: ChangeDeletePartitions, Subject: name, Partitions: deleted, add: func(b *Batch) { b.DeletePartitions(name, deleted) }})
	}
}

// sameAssignment compares two topics' ids and replica assignments.
func sameAssignment(a, b Topic) bool {
	if a.ID != b.ID || len(a.Partitions) != len(b.Partitions) {
		return false
	}
	for id, p := range a.Partitions {
		q, ok := b.Partitions[id]
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
		e, err := r.entity()
		switch {
		case err != nil || maps.Equal(want, have):
		case len(want) == 0:
			d.add(Change{Kind: ChangeDeleteConfigs, Subject: e.EntityPath(), add: func(b *Batch) { b.DeleteConfigs(r) }}, e.Path())
		default:
			d.add(Change{Kind: ChangeWriteConfigs, Subject: e.EntityPath(), add: func(b *Batch) { b.WriteConfigs(r, want) }}, e.Path())
		}
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
		ze, err := e.configEntity()
		if err != nil {
			continue
		}
		d.add(Change{Kind: ChangeWriteClientQuotas, Subject: ze.EntityPath(), add: func(b *Batch) { b.WriteClientQuotas(e, want, wantScram) }}, ze.Path())
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

// acls plans the ACL sets: written where they differ or are new, deleted
// where desired has none.
func (d *differ) acls(current, desired map[ResourcePattern][]znode.ACLEntry) {
	less := func(a, b ResourcePattern) bool { return fmt.Sprint(a) < fmt.Sprint(b) }
	for _, p := range sortedKeys(desired, less) {
		want := desired[p]
		have, exists := current[p]
		if exists && znode.ACLs(want).Equal(have) || !exists && len(want) == 0 {
			continue
		}
		path, _, _, err := p.path()
		if err == nil {
			d.add(Change{Kind: ChangeWriteACLs, Subject: fmt.Sprintf("%s %s %s", p.PatternType, p.Type, p.Name), add: func(b *Batch) { b.WriteACLs(p, want) }}, path)
		}
	}
	for _, p := range sortedKeys(current, less) {
		if _, kept := desired[p]; !kept {
			if path, _, _, err := p.path(); err == nil {
				d.add(Change{Kind: ChangeDeleteACLs, Subject: fmt.Sprintf("%s %s %s", p.PatternType, p.Type, p.Name), add: func(b *Batch) { b.DeleteACLs(p) }}, path)
			}
		}
	}
}

// tokens plans the delegation tokens: written where they differ or are
// new, deleted where desired has none.
func (d *differ) tokens(current, desired map[string]znode.DelegationToken) {
	for _, id := range sortedKeys(desired, stringLess) {
		want := desired[id]
		if have, ok := current[id]; ok && have.Equal(want) {
			continue
		}
		want.TokenID = id
		d.add(Change{Kind: ChangeWriteDelegationToken, Subject: id, add: func(b *Batch) { b.WriteDelegationToken(want) }}, znode.DelegationTokenPath(id))
	}
	for _, id := range sortedKeys(current, stringLess) {
		if _, kept := desired[id]; !kept {
			d.add(Change{Kind: ChangeDeleteDelegationToken, Subject: id, add: func(b *Batch) { b.DeleteDelegationToken(id) }}, znode.DelegationTokenPath(id))
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
		add: func(b *Batch) { b.writeProducerIDBlock(want, nil) }}, znode.ProducerIDBlockPath)
}
