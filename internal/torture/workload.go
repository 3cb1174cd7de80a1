package torture

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
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
}

// payload is what the driver knows of a payload znode.
type payload struct {
	exists  bool
	version int32
	learned int64
}

// choose picks the next call: a checkpoint alone, or a batch that creates
// a topic, updates partition states, or both, or deletes a topic.
func (d *driver) choose() work {
	if d.rng.Float64() < 0.25 {
		return work{}
	}
	if len(d.states) > 4 && d.rng.Float64() < 0.08 {
		return work{ops: deleteTopicOps(d.states[d.rng.Intn(len(d.states))])}
	}
	if d.rng.Float64() < 0.15 {
		return work{vocab: d.chooseVocabulary(d.offset + 1)}
	}
	if d.rng.Float64() < syncChance(len(d.states)) {
		return work{sync: d.chooseSync(d.offset + 1)}
	}
	var ops []migrationzk.Op
	if len(d.states) == 0 || d.rng.Float64() < 0.3 {
		ops = append(ops, d.topicOps(fmt.Sprintf("t%06d", d.nextTopic))...)
		d.nextTopic++
	}
	if len(d.states) > 0 && (len(ops) == 0 || d.rng.Float64() < 0.3) {
		ops = append(ops, d.partitionStateUpdates()...)
	}
	return work{ops: ops}
}

// partitionStateUpdates sets one to three existing partition states, each
// at the version the driver last learned, with a new leader and leader
// epoch.
func (d *driver) partitionStateUpdates() []migrationzk.Op {
	var ops []migrationzk.Op
	n := 1 + d.rng.Intn(3)
	picked := map[string]bool{}
	for i := 0; i < n; i++ {
		path := d.states[d.rng.Intn(len(d.states))]
		if picked[path] {
			continue
		}
		picked[path] = true
		pl := d.payloads[path]
		d.basis[path] = pl.learned
		st := znode.PartitionState{ControllerEpoch: d.cur.epoch, Leader: 1 + int32(d.rng.Intn(3)),
			LeaderEpoch: pl.version + 1, ISR: []int32{1, 2, 3}}
		ops = append(ops, migrationzk.SetData(path, st.Encode(), pl.version))
	}
	return ops
}

// topicData is the content of every topic znode the workload creates.
var topicData = []byte(`{"partitions":{"0":[1,2,3]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{},"version":3}`)

// topicOps creates a topic with one partition: the topic, its partitions
// node, the partition and its state.
func (d *driver) topicOps(topic string) []migrationzk.Op {
	base := znode.TopicsPath + "/" + topic
	st := znode.PartitionState{ControllerEpoch: d.cur.epoch, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
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

// step makes one call, with or without a fault, and reports whether the
// run can go on.
func (d *driver) step() bool {
	g := d.cur
	clear(d.basis)
	wk := d.choose()
	s := d.nextCheckpoint(g)
	d.tenureEnded.Store(false)

	var armed []*zktest.Armed
	deadline := time.Duration(0)
	if !d.quiet && d.rng.Float64() < d.cfg.FaultRate {
		armed = d.inject(g, &wk, s)
	}
	if !d.quiet && d.rng.Float64() < 0.04 {
		deadline = time.Duration(1+d.rng.Intn(20)) * time.Millisecond
	}
	ok := d.callUntilSettled(g, s, wk, deadline)
	waitArmed(armed)
	for _, f := range d.afterCall {
		f()
	}
	d.afterCall = nil
	return ok
}

// nextCheckpoint moves the metadata offset on by one and returns the State
// g writes next: what it last learned, with the new offset. That State
// must carry g's identity as the library returned it: a State naming
// another controller or epoch is an anomaly (and is stamped with g's, so
// that the run goes on; the Writer would refuse it).
func (d *driver) nextCheckpoint(g *generation) migrationzk.State {
	d.offset++
	s := g.s
	if s.KRaftControllerID != g.id || s.KRaftControllerEpoch != g.epoch {
		d.anomaly(CheckIdentity, "controller %d epoch %d was handed a State naming KRaft controller %d epoch %d",
			g.id, g.epoch, s.KRaftControllerID, s.KRaftControllerEpoch)
		s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	}
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = d.offset, g.epoch
	return s
}

// waitArmed disarms the faults a call left unmatched and waits, two
// seconds at most each, for those it matched: they act when the reply
// comes, unless the connection died first.
func waitArmed(armed []*zktest.Armed) {
	for _, a := range armed {
		if a.Disarm() {
			continue
		}
		select {
		case <-a.Fired():
		case <-time.After(2 * time.Second):
		}
	}
}

// callUntilSettled makes the call and repeats it, with the same arguments,
// while its outcome is unknown. It reports whether the run can go on.
func (d *driver) callUntilSettled(g *generation, s migrationzk.State, wk work, deadline time.Duration) bool {
	// A call repeated after an unknown outcome may find an earlier
	// attempt's write: its effects date from the first attempt.
	first := d.h.now()
	doubted := false // an attempt's outcome was unknown
	for attempt := 1; ; attempt++ {
		timeout := callTimeout
		if deadline > 0 && attempt == 1 {
			timeout = deadline
		}
		ctx, cancel := d.callContext(timeout)
		res := d.callOnce(ctx, g, s, wk, first)
		cancel()
		if d.tenureEnded.Load() && res.err == nil {
			d.anomaly(CheckFenceAdopted, "controller %d: call at offset %d succeeded although its tenure ended before its acknowledgement came back",
				g.id, s.KRaftMetadataOffset)
		}
		if res.deadline && attempt == 1 && deadline > 0 {
			d.count(FaultCallerDeadline)
		}
		switch {
		case res.retry:
			doubted = doubted || errors.Is(res.err, migrationzk.ErrOutcomeUnknown)
			s, wk, first = d.again(g, s, wk, doubted, first)
			if attempt >= maxAttempts {
				st := g.w.Stats()
				d.anomaly(CheckStuck, "stuck: controller %d: %d attempts, last: %v; client state %v on %s, session %x, requests %v, writer attempts %d retries %d; writer log:\n    %v",
					g.id, attempt, res.err, g.conn.State(), g.conn.Server(), g.conn.SessionID(), g.faults.Counts(), st.Attempts, st.Retries, g.log)
				return false
			}
			continue
		case res.fenced:
			for _, o := range wk.ops {
				d.relearn(o.Path())
			}
			return d.takeOver(g, s)
		case res.conflict:
			return d.resync(g, wk)
		case res.err != nil:
			d.anomaly(CheckUnexpected, "controller %d: unexpected error: %v", g.id, res.err)
			return d.resync(g, wk)
		}
		return true
	}
}

// callOnce makes the call of wk once, as if called at first.
func (d *driver) callOnce(ctx context.Context, g *generation, s migrationzk.State, wk work, first int64) outcome {
	switch {
	case wk.vocab != nil:
		return d.vocabulary(ctx, g, s, wk.vocab, first)
	case wk.sync != nil:
		return d.sync(ctx, g, s, wk.sync, first)
	case wk.ops == nil:
		return d.update(ctx, g, s, first)
	}
	return d.apply(ctx, g, s, wk.ops, first)
}

// again returns what a call is made again with: the same arguments while
// an attempt's outcome is unknown (doubted; a batch perhaps merged with
// the next delta), as ErrOutcomeUnknown asks, and half the time a newer
// checkpoint after Updates that all sent nothing, as a caller free to move
// on would. first is when the call's effects may date from.
func (d *driver) again(g *generation, s migrationzk.State, wk work, doubted bool, first int64) (migrationzk.State, work, int64) {
	if !doubted && wk.ops == nil && wk.vocab == nil && wk.sync == nil && d.rng.Float64() < 0.5 {
		return d.nextCheckpoint(g), wk, d.h.now()
	}
	return s, d.mergeNextDelta(wk), first
}

// mergeNextDelta, half the time, adds the next delta's ops (a topic to
// create) to a batch being called again after an unknown outcome, as a
// controller that merges its backlog would: the batch then holds ops that
// no earlier copy of it held.
func (d *driver) mergeNextDelta(wk work) work {
	if wk.ops == nil || wk.vocab != nil || wk.sync != nil || d.rng.Float64() < 0.5 {
		return wk
	}
	ops := append([]migrationzk.Op(nil), wk.ops...)
	wk.ops = append(ops, d.topicOps(fmt.Sprintf("t%06d", d.nextTopic))...)
	d.nextTopic++
	return wk
}

// resync is what the driver does after a conflict: read /migration again
// (as a controller reloads its state), and reread the batch's znodes.
func (d *driver) resync(g *generation, wk work) bool {
	for _, o := range wk.ops {
		d.relearn(o.Path())
	}
	return d.getOrCreate(g)
}

// learn records what the driver knows of a payload znode.
func (d *driver) learn(path string, exists bool, version int32, at int64) {
	pl := d.payloads[path]
	if pl == nil {
		pl = &payload{}
		d.payloads[path] = pl
	}
	if strings.HasSuffix(path, "/state") && exists != pl.exists {
		if exists {
			d.states = append(d.states, path)
		} else {
			d.states = slices.DeleteFunc(d.states, func(p string) bool { return p == path })
		}
	}
	pl.exists, pl.version, pl.learned = exists, version, at
}

// relearn reads a payload znode through the admin session and records it.
func (d *driver) relearn(rel string) {
	path := d.p(rel)
	v, ok := d.adminRead(path, 0, path)
	if !ok {
		return
	}
	d.learn(rel, v.Exists, v.Version, d.h.now())
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
