package bench_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// scaling is one batch size of BenchmarkApplyScaling, on an env of its own.
type scaling struct {
	e       *env
	ps      partitions
	refused map[int]bool // ops whose znode exists already
}

// refusedEvery marks every k-th op (k > 0) of n, from the (k/2)-th on,
// as one ZooKeeper refuses with NodeExists.
func refusedEvery(n, k int) map[int]bool {
	m := map[int]bool{}
	for i := k / 2; k > 0 && i < n; i += k {
		m[i] = true
	}
	return m
}

// applied is what one Apply of a batch cost.
type applied struct {
	d        time.Duration
	requests int64
	allocs   uint64 // heap allocations during the call
	bytes    uint64 // heap bytes allocated during the call
}

// apply writes the batch with Writer.Apply and returns what it cost. It
// fails unless exactly the refused ops were refused.
func (sc *scaling) apply(tb testing.TB) applied {
	e := sc.e
	ops := sc.ps.ops()
	e.s.KRaftMetadataOffset++
	e.faults.ResetCounts()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	s, res, err := e.w.Apply(context.Background(), e.s, ops...)
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	for i, r := range res {
		if sc.refused[i] != errors.Is(r.Err, zk.ErrNodeExists) || (!sc.refused[i] && r.Err != nil) {
			tb.Fatalf("op %d: %v", i, r.Err)
		}
	}
	e.s = s
	return applied{d: d, requests: e.faults.Requests(), allocs: after.Mallocs - before.Mallocs, bytes: after.TotalAlloc - before.TotalAlloc}
}

// scalingSizes are BenchmarkApplyScaling's batch sizes.
var scalingSizes = []int{10, 100, 1000, 10000}

// newScalings makes one scaling per size of scalingSizes, each on an env
// of its own under prefix, with every every-th op refused (see
// refusedEvery): the znodes of those ops exist already.
func newScalings(tb testing.TB, srv *zktest.Server, admin *zk.Conn, prefix string, every int) []*scaling {
	tb.Helper()
	out := make([]*scaling, len(scalingSizes))
	for k, n := range scalingSizes {
		sc := &scaling{e: newEnv(tb, srv.Servers, admin, srv.Path(fmt.Sprintf("%s-%d", prefix, n)), nil), ps: newPartitions("topic", n), refused: refusedEvery(n, every)}
		sc.ps.createParents(tb, admin, sc.e.root)
		for i := range sc.refused {
			mustCreate(tb, admin, sc.e.p(sc.ps.paths[i]), []byte("already"))
		}
		out[k] = sc
	}
	return out
}

// BenchmarkApplyScaling writes batches of 10 to 10,000 partition states
// with Writer.Apply, all created (refused=0), or with every 100th op
// (refused=1%) or every 10th (refused=10%) refused by ZooKeeper with
// NodeExists, which Apply reports per op and resends the rest of its
// transaction without. Each iteration applies one batch of each size, the
// sizes in changing order (see order), each on an env of its own, so
// that the machine's load hits the sizes alike; the znodes are deleted
// after each batch, outside the timing. ops=N-ns/znode is the median over
// the iterations of a batch's time over its N ops; ops=N-allocs/znode
// the mean heap allocations per op; ops=N-requests the mean round trips
// per batch. Time per op must not grow with the batch. Each refused rate
// has a server of its own: the test server's 256 MB heap fills after some
// fifteen iterations' transactions of 1 MB, and its full collections then
// slow the largest batches alone.
func BenchmarkApplyScaling(b *testing.B) {
	for _, every := range []int{0, 100, 10} {
		srv := zktest.Start(b)
		admin := srv.Connect(b)
		scs := newScalings(b, srv, admin, fmt.Sprintf("/scale-%d", every), every)
		b.Run("refused="+map[int]string{0: "0", 100: "1%", 10: "10%"}[every], func(b *testing.B) {
			names := make([]string, len(scalingSizes))
			for k, n := range scalingSizes {
				names[k] = fmt.Sprintf("ops=%d", n)
			}
			smp := newSamples(b.N, names...)
			sums := make([]applied, len(scalingSizes))
			for i := 0; i < b.N; i++ {
				for _, k := range order(i, len(scalingSizes)) {
					a := scs[k].apply(b)
					smp.add(k, a.d)
					sums[k].requests, sums[k].allocs = sums[k].requests+a.requests, sums[k].allocs+a.allocs
					scs[k].ps.deleteAll(b, admin, scs[k].e.root, scs[k].refused)
				}
			}
			for k, n := range scalingSizes {
				b.ReportMetric(float64(smp.quantile(k, 0.5).Nanoseconds())/float64(n), names[k]+"-ns/znode")
				b.ReportMetric(float64(sums[k].allocs)/float64(b.N*n), names[k]+"-allocs/znode")
				b.ReportMetric(float64(sums[k].requests)/float64(b.N), names[k]+"-requests")
			}
		})
	}
}
