package kraftmeta_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestPartitionShapesReplayAlike replays the same partitions written in
// the common shape, which the replay reads in place, and written so that
// it must decode them whole (an empty list of eligible leader replicas,
// a tagged field), in an order that fills their epochs densely and not:
// the images are the same. Fault injected: none; the shapes differ.
func TestPartitionShapesReplayAlike(t *testing.T) {
	parts := func(shape func(p *kraftlog.PartitionRecord) rec) []rec {
		recs := []rec{{mvRec(21), 0}, {topicRec("a", uuid(1)), 0}}
		for _, id := range []int32{0, 1, 3, 2, 2, 7} {
			p := &kraftlog.PartitionRecord{PartitionID: id, TopicID: uuid(1), Replicas: []int32{1, 2, 3}, Isr: []int32{id%3 + 1},
				RemovingReplicas: []int32{}, AddingReplicas: []int32{}, Leader: id%3 + 1, LeaderEpoch: id, PartitionEpoch: 2 * id,
				Directories: make([]znode.Uuid, 3)}
			if id == 3 {
				p.RemovingReplicas, p.AddingReplicas = []int32{3}, []int32{4}
			}
			recs = append(recs, shape(p))
		}
		return append(recs, rec{topicRec("b", uuid(2)), 0}, rec{partitionRec(uuid(2), 0, 1), 0})
	}
	common := parts(func(p *kraftlog.PartitionRecord) rec { return rec{p, 1} })
	whole := parts(func(p *kraftlog.PartitionRecord) rec {
		p.EligibleLeaderReplicas = []int32{}
		return rec{p, 2}
	})
	var results [2][]byte
	var unmirrored [2]any
	for i, recs := range [][]rec{common, whole} {
		r, err := kraftmeta.ReplayBytes(ctx(), "00000000000000000020-0000000001.checkpoint", snapshotBytes(t, 1, 1732093200000, recs...))
		if err != nil {
			t.Fatal(err)
		}
		results[i], unmirrored[i] = neutralImage(r), r.Unmirrored
	}
	if !bytes.Equal(results[0], results[1]) {
		t.Errorf("the common shape replays to\n%s\nthe whole records to\n%s", results[0], results[1])
	}
	if !reflect.DeepEqual(unmirrored[0], unmirrored[1]) {
		t.Errorf("unmirrored: %+v and %+v", unmirrored[0], unmirrored[1])
	}
}
