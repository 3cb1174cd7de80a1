package bench_test

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// changedPartition is the partition of topic t whose state a pass
// changes: one per topic of topicSize partitions, 1%, at ids spread
// across the topics.
func changedPartition(t int) int32 { return int32(t * 37 % topicSize) }

// movedState is the state of partition id of newTopic's topics in pass:
// its leader moves to the next of its replicas, its leader epoch rises,
// and in every other pass its ISR shrinks to the leader and one more.
// Every pass's state differs from the one before.
func movedState(id int32, pass int) dualwrite.PartitionState {
	r := []int32{id%3 + 1, (id+1)%3 + 1, (id+2)%3 + 1}
	leader := r[(pass+1)%3]
	isr := r
	if pass%2 == 0 {
		isr = []int32{leader, r[(pass+2)%3]}
	}
	return dualwrite.PartitionState{Leader: leader, LeaderEpoch: int32(pass + 1), ISR: isr}
}

// syncBench is a tree of topics seeded by seedTopics and the Image Read
// found in it at the start.
type syncBench struct {
	e      *env
	oc     *opCounter
	c      *dualwrite.Client
	base   dualwrite.Image
	topics int
	passes int
}

func newSyncBench(tb testing.TB, e *env, oc *opCounter, topics int) *syncBench {
	c := must.Get(dualwrite.New(e.w))
	return &syncBench{e: e, oc: oc, c: c, base: readImage(tb, c, topics*topicSize), topics: topics}
}

// desired returns the base Image with the changed partition of every
// topic at its state in pass; the base is left as it is.
func (sb *syncBench) desired(pass int) dualwrite.Image {
	img := sb.base
	img.Topics = maps.Clone(sb.base.Topics)
	for t := 0; t < sb.topics; t++ {
		name, id := fmt.Sprintf("topic-%d", t), changedPartition(t)
		topic := img.Topics[name]
		topic.Partitions = maps.Clone(topic.Partitions)
		p := topic.Partitions[id]
		p.State = movedState(id, pass)
		topic.Partitions[id] = p
		img.Topics[name] = topic
	}
	return img
}

// writeOps are the write ops a call sent, a multi's ops one by one.
type writeOps struct{ creates, deletes, sets int64 }

func (sb *syncBench) writeOps() writeOps {
	c, d, s := sb.oc.writes()
	return writeOps{creates: c, deletes: d, sets: s}
}

// sync Syncs towards the next pass's desired Image (made outside the
// timing) with the next offset, and returns its time, report and the
// write ops it sent.
func (sb *syncBench) sync(tb testing.TB) (time.Duration, dualwrite.SyncReport, writeOps) {
	tb.Helper()
	desired := sb.desired(sb.passes)
	sb.passes++
	s := sb.e.s
	s.KRaftMetadataOffset++
	sb.oc.reset()
	start := time.Now()
	st, rep, err := sb.c.Sync(context.Background(), s, desired)
	elapsed := time.Since(start)
	if err != nil {
		tb.Fatalf("Sync: %v", err)
	}
	sb.e.s = st
	return elapsed, rep, sb.writeOps()
}

// readApply Reads the tree, then applies the next pass's changes alone,
// one Batch of UpdatePartitions per topic with the next offset: what
// Sync does, less the diff. It returns the time of each and the write
// ops sent.
func (sb *syncBench) readApply(tb testing.TB) (read, apply time.Duration, w writeOps) {
	tb.Helper()
	pass := sb.passes
	sb.passes++
	s := sb.e.s
	s.KRaftMetadataOffset++
	sb.oc.reset()
	start := time.Now()
	readImage(tb, sb.c, sb.topics*topicSize)
	read = time.Since(start)
	start = time.Now()
	b := sb.c.Batch()
	for t := 0; t < sb.topics; t++ {
		id := changedPartition(t)
		b.UpdatePartitions(fmt.Sprintf("topic-%d", t), map[int32]dualwrite.PartitionState{id: movedState(id, pass)})
	}
	st, _, err := b.Apply(context.Background(), s)
	apply = time.Since(start)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	sb.e.s = st
	return read, apply, sb.writeOps()
}

// checkWrites fails unless w is one SetData per changed partition and the
// checkpoint's, and nothing else.
func (sb *syncBench) checkWrites(tb testing.TB, what string, w writeOps) {
	tb.Helper()
	if w != (writeOps{sets: int64(sb.topics) + 1}) {
		tb.Fatalf("%s sent %+v, want %d setData ops (%d partition states and the checkpoint)", what, w, sb.topics+1, sb.topics)
	}
}

// planned returns the partitions of the plan's partition-state updates,
// and fails when it holds any other change.
func planned(tb testing.TB, p dualwrite.Plan) int {
	tb.Helper()
	n := 0
	for _, c := range p.Changes {
		if c.Kind != dualwrite.ChangeUpdatePartitions {
			tb.Fatalf("plan holds %s %s", c.Kind, c.Subject)
		}
		n += len(c.Partitions)
	}
	return n
}

// BenchmarkSync Syncs a tree of 1,000 topics of 100 partitions (100,000
// partition states, seeded once, outside the timings) towards a desired
// Image in which 1% of the partitions, one per topic, have a new leader,
// leader epoch and ISR. In turn with it, in rotating order: a Read of the
// same tree, then a Batch that applies the same number of such changes
// alone (UpdatePartitions, one per topic), each timed. Sync reads the
// tree, diffs it against the desired Image, and applies the plan in one
// Batch, so its time is bounded by the sum of the other two, taken in
// the same iteration: sync/read+apply-paired-p50-ratio is the median over
// the iterations of Sync's time over theirs, each side reading the whole
// tree moments from the other, so that the machine's load, which moves a
// read of the tree by seconds from one minute to the next, moves both
// sides of each ratio alike; each side starts after a collection, outside
// the timings, not in the garbage the other left. Each Sync must write
// exactly the changed partitions' states and the checkpoint
// (sync-write-ops, counted on the wire, a multi's ops one by one).
// sync-read-p50-us and sync-apply-p50-us split Sync's time as its report
// does: its read, and the rest (the diff and the Batch).
func BenchmarkSync(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	e, oc := newCountedTopicEnv(b, srv, admin, "sync")
	seedTopics(b, admin, e, "topic", readTopics)
	sb := newSyncBench(b, e, oc, readTopics)
	b.Run(fmt.Sprintf("partitions=%d/changed=%d", readTopics*topicSize, readTopics), func(b *testing.B) {
		smp := newSamples(b.N, "sync", "read", "apply", "read+apply", "sync-read", "sync-apply")
		var syncOps writeOps
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, 2) {
				runtime.GC() // neither side pays for the garbage of the other's read
				if k == 0 {
					d, rep, w := sb.sync(b)
					sb.checkWrites(b, "Sync", w)
					if n := planned(b, rep.Plan); n != sb.topics {
						b.Fatalf("Sync planned %d partitions, want %d", n, sb.topics)
					}
					smp.add(0, d)
					smp.add(4, rep.ReadTime)
					smp.add(5, rep.ApplyTime)
					syncOps = w
					continue
				}
				r, a, w := sb.readApply(b)
				sb.checkWrites(b, "Batch", w)
				smp.add(1, r)
				smp.add(2, a)
				smp.add(3, r+a)
			}
		}
		smp.report(b, [2]int{0, 3}, [2]int{0, 1})
		smp.reportPaired(b, [2]int{0, 3})
		b.ReportMetric(float64(syncOps.sets+syncOps.creates+syncOps.deletes), "sync-write-ops")
		b.ReportMetric(float64(sb.topics), "changed-partitions")
	})
}

// TestSyncWritesOnlyChanges Syncs a tree of 100 topics of 100 partitions
// towards an Image in which one partition per topic has a new state: the
// Sync must send exactly those partitions' SetData ops and the
// checkpoint's, in one transaction, and leave every other znode at its
// version; a second Sync towards the same Image writes nothing.
func TestSyncWritesOnlyChanges(t *testing.T) {
	const topics = 100
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	e, oc := newCountedTopicEnv(t, srv, admin, "sync")
	seedTopics(t, admin, e, "topic", topics)
	sb := newSyncBench(t, e, oc, topics)
	e.faults.ResetCounts()
	_, rep, w := sb.sync(t)
	sb.checkWrites(t, "Sync", w)
	if n := planned(t, rep.Plan); n != topics {
		t.Fatalf("Sync planned %d partitions, want %d", n, topics)
	}
	if m := e.faults.Count(zktest.OpMulti); m != 1 {
		t.Fatalf("Sync sent %d multis, want 1", m)
	}
	checkVersions(t, admin, e, topics)
	oc.reset()
	st, rep, err := sb.c.Sync(context.Background(), sb.e.s, sb.desired(0))
	if err != nil || !rep.Plan.Empty() || sb.writeOps() != (writeOps{}) || st.MigrationZkVersion != sb.e.s.MigrationZkVersion {
		t.Fatalf("second Sync: plan %v, wrote %+v, state %+v (was %+v), %v", rep.Plan, sb.writeOps(), st, sb.e.s, err)
	}
}

// checkVersions fails unless the changed partition of each topic holds
// its state of the first pass at version 1 and the partition after it
// is still at version 0.
func checkVersions(t *testing.T, admin *zk.Conn, e *env, topics int) {
	t.Helper()
	for i := 0; i < topics; i++ {
		name, id := fmt.Sprintf("topic-%d", i), changedPartition(i)
		data, st, err := admin.Get(e.p(znode.PartitionStatePath(name, id)))
		ps, derr := znode.DecodePartitionState(data)
		want := movedState(id, 0)
		if err != nil || derr != nil || st.Version != 1 || ps.Leader != want.Leader || ps.LeaderEpoch != want.LeaderEpoch || len(ps.ISR) != len(want.ISR) {
			t.Fatalf("%s partition %d holds %s at version %d (%v, %v), want %+v at 1", name, id, data, st.Version, err, derr, want)
		}
		_, st, err = admin.Get(e.p(znode.PartitionStatePath(name, (id+1)%topicSize)))
		if err != nil || st.Version != 0 {
			t.Fatalf("%s partition %d at version %d (%v), want 0", name, (id+1)%topicSize, st.Version, err)
		}
	}
}
