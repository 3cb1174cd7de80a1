package bench_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// checkpointer writes /migration checkpoints of one env, either through its
// Writer or as a caller would with the bare client, on the same
// connection and znode, keeping track of the znode version.
type checkpointer struct {
	e        *env
	fenced   bool
	s        migrationzk.State
	requests int64 // sent by Updates
}

func newCheckpointer(e *env, fenced bool) *checkpointer {
	c := &checkpointer{e: e, fenced: fenced, s: e.s}
	if !fenced {
		c.s.ZkControllerEpochZkVersion = -1
	}
	return c
}

// update writes the next checkpoint with Writer.Update and checks that it
// took exactly one request, a setData (unfenced) or a multi (fenced).
func (c *checkpointer) update(tb testing.TB, ctx context.Context) time.Duration {
	c.s.KRaftMetadataOffset++
	before := c.e.faults.Requests()
	start := time.Now()
	s, err := c.e.w.Update(ctx, c.s)
	d := time.Since(start)
	if err != nil {
		tb.Fatalf("Update: %v", err)
	}
	n := c.e.faults.Requests() - before
	if n != 1 {
		tb.Fatalf("Update sent %d requests, want 1 (%v)", n, c.e.faults.Counts())
	}
	c.requests += n
	c.s = s
	return d
}

// raw writes the next checkpoint with the bare client: conn.Set (unfenced),
// or conn.Multi of the same Check and SetData ops the Writer sends.
func (c *checkpointer) raw(tb testing.TB) time.Duration {
	c.s.KRaftMetadataOffset++
	path := c.e.p(znode.MigrationPath)
	start := time.Now()
	data := checkpoint(c.s)
	var err error
	var stat *zk.Stat
	if c.fenced {
		var res []zk.MultiResponse
		res, err = c.e.conn.Multi(
			&zk.CheckVersionRequest{Path: c.e.p(znode.ControllerEpochPath), Version: c.s.ZkControllerEpochZkVersion},
			&zk.SetDataRequest{Path: path, Data: data, Version: c.s.MigrationZkVersion})
		if err == nil {
			stat = res[1].Stat
		}
	} else {
		stat, err = c.e.conn.Set(path, data, c.s.MigrationZkVersion)
	}
	d := time.Since(start)
	if err != nil {
		tb.Fatalf("raw write: %v", err)
	}
	c.s.MigrationZkVersion = stat.Version
	return d
}

// BenchmarkCheckpoint compares Writer.Update with the bare client writing
// the same checkpoint to the same znode on the same connection: unfenced
// against conn.Set, fenced against conn.Multi of the same ops. The two
// alternate within each iteration, in changing order, and the metrics are
// their median latencies and the ratio of those. The Writer is called
// with context.Background() (ctx=background) and with a cancellable
// context (ctx=cancel), for which it waits on a goroutine. With ctx=cancel
// a third variant, Update with context.Background(), takes turns with the
// other two, and handoff-p50-us is the median over the iterations of the
// cancellable Update's time less the other's: what the hand-off to that
// goroutine costs.
func BenchmarkCheckpoint(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	for _, fenced := range []bool{false, true} {
		for _, ctxKind := range []string{"background", "cancel"} {
			name := "unfenced"
			rawName := "set"
			if fenced {
				name, rawName = "fenced", "multi"
			}
			c := newCheckpointer(newEnv(b, srv.Servers, admin, srv.Path("/"+name+"-"+ctxKind), nil), fenced)
			b.Run(name+"/ctx="+ctxKind, func(b *testing.B) {
				ctx := context.Background()
				if ctxKind == "cancel" {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					defer cancel()
				}
				// Warm both paths up: connection buffers, server caches.
				for i := 0; i < 50; i++ {
					c.update(b, ctx)
					c.raw(b)
				}
				names := []string{"update", rawName}
				if ctxKind == "cancel" {
					names = append(names, "update-background")
				}
				smp, variants := newSamples(b.N, names...), len(names)
				c.requests = 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, v := range order(i, variants) {
						switch v {
						case 0:
							smp.add(0, c.update(b, ctx))
						case 1:
							smp.add(1, c.raw(b))
						default:
							smp.add(2, c.update(b, context.Background()))
						}
					}
				}
				b.StopTimer()
				smp.report(b, [2]int{0, 1})
				if ctxKind == "cancel" {
					b.ReportMetric(smp.pairedDifference(0, 2).Seconds()*1e6, "handoff-p50-us")
				}
				b.ReportMetric(float64(c.requests)/float64(b.N*(variants-1)), "requests/update")
			})
		}
	}
}

// BenchmarkCheckpointMemory measures allocations of one checkpoint write,
// each way on its own, for -benchmem: what Writer.Update allocates beyond
// the client's own allocations is the difference between the update and
// raw lines. alloc-growth/op is how many more allocations an Update made
// in the second half of the iterations than in the first: zero unless
// something grows with the writes made so far.
func BenchmarkCheckpointMemory(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	for _, fenced := range []bool{false, true} {
		name, rawName := "unfenced", "raw-set"
		if fenced {
			name, rawName = "fenced", "raw-multi"
		}
		e := newEnv(b, srv.Servers, admin, srv.Path("/"+name), nil)
		c := newCheckpointer(e, fenced)
		b.Run(name+"/update", func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			var start, mid, end runtime.MemStats
			runtime.ReadMemStats(&start)
			for i := 0; i < b.N; i++ {
				if i == b.N/2 {
					runtime.ReadMemStats(&mid)
				}
				c.update(b, ctx)
			}
			runtime.ReadMemStats(&end)
			if half := b.N / 2; half > 0 {
				early := float64(mid.Mallocs-start.Mallocs) / float64(half)
				late := float64(end.Mallocs-mid.Mallocs) / float64(b.N-half)
				b.ReportMetric(late-early, "alloc-growth/op")
			}
		})
		b.Run(name+"/"+rawName, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.raw(b)
			}
		})
	}
}
