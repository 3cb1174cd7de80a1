package dualwrite

import (
	"cmp"
	"slices"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// recordedPartitions are the partitions of a change as they are when the
// change is recorded, by ascending id: lists that planning walks without
// a map lookup per partition.
type recordedPartitions struct {
	// assignments holds every partition's assignment, the topic znode's
	// content.
	assignments []znode.PartitionAssignment
	// ids and states are the partitions with a state (HasState) and
	// their states, aligned.
	ids    []int32
	states []PartitionState
}

// recordPartitions records parts.
func recordPartitions(parts map[int32]Partition) recordedPartitions {
	n := len(parts)
	r := recordedPartitions{assignments: make([]znode.PartitionAssignment, n), states: make([]PartitionState, n)}
	stated := make([]bool, n)
	put := func(i int, id int32, p Partition) {
		r.assignments[i] = znode.PartitionAssignment{Partition: id,
			ReplicaAssignment: znode.ReplicaAssignment{Replicas: p.Replicas, AddingReplicas: p.AddingReplicas, RemovingReplicas: p.RemovingReplicas}}
		r.states[i], stated[i] = p.State, !p.noState
	}
	dense := true // the ids are 0 to n-1: each partition's place is its id
	for id, p := range parts {
		if id < 0 || int(id) >= n {
			dense = false
			break
		}
		put(int(id), id, p)
	}
	if !dense {
		for i, id := range sortedIDs(parts) {
			put(i, id, parts[id])
		}
	}
	r.ids = make([]int32, 0, n)
	for i, a := range r.assignments {
		if stated[i] {
			r.states[len(r.ids)] = r.states[i]
			r.ids = append(r.ids, a.Partition)
		}
	}
	r.states = r.states[:len(r.ids)]
	return r
}

// recordStates records the states of a change, by ascending id.
func recordStates(states map[int32]PartitionState) (ids []int32, list []PartitionState) {
	ids = sortedIDs(states)
	list = make([]PartitionState, len(ids))
	for i, id := range ids {
		list[i] = states[id]
	}
	return ids, list
}

// has reports whether r holds partition id.
func (r recordedPartitions) has(id int32) bool {
	_, found := slices.BinarySearchFunc(r.assignments, id, func(a znode.PartitionAssignment, id int32) int {
		return cmp.Compare(a.Partition, id)
	})
	return found
}

// checkAssignments checks the partition ids of a change and the replicas
// of each, those of a reassignment included.
func (r recordedPartitions) checkAssignments(topic string) error {
	for _, a := range r.assignments {
		if err := checkPartition(topic, a); err != nil {
			return err
		}
	}
	return nil
}

// checkStates checks the leader state of each partition with a state
// against its replicas.
func (r recordedPartitions) checkStates(topic string) error {
	j := 0 // r.ids is a sublist of the assignments' ids
	for _, a := range r.assignments {
		if j == len(r.ids) || r.ids[j] != a.Partition {
			continue
		}
		if err := checkRecovery(topic, a.Partition, r.states[j]); err != nil {
			return err
		}
		if err := checkLeaderState(topic, a.Partition, a.Replicas, r.states[j]); err != nil {
			return err
		}
		j++
	}
	return nil
}

// heldBy reports whether the topic znode got holds id and exactly the
// partitions of r, with their assignments.
func (r recordedPartitions) heldBy(got znode.Topic, id znode.Uuid) bool {
	if got.ID != id || len(got.Partitions) != len(r.assignments) {
		return false
	}
	for _, a := range r.assignments {
		if g, ok := got.Partitions[a.Partition]; !ok || !g.Equal(a.ReplicaAssignment) {
			return false
		}
	}
	return true
}
