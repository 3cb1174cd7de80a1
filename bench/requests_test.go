package bench_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// An Update on the happy path is one request on the wire: a setData
// unfenced, a multi fenced; no read, sync or exists.
func TestUpdateIsOneRequest(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	for _, fenced := range []bool{false, true} {
		c := newCheckpointer(newEnv(t, srv.Servers, admin, srv.Path("/one")+map[bool]string{false: "-unfenced", true: "-fenced"}[fenced], nil), fenced)
		want := zktest.OpSetData
		if fenced {
			want = zktest.OpMulti
		}
		c.e.faults.ResetCounts()
		for i := 0; i < 20; i++ {
			c.update(t, context.Background())
		}
		counts := c.e.faults.Counts()
		if len(counts) != 1 || counts[want] != 20 {
			t.Fatalf("fenced %v: 20 Updates sent %v, want 20 %v", fenced, counts, want)
		}
	}
}

// Apply of 1,000 partition states takes as many requests as the batch's
// bytes need, with the default request size and with a smaller one; and
// one more per refused op when each transaction has at most one.
func TestApplyRoundTrips(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	for _, tc := range []struct {
		name       string
		maxRequest int
		refused    map[int]bool
	}{
		{"default", migrationzk.DefaultMaxRequestBytes, nil},
		{"64KiB", 64 << 10, nil},
		{"64KiB-refused", 64 << 10, map[int]bool{10: true, 500: true, 999: true}},
	} {
		e := newEnv(t, srv.Servers, admin, srv.Path("/rt-"+tc.name), []migrationzk.Option{migrationzk.WithMaxRequestBytes(tc.maxRequest)})
		ps := newPartitions("topic", 1000)
		ps.createParents(t, admin, e.root)
		for i := range tc.refused {
			mustCreate(t, admin, e.p(ps.paths[i]), []byte("already"))
		}
		sc := &scaling{e: e, ps: ps, refused: tc.refused}
		// The Writer remembers /migration from GetOrCreate, so a batch of
		// several transactions needs no read.
		requests := sc.apply(t).requests
		bound := batchRequests(e.root, ps, checkpoint(e.s), tc.maxRequest) + len(tc.refused)
		if requests > int64(bound) || e.faults.Counts()[zktest.OpMulti] != requests {
			t.Fatalf("%s: %d requests (%v), the batch needs %d", tc.name, requests, e.faults.Counts(), bound)
		}
		if largest := e.faults.LargestRequest(); largest > tc.maxRequest {
			t.Fatalf("%s: a request of %d bytes, limit %d", tc.name, largest, tc.maxRequest)
		}
		t.Logf("%s: %d requests, bound %d", tc.name, requests, bound)
	}
}

// growth measures a cost at two points: after warm writes, and again
// after many more.
func growth(warm, many int, write func(), measure func() (allocs, bytes float64)) (a1, b1, a2, b2 float64) {
	for i := 0; i < warm; i++ {
		write()
	}
	a1, b1 = measure()
	for i := 0; i < many; i++ {
		write()
	}
	a2, b2 = measure()
	return a1, b1, a2, b2
}

// What an Update or an Apply allocates does not grow with the writes the
// Writer has made before: measured after a few hundred writes and again
// after thousands more, per Update and per op of a batch.
func TestAllocationsDoNotGrow(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	ctx := context.Background()

	c := newCheckpointer(newEnv(t, srv.Servers, admin, srv.Path("/grow-update"), nil), true)
	update := func() { c.update(t, ctx) }
	a1, b1, a2, b2 := growth(200, 3000, update, func() (float64, float64) {
		const n = 200
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < n; i++ {
			update()
		}
		runtime.ReadMemStats(&after)
		return float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n
	})
	t.Logf("per Update: %.1f allocs, %.0f B after 200 writes; %.1f allocs, %.0f B after 3,400", a1, b1, a2, b2)
	if a2 > a1+1 || b2 > b1*1.1+64 {
		t.Fatalf("Update allocations grew from %.1f (%.0f B) to %.1f (%.0f B)", a1, b1, a2, b2)
	}

	const ops = 100
	e := newEnv(t, srv.Servers, admin, srv.Path("/grow-apply"), nil)
	ps := newPartitions("topic", ops)
	ps.createParents(t, admin, e.root)
	sc := &scaling{e: e, ps: ps}
	batch := func() applied {
		a := sc.apply(t)
		ps.deleteAll(t, admin, e.root, nil)
		return a
	}
	a1, b1, a2, b2 = growth(20, 300, func() { batch() }, func() (float64, float64) {
		const n = 20
		var sum applied
		for i := 0; i < n; i++ {
			a := batch()
			sum.allocs, sum.bytes = sum.allocs+a.allocs, sum.bytes+a.bytes
		}
		return float64(sum.allocs) / (n * ops), float64(sum.bytes) / (n * ops)
	})
	t.Logf("per op of an Apply of %d: %.1f allocs, %.0f B after 20 batches; %.1f allocs, %.0f B after 340", ops, a1, b1, a2, b2)
	if a2 > a1*1.02+0.5 || b2 > b1*1.1+64 {
		t.Fatalf("Apply allocations per op grew from %.1f (%.0f B) to %.1f (%.0f B)", a1, b1, a2, b2)
	}
}
