package torture

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
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

// dualWrite returns g's dual-write Client, made once per Writer of the
// generation so that it remembers across calls; its trace hook checks
// each transaction it sends.
func (d *driver) dualWrite(g *generation) *dualwrite.Client {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dw == nil || g.dwOf != g.w {
		// A new Writer (after a stale session, say) gets a Client that
		// remembers nothing.
		g.dw = must.Get(dualwrite.New(g.w, dualwrite.WithTrace(func(e dualwrite.TraceEvent) { d.checkTransaction(g, e) })))
		g.dwOf, g.learnedAt, g.readAllAt, g.mem = g.w, nil, 0, newMemoryModel()
	}
	return g.dw
}

// checkTransaction checks a transaction the Client sent: each SetData and
// each delete of a partition state is conditioned on a version, so that
// no write by another party is overwritten unseen.
func (d *driver) checkTransaction(g *generation, e dualwrite.TraceEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.learnedAt == nil {
		g.learnedAt = map[string]int64{}
	}
	d.noteMemory(g, e)
	switch e.Kind {
	case dualwrite.TraceReadWave:
		// Sent after the call's sync: what landed before now is read.
		for _, p := range e.Paths {
			g.learnedAt[p] = d.h.Now()
		}
		return
	case dualwrite.TraceTransaction:
		// Its ops were conditioned on what was learned before it.
		g.opBasis, g.lastOps = map[string]int64{}, g.lastOps[:0]
		for _, o := range e.Ops {
			g.lastOps = append(g.lastOps, o.Path())
			if at, ok := g.learnedAt[o.Path()]; ok || g.readAllAt > 0 {
				g.opBasis[o.Path()] = max(at, g.readAllAt)
			}
		}
		for _, r := range e.Results {
			if r.Err == nil {
				g.learnedAt[r.Op.Path()] = d.h.Now()
			}
		}
	default:
		return
	}
	if e.Remembered {
		d.remembered.Add(1)
	}
	for _, o := range e.Ops {
		if o.Kind() != migrationzk.OpCreate && strings.HasSuffix(o.Path(), "/state") && o.Version() < 0 {
			d.anomaly(CheckUnconditioned, "controller %d: %s at any version, in a transaction planned from what the Client remembers (%v)", g.id, o, e.Remembered)
		}
	}
}

// delta writes changes through g's remembering Client in one Batch with
// checkpoint s, records it as vocabulary does, and checks that ZooKeeper
// holds what each change asked for once the call succeeded.
func (d *driver) delta(ctx context.Context, g *generation, s migrationzk.State, changes []deltaChange, from int64) outcome {
	d.calls.Add(1)
	var out migrationzk.State
	var res []migrationzk.OpResult
	rc, err := d.withDualWrite(g, from, fmt.Sprintf("delta by %d offset %d (%d partitions)", g.id, s.KRaftMetadataOffset, len(changes)), false, func(c *dualwrite.Client) (err error) {
		b := c.Batch()
		for _, ch := range changes {
			b.UpdatePartitions(ch.topic, map[int32]dualwrite.PartitionState{ch.id: ch.state})
		}
		out, res, err = b.Apply(ctx, s)
		return err
	})
	o := d.classify(g, ctx, err)
	if errors.Is(err, migrationzk.ErrConflict) && !o.conflict {
		o.conflict = true
	}
	d.recordApplyCheckpoint(g, s, out, o, refusedOps(res), rc)
	d.asClientLearned(g, res)
	d.recordResults(g, res, err, o, out, rc)
	if err == nil {
		d.checkDelta(g, s, changes)
	}
	for _, ch := range changes {
		// What the Client wrote, or left as it was, is what the raw
		// batches build on next.
		d.relearn(ch.path)
	}
	return o
}

// asClientLearned records, as the moment the driver learned the version
// of each op of res, the moment g's Client did: its ops are conditioned
// on what it remembers, not on what the driver knows.
func (d *driver) asClientLearned(g *generation, res []migrationzk.OpResult) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range res {
		at, ok := g.opBasis[r.Op.Path()]
		if !ok {
			at = -1
		}
		if pl := d.payloads[r.Op.Path()]; pl != nil {
			pl.learned = at
		}
	}
}

// checkDelta checks that ZooKeeper holds the state each change asked for,
// stamped with s's KRaft controller epoch: written by the call, or held
// already when the Client wrote nothing for it.
func (d *driver) checkDelta(g *generation, s migrationzk.State, changes []deltaChange) {
	for _, ch := range changes {
		_, datas, _, err := d.adminGet(d.p(ch.path))
		if err != nil {
			return // the harness's read failed; the history checks stand
		}
		got, derr := znode.DecodePartitionState(datas[0])
		want := znode.PartitionState{ControllerEpoch: s.KRaftControllerEpoch, Leader: ch.state.Leader,
			LeaderEpoch: ch.state.LeaderEpoch, ISR: ch.state.ISR}
		if derr != nil || !got.Equal(want) {
			d.anomaly(CheckDelta, "controller %d: a delta that succeeded asked %s for %s, ZooKeeper holds %q", g.id, ch.path, want.Encode(), datas[0])
		}
	}
}

// foreignDeltaWrite writes, as another party, to a partition state the
// coming delta changes, which the Client may remember: a SetData of other
// bytes, a delete, a delete and a create of the same bytes brought back
// to the version it had (an ABA that ZooKeeper's version check cannot
// see, as with Kafka's cached zkVersions, harmless with the same bytes),
// or a delete and a create of other bytes.
func (d *driver) foreignDeltaWrite(rng *rand.Rand, g *generation, changes []deltaChange) {
	path := d.p(changes[rng.Intn(len(changes))].path)
	cur, ok := d.adminRead(path, 0, path)
	if !ok || !cur.Exists {
		return
	}
	switch r := rng.Float64(); {
	case r < 0.35:
		st := znode.PartitionState{ControllerEpoch: g.epoch, Leader: 99, LeaderEpoch: cur.Version + 1, ISR: []int32{99}}
		d.foreignSet(FaultForeignDelta, path, path, 0, st.Encode())
	case r < 0.55:
		d.foreignDelete(FaultForeignDelta, path)
	case r < 0.8:
		d.foreignRecreate(path, []byte(cur.Data), cur.Version)
	case cur.Version > 0: // back at version 0, which the Client cannot remember
		if d.foreignDelete(FaultForeignDelta, path) {
			st := znode.PartitionState{ControllerEpoch: 1, Leader: 98, LeaderEpoch: 98, ISR: []int32{98}}
			d.foreignCreate(FaultForeignDelta, path, st.Encode())
		}
	}
}

// foreignRecreate deletes path and creates it again holding the same
// data, then sets that data again until it is back at version (given it
// is within a few writes): what the Client remembers of it, version and
// digest, matches it again, and rightly so.
func (d *driver) foreignRecreate(path string, data []byte, version int32) {
	if version > 6 || !d.foreignDelete(FaultForeignDelta, path) {
		return
	}
	if !d.foreignCreate(FaultForeignDelta, path, data) {
		return
	}
	for v := int32(0); v < version; v++ {
		if !d.foreignSet(FaultForeignDelta, path, path, 0, data) {
			return
		}
	}
}

// injectForeignDelta writes, before a delta, to a partition state it
// changes (foreignDeltaWrite); other calls it leaves alone.
func (d *driver) injectForeignDelta(g *generation, wk work) []*zktest.Armed {
	if len(wk.delta) > 0 {
		d.foreignDeltaWrite(rand.New(rand.NewSource(d.rng.Int63())), g, wk.delta)
	}
	return nil
}
