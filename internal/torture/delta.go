package torture

import (
	"fmt"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// deltaChange is one partition's new state in a KRaft delta the driver
// writes through its generation's dual-write Client, which remembers what
// it read and wrote during the tenure.
type deltaChange struct {
	topic string
	id    int32
	state dualwrite.PartitionState
	// path is the state znode's path, relative to the root.
	path string
}

// chooseDelta picks one to three existing partition states and gives each
// a new leader and leader epoch, or, now and then, the state it holds
// already, so that what the Client remembers decides to write nothing.
func (wl *workload) chooseDelta() []deltaChange {
	n := 1 + wl.rng.Intn(3)
	picked := map[string]bool{}
	var out []deltaChange
	for i := 0; i < n; i++ {
		path := wl.states[wl.rng.Intn(len(wl.states))]
		if picked[path] {
			continue
		}
		picked[path] = true
		topic, id := splitState(path)
		leader := 1 + int32(wl.rng.Intn(3))
		out = append(out, deltaChange{topic: topic, id: id, path: path,
			state: dualwrite.PartitionState{Leader: leader, LeaderEpoch: int32(wl.rng.Intn(4)), ISR: []int32{1, 2, 3}}})
	}
	return out
}

// revisitDelta gives the partitions of revisit, once, states other than
// those it asked for.
func (wl *workload) revisitDelta() []deltaChange {
	out := make([]deltaChange, len(wl.revisit))
	for i, ch := range wl.revisit {
		ch.state = dualwrite.PartitionState{Leader: ch.state.Leader%3 + 1, LeaderEpoch: ch.state.LeaderEpoch + 1, ISR: []int32{1, 2, 3}}
		out[i] = ch
	}
	wl.revisit = nil
	return out
}

// splitState returns the topic and partition of a state path.
func splitState(p string) (string, int32) {
	rest := strings.TrimPrefix(p, znode.TopicsPath+"/")
	topic, rest, _ := strings.Cut(rest, "/partitions/")
	var id int32
	_, _ = fmt.Sscanf(rest, "%d/state", &id)
	return topic, id
}
