package torture

import (
	"fmt"
	"math/rand"
	"path"
	"slices"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// work is one library call the driver makes: a checkpoint, or a batch
// ending in one.
type work struct {
	ops []migrationzk.Op
	// vocab, when set, makes the call a dual-write batch of these changes.
	vocab []vocabChange
	// sync, when set, makes the call a Sync of the image ZooKeeper holds
	// with these edits.
	sync []syncEdit
	// delta, when set, makes the call a delta of partition states
	// through the generation's remembering dual-write Client.
	delta []deltaChange
}

// workload chooses the driver's calls, as a KRaft controller's metadata
// deltas would make them, and keeps what it knows of the payload znodes.
// Only the driver's goroutine uses it.
type workload struct {
	rng      *rand.Rand
	payloads map[string]*payload
	// basis holds, for each op of the call in flight, when the workload
	// learned the version the op is conditioned on (0 for a create).
	basis     map[string]int64
	states    []string // partition state paths that exist
	nextTopic int
	// revisit, when set, makes the next call a delta of these partitions
	// (reloadAfterDoubt).
	revisit []deltaChange
	// asked holds every znode the workload asked to be written.
	asked map[string]bool
}

// newWorkload returns a workload drawing from rng.
func newWorkload(rng *rand.Rand) *workload {
	return &workload{rng: rng, payloads: map[string]*payload{}, basis: map[string]int64{}, asked: map[string]bool{}}
}

// payload is what the workload knows of a payload znode.
type payload struct {
	exists  bool
	version int32
	learned int64
}

// choose picks the next call of a controller with KRaft epoch epoch,
// whose checkpoint is at metadata offset offset: a checkpoint alone, or a
// batch that creates a topic, updates partition states, or both, or
// deletes a topic, or changes vocabulary entities (stamped with offset).
func (wl *workload) choose(epoch int32, offset int64) work {
	if wl.revisit != nil {
		return work{delta: wl.revisitDelta()}
	}
	if wl.rng.Float64() < 0.25 {
		return work{}
	}
	if len(wl.states) > 4 && wl.rng.Float64() < 0.08 {
		return work{ops: deleteTopicOps(wl.states[wl.rng.Intn(len(wl.states))])}
	}
	if wl.rng.Float64() < 0.15 {
		return work{vocab: wl.chooseVocabulary(offset)}
	}
	if len(wl.states) > 0 && wl.rng.Float64() < 0.3 {
		return work{delta: wl.chooseDelta()}
	}
	if wl.rng.Float64() < syncChance(len(wl.states)) {
		return work{sync: wl.chooseSync(offset)}
	}
	var ops []migrationzk.Op
	if len(wl.states) == 0 || wl.rng.Float64() < 0.3 {
		ops = append(ops, wl.newTopic(epoch)...)
	}
	if len(wl.states) > 0 && (len(ops) == 0 || wl.rng.Float64() < 0.3) {
		ops = append(ops, wl.partitionStateUpdates(epoch)...)
	}
	return work{ops: ops}
}

// partitionStateUpdates sets one to three existing partition states, each
// at the version the workload last learned, with a new leader and leader
// epoch.
func (wl *workload) partitionStateUpdates(epoch int32) []migrationzk.Op {
	var ops []migrationzk.Op
	n := 1 + wl.rng.Intn(3)
	picked := map[string]bool{}
	for i := 0; i < n; i++ {
		path := wl.states[wl.rng.Intn(len(wl.states))]
		if picked[path] {
			continue
		}
		picked[path] = true
		pl := wl.payloads[path]
		wl.basis[path] = pl.learned
		st := znode.PartitionState{ControllerEpoch: epoch, Leader: 1 + int32(wl.rng.Intn(3)),
			LeaderEpoch: pl.version + 1, ISR: []int32{1, 2, 3}}
		ops = append(ops, migrationzk.SetData(path, st.Encode(), pl.version))
	}
	return ops
}

// topicData is the content of every topic znode the workload creates.
var topicData = []byte(`{"partitions":{"0":[1,2,3]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{},"version":3}`)

// newTopic returns the ops that create the next topic, with one partition
// whose state a controller with KRaft epoch epoch writes: the topic, its
// partitions node, the partition and its state.
func (wl *workload) newTopic(epoch int32) []migrationzk.Op {
	topic := fmt.Sprintf("t%06d", wl.nextTopic)
	wl.nextTopic++
	base := znode.TopicsPath + "/" + topic
	st := znode.PartitionState{ControllerEpoch: epoch, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	return []migrationzk.Op{
		migrationzk.Create(base, topicData),
		migrationzk.Create(base+"/partitions", nil),
		migrationzk.Create(base+"/partitions/0", nil),
		migrationzk.Create(znode.PartitionStatePath(topic, 0), st.Encode()),
	}
}

// deleteTopicOps deletes the topic of the partition state at statePath,
// children first, whatever their versions.
func deleteTopicOps(statePath string) []migrationzk.Op {
	partition := path.Dir(statePath)
	partitions := path.Dir(partition)
	return []migrationzk.Op{migrationzk.Delete(statePath, -1), migrationzk.Delete(partition, -1),
		migrationzk.Delete(partitions, -1), migrationzk.Delete(path.Dir(partitions), -1)}
}

// mergeNextDelta, half the time, adds the next delta's ops (a topic to
// create) to a batch being called again after an unknown outcome, as a
// controller that merges its backlog would: the batch then holds ops that
// no earlier copy of it held.
func (wl *workload) mergeNextDelta(wk work, epoch int32) work {
	if wk.ops == nil || wk.vocab != nil || wk.sync != nil || wk.delta != nil || wl.rng.Float64() < 0.5 {
		return wk
	}
	ops := append([]migrationzk.Op(nil), wk.ops...)
	wk.ops = append(ops, wl.newTopic(epoch)...)
	return wk
}

// learn records what the workload knows of a payload znode.
func (wl *workload) learn(path string, exists bool, version int32, at int64) {
	pl := wl.payloads[path]
	if pl == nil {
		pl = &payload{}
		wl.payloads[path] = pl
	}
	if strings.HasSuffix(path, "/state") && exists != pl.exists {
		if exists {
			wl.states = append(wl.states, path)
		} else {
			wl.states = slices.DeleteFunc(wl.states, func(p string) bool { return p == path })
		}
	}
	pl.exists, pl.version, pl.learned = exists, version, at
}

// syncChance is the chance that a call is a Sync while the tree holds
// states partition states: one in twenty, rarer once the tree outgrows
// what a short run makes, since each Sync reads the whole tree twice; the
// cost of Syncs per call stays bounded in a long run.
func syncChance(states int) float64 {
	const chance, bound = 0.05, 400
	if states <= bound {
		return chance
	}
	return chance * bound / float64(states)
}

// startCall begins the choice of a call: no op is conditioned on
// anything yet.
func (wl *workload) startCall() { clear(wl.basis) }

// revisiting reports whether the next call is a delta of the partitions a
// delta left in doubt and landed (reloadAfterDoubt).
func (wl *workload) revisiting() bool { return wl.revisit != nil }

// revisitNext makes the next call a delta of touched.
func (wl *workload) revisitNext(touched []deltaChange) { wl.revisit = touched }

// stateCount returns the number of partition states known to exist.
func (wl *workload) stateCount() int { return len(wl.states) }

// learnedAt returns when the version the workload knows of the payload
// znode at rel was learned, -1 when it knows nothing of it.
func (wl *workload) learnedAt(rel string) int64 {
	if pl := wl.payloads[rel]; pl != nil {
		return pl.learned
	}
	return -1
}

// setLearned dates what the workload knows of the payload znode at rel,
// if anything, from at (-1: unknown).
func (wl *workload) setLearned(rel string, at int64) {
	if pl := wl.payloads[rel]; pl != nil {
		pl.learned = at
	}
}

// basisOf returns when the version the op on rel of the call in flight
// is conditioned on was learned (0 for a create).
func (wl *workload) basisOf(rel string) int64 { return wl.basis[rel] }

// known returns the paths of the payload znodes the workload knows of,
// relative to the root.
func (wl *workload) known() []string {
	paths := make([]string, 0, len(wl.payloads))
	for rel := range wl.payloads {
		paths = append(paths, rel)
	}
	return paths
}

// askedFor returns the znodes the workload asked to be written, relative
// to the root.
func (wl *workload) askedFor() map[string]bool { return wl.asked }
