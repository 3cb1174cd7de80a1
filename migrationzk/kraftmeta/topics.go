package kraftmeta

import (
	"slices"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// applyTopic creates a topic, or empties the topic of that id, as
// Kafka's TopicsDelta does.
func (s *state) applyTopic(r *kraftlog.TopicRecord, offset int64) error {
	old := s.byID[r.TopicID]
	if old != nil && old.name != r.Name {
		return inconsistent(offset, "TopicRecord names topic %s %q, which is %q", r.TopicID, r.Name, old.name)
	}
	if other, ok := s.topics.Topics[r.Name]; ok && other.ID != r.TopicID {
		return inconsistent(offset, "TopicRecord gives topic %q the id %s, but it has %s", r.Name, r.TopicID, other.ID)
	}
	oldTopic, had := s.topics.Topics[r.Name]
	t := &topicMeta{name: r.Name, id: r.TopicID, parts: make(map[int32]dualwrite.Partition, s.hint), epochs: make([]int32, 0, s.hint)}
	s.hint = 0
	if s.txn != nil {
		t.txn = s.txn.seq
		s.undoTopic(t, old, oldTopic, had)
	}
	s.byID[t.id] = t
	s.last = nil
	s.topics.Topics[t.name] = dualwrite.Topic{Name: t.name, ID: t.id, Partitions: t.parts}
	return nil
}

// undoTopic records how to undo the creation of t, which replaces old
// (nil for none) and the Topic named as t (had reports whether there was
// one).
func (s *state) undoTopic(t, old *topicMeta, oldTopic dualwrite.Topic, had bool) {
	s.onUndo(func() {
		s.last = nil
		if old != nil {
			s.byID[t.id] = old
		} else {
			delete(s.byID, t.id)
		}
		if had {
			s.topics.Topics[t.name] = oldTopic
		} else {
			delete(s.topics.Topics, t.name)
		}
	})
}

// removeTopic deletes a topic and its topic configs, as Kafka's
// MetadataDelta does.
func (s *state) removeTopic(id znode.Uuid, offset int64) error {
	t := s.byID[id]
	if t == nil {
		return inconsistent(offset, "RemoveTopicRecord of topic %s, which does not exist", id)
	}
	topic := s.topics.Topics[t.name]
	key := configKey{typ: 2, name: t.name}
	configs, hadConfigs := s.configs[key]
	delete(s.byID, id)
	s.last = nil
	delete(s.topics.Topics, t.name)
	delete(s.configs, key)
	s.onUndo(func() {
		s.last = nil
		s.byID[id] = t
		s.topics.Topics[t.name] = topic
		if hadConfigs {
			s.configs[key] = configs
		}
	})
	return nil
}

// applyPartition sets a partition in full, as PartitionRegistration
// reads a PartitionRecord.
func (s *state) applyPartition(r *kraftlog.PartitionRecord, offset int64) error {
	t, err := s.partitionTopic(r.TopicID, r.PartitionID, offset)
	if err != nil {
		return err
	}
	if r.LeaderRecoveryState != 0 && r.LeaderRecoveryState != 1 {
		return inconsistent(offset, "PartitionRecord: leader recovery state %d is not valid", r.LeaderRecoveryState)
	}
	if len(r.Directories) > 0 && len(r.Directories) != len(r.Replicas) {
		return inconsistent(offset, "PartitionRecord: %d directories for %d replicas", len(r.Directories), len(r.Replicas))
	}
	if s.txn != nil {
		s.undoPartition(t, r.PartitionID)
	}
	t.parts[r.PartitionID] = dualwrite.Partition{
		Replicas:         r.Replicas,
		AddingReplicas:   nilIfEmpty(r.AddingReplicas),
		RemovingReplicas: nilIfEmpty(r.RemovingReplicas),
		State:            dualwrite.PartitionState{Leader: r.Leader, LeaderEpoch: r.LeaderEpoch, ISR: r.Isr, LeaderRecoveryState: r.LeaderRecoveryState},
	}
	t.setExtra(r.PartitionID, partExtra{epoch: r.PartitionEpoch, rare: newRare(r.Directories, r.EligibleLeaderReplicas, r.LastKnownElr)})
	return nil
}

// applyPartitionHead is applyPartition of a PartitionRecord of the
// common shape, read in place: no leader recovery state, no eligible
// leader replicas, every directory MIGRATING.
func (s *state) applyPartitionHead(h *kraftlog.PartitionHead, offset int64) error {
	t := s.last
	if t == nil || t.id != h.TopicID {
		var err error
		if t, err = s.partitionTopic(h.TopicID, h.PartitionID, offset); err != nil {
			return err
		}
	}
	replicas := h.Replicas()
	if h.Directories > 0 && h.Directories != len(replicas) {
		return inconsistent(offset, "PartitionRecord: %d directories for %d replicas", h.Directories, len(replicas))
	}
	if s.txn != nil {
		s.undoPartition(t, h.PartitionID)
	}
	removing, adding := h.Reassignment()
	t.parts[h.PartitionID] = dualwrite.Partition{
		Replicas:         replicas,
		AddingReplicas:   adding,
		RemovingReplicas: removing,
		State:            dualwrite.PartitionState{Leader: h.Leader, LeaderEpoch: h.LeaderEpoch, ISR: h.Isr()},
	}
	t.setEpoch(h.PartitionID, h.PartitionEpoch)
	return nil
}

// partitionTopic returns the topic of id a PartitionRecord names.
func (s *state) partitionTopic(id znode.Uuid, partition int32, offset int64) (*topicMeta, error) {
	t := s.last
	if t == nil || t.id != id {
		t = s.byID[id]
		s.last = t
	}
	if t == nil {
		return nil, inconsistent(offset, "PartitionRecord of partition %d of topic %s, which does not exist", partition, id)
	}
	return t, nil
}

// applyChange merges a PartitionChangeRecord into its partition as
// PartitionRegistration.merge does: an absent field is unchanged, a
// leader set (even to the same broker) bumps the leader epoch, and
// every change bumps the partition epoch.
func (s *state) applyChange(r *kraftlog.PartitionChangeRecord, offset int64) error {
	t := s.byID[r.TopicID]
	if t == nil {
		return inconsistent(offset, "PartitionChangeRecord of partition %d of topic %s, which does not exist", r.PartitionID, r.TopicID)
	}
	p, ok := t.parts[r.PartitionID]
	if !ok {
		return inconsistent(offset, "PartitionChangeRecord of partition %d of topic %q, which does not exist", r.PartitionID, t.name)
	}
	e := t.extra(r.PartitionID)
	dirs, err := mergeDirectories(r, p, e, offset)
	if err != nil {
		return err
	}
	if r.LeaderRecoveryState < -1 || r.LeaderRecoveryState > 1 {
		return inconsistent(offset, "PartitionChangeRecord: leader recovery state %d is not valid", r.LeaderRecoveryState)
	}
	s.undoPartition(t, r.PartitionID)
	t.parts[r.PartitionID] = mergePartition(p, r)
	var elr, lastKnown []int32
	if e.rare != nil {
		elr, lastKnown = e.rare.elr, e.rare.lastKnownElr
	}
	if r.EligibleLeaderReplicas != nil {
		elr = r.EligibleLeaderReplicas
	}
	if r.LastKnownElr != nil {
		lastKnown = r.LastKnownElr
	}
	t.setExtra(r.PartitionID, partExtra{epoch: e.epoch + 1, rare: newRare(dirs, elr, lastKnown)})
	return nil
}

// mergePartition returns p changed by r.
func mergePartition(p dualwrite.Partition, r *kraftlog.PartitionChangeRecord) dualwrite.Partition {
	if r.Replicas != nil {
		p.Replicas = r.Replicas
	}
	if r.Isr != nil {
		p.State.ISR = r.Isr
	}
	if r.RemovingReplicas != nil {
		p.RemovingReplicas = nilIfEmpty(r.RemovingReplicas)
	}
	if r.AddingReplicas != nil {
		p.AddingReplicas = nilIfEmpty(r.AddingReplicas)
	}
	if r.Leader != kraftlog.NoLeaderChange {
		p.State.Leader = r.Leader
		p.State.LeaderEpoch++
	}
	if r.LeaderRecoveryState != -1 {
		p.State.LeaderRecoveryState = r.LeaderRecoveryState
	}
	return p
}

// mergeDirectories returns the directories of p after r: nil for all
// MIGRATING, as Kafka's defaultToMigrating makes them.
func mergeDirectories(r *kraftlog.PartitionChangeRecord, p dualwrite.Partition, e partExtra, offset int64) ([]znode.Uuid, error) {
	replicas := len(p.Replicas)
	if r.Replicas != nil {
		replicas = len(r.Replicas)
		if len(r.Directories) > 0 && len(r.Directories) != replicas {
			return nil, inconsistent(offset, "PartitionChangeRecord: %d directories for %d replicas", len(r.Directories), replicas)
		}
	}
	dirs := r.Directories
	if dirs == nil && e.rare != nil {
		dirs = e.rare.dirs
	}
	if allMigrating(dirs) {
		return nil, nil
	}
	if len(dirs) != replicas {
		return nil, inconsistent(offset, "PartitionChangeRecord: %d directories for %d replicas", len(dirs), replicas)
	}
	return dirs, nil
}

// newRare returns what a partition holds beyond the common case, nil
// when it holds directories all MIGRATING and no eligible leader
// replicas. Directories are copied: the decoder reuses their memory.
func newRare(dirs []znode.Uuid, elr, lastKnown []int32) *partRare {
	if allMigrating(dirs) {
		dirs = nil
	}
	if dirs == nil && len(elr) == 0 && len(lastKnown) == 0 {
		return nil
	}
	return &partRare{dirs: slices.Clone(dirs), elr: nilIfEmpty(elr), lastKnownElr: nilIfEmpty(lastKnown)}
}

// allMigrating reports whether every directory is MIGRATING, the zero
// Uuid; none at all counts.
func allMigrating(dirs []znode.Uuid) bool {
	for _, d := range dirs {
		if !d.IsZero() {
			return false
		}
	}
	return true
}

func nilIfEmpty(a []int32) []int32 {
	if len(a) == 0 {
		return nil
	}
	return a
}
