package bench_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// BenchmarkDeltaScaling's partitions (topics of topicSize partitions, as
// newPartitions names them) and the sizes of its deltas.
const (
	deltaPartitions = 10000
	topicSize       = 100
)

var deltaSizes = []int{100, 1000, 10000}

// leaderMoves is a delta's states for every partition of newPartitions'
// topics, by topic: in pass, each partition's leader moves to the next of
// its three replicas and its leader epoch rises, as after a broker
// restart; every state differs from the pass before.
func leaderMoves(topics, pass int) []map[int32]dualwrite.PartitionState {
	out := make([]map[int32]dualwrite.PartitionState, topics)
	for t := range out {
		out[t] = make(map[int32]dualwrite.PartitionState, topicSize)
		for p := int32(0); p < topicSize; p++ {
			r := []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
			out[t][p] = dualwrite.PartitionState{Leader: r[pass%3], LeaderEpoch: int32(8 + pass), ISR: r}
		}
	}
	return out
}

// deltaScaling is BenchmarkDeltaScaling's env: deltaPartitions partition
// states, and the passes written so far.
type deltaScaling struct {
	e      *env
	c      *dualwrite.Client
	passes int
}

// pass changes every partition's state (leaderMoves) in deltas of size
// partitions, each a Batch of UpdatePartitions for size/topicSize topics
// applied with the next offset, and returns the time they took and their
// requests, the writes among them, on the wire. The states are made
// outside the timing.
func (d *deltaScaling) pass(tb testing.TB, size int) (elapsed time.Duration, requests, writes int64) {
	tb.Helper()
	states := leaderMoves(deltaPartitions/topicSize, d.passes)
	d.passes++
	d.e.faults.ResetCounts()
	start := time.Now()
	for first := 0; first < len(states); first += size / topicSize {
		b := d.c.Batch()
		for t := first; t < first+size/topicSize; t++ {
			b.UpdatePartitions(fmt.Sprintf("topic-%d", t), states[t])
		}
		s := d.e.s
		s.KRaftMetadataOffset++
		st, _, err := b.Apply(context.Background(), s)
		if err != nil {
			tb.Fatalf("delta of %d partitions: %v", size, err)
		}
		d.e.s = st
	}
	elapsed = time.Since(start)
	return elapsed, d.e.faults.Requests(), d.e.faults.Count(zktest.OpMulti) + d.e.faults.Count(zktest.OpSetData)
}

// checkPass fails unless ZooKeeper holds the states of the last pass, in
// the first partition of each topic.
func (d *deltaScaling) checkPass(tb testing.TB, admin *zk.Conn) {
	tb.Helper()
	want := leaderMoves(1, d.passes-1)[0][0]
	for t := 0; t < deltaPartitions/topicSize; t++ {
		p := d.e.p(znode.PartitionStatePath(fmt.Sprintf("topic-%d", t), 0))
		data, _, err := admin.Get(p)
		st, derr := znode.DecodePartitionState(data)
		if err != nil || derr != nil || st.Leader != want.Leader || st.LeaderEpoch != want.LeaderEpoch || st.ControllerEpoch != d.e.s.KRaftControllerEpoch {
			tb.Fatalf("%s holds %s (%v, %v), want leader %d epoch %d", p, data, err, derr, want.Leader, want.LeaderEpoch)
		}
	}
}

// BenchmarkDeltaScaling mirrors KRaft deltas of 100, 1,000 and 10,000
// partition-state changes through dualwrite.Batch, each delta one Batch
// of UpdatePartitions across topics of 100 partitions: what a delta of
// PartitionChangeRecords (leaders moving after a broker restart, ISRs
// shrinking and growing) turns into, and what Kafka's handleDelta writes
// with updateTopicPartitions per changed topic. CreatePartitions, the
// other partition-state change, happens when topics grow, which deltas
// bring rarely and far fewer at a time. Each iteration changes all 10,000
// partitions once at each size (a hundred deltas of 100, ten of 1,000,
// one of 10,000), the sizes in changing order (see order), on one Writer
// and the same znodes, so that noise hits the sizes alike. A delta of 10,000 takes
// about 1.8 MB and the Writer splits it in two transactions (it keeps each
// within ZooKeeper's request size; the test server, with its 256 MB heap,
// takes 10,000 ops as BenchmarkApplyScaling shows). ns/partition is the
// median over the iterations of an iteration's time at a size over
// 10,000; time per partition must not grow with the delta.
func BenchmarkDeltaScaling(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	e := newEnv(b, srv.Servers, admin, srv.Path("/delta"), nil)
	ps := newPartitions("topic", deltaPartitions)
	ps.createParents(b, admin, e.root)
	creates := make([]interface{}, len(ps.paths))
	for i, p := range ps.paths {
		creates[i] = &zk.CreateRequest{Path: e.p(p), Data: ps.data[i], Acl: worldACL()}
	}
	multiChunks(b, admin, creates)
	d := &deltaScaling{e: e, c: must.Get(dualwrite.New(e.w))}
	b.Run("update-partitions", func(b *testing.B) {
		names := make([]string, len(deltaSizes))
		for k, n := range deltaSizes {
			names[k] = fmt.Sprintf("delta=%d", n)
		}
		smp := newSamples(b.N, names...)
		requests := make([]int64, len(deltaSizes))
		writes := make([]int64, len(deltaSizes))
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, len(deltaSizes)) {
				elapsed, reqs, w := d.pass(b, deltaSizes[k])
				smp.add(k, elapsed)
				requests[k], writes[k] = reqs/int64(deltaPartitions/deltaSizes[k]), w/int64(deltaPartitions/deltaSizes[k])
				if i == 0 {
					d.checkPass(b, admin)
				}
			}
		}
		for k, name := range names {
			b.ReportMetric(float64(smp.quantile(k, 0.5).Nanoseconds())/deltaPartitions, name+"-ns/partition")
			b.ReportMetric(float64(requests[k]), name+"-requests/delta")
			b.ReportMetric(float64(writes[k]), name+"-writes/delta")
		}
	})
}
