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

// BenchmarkApplyScaling writes batches of 10 to 10,000 partition states
// with Writer.Apply, all created (refused=0), or with every 100th op
// (refused=1%) or every 10th (refused=10%) refused by ZooKeeper with
// NodeExists, which Apply reports per op and resends the rest of its
// transaction without. The znodes are deleted after each batch, outside
// the timing. ns/znode and allocs/znode are per op of the batch; requests
// is the round trips per batch. Time per op must not grow with the batch.
func BenchmarkApplyScaling(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	for _, every := range []int{0, 100, 10} {
		for _, n := range []int{10, 100, 1000, 10000} {
			name := fmt.Sprintf("refused=%s/ops=%d", map[int]string{0: "0", 100: "1%", 10: "10%"}[every], n)
			sc := &scaling{e: newEnv(b, srv.Servers, admin, srv.Path(fmt.Sprintf("/scale-%d-%d", every, n)), nil), ps: newPartitions("topic", n), refused: refusedEvery(n, every)}
			sc.ps.createParents(b, admin, sc.e.root)
			for i := range sc.refused {
				mustCreate(b, admin, sc.e.p(sc.ps.paths[i]), []byte("already"))
			}
			b.Run(name, func(b *testing.B) {
				var sum applied
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					a := sc.apply(b)
					sum.d, sum.requests, sum.allocs = sum.d+a.d, sum.requests+a.requests, sum.allocs+a.allocs
					b.StopTimer()
					sc.ps.deleteAll(b, admin, sc.e.root, sc.refused)
					b.StartTimer()
				}
				per := float64(b.N * n)
				b.ReportMetric(float64(sum.d.Nanoseconds())/per, "ns/znode")
				b.ReportMetric(float64(sum.allocs)/per, "allocs/znode")
				b.ReportMetric(float64(sum.requests)/float64(b.N), "requests")
			})
		}
	}
}
