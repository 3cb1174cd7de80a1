package bench_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// recoverer is a Writer whose connection uses one host provider.
type recoverer struct {
	e *env
}

// recover writes the next checkpoint with its reply dropped and returns the
// time from the moment the reply was dropped to Update returning the
// corrected version.
func (r *recoverer) recover(tb testing.TB) time.Duration {
	e := r.e
	var dropped atomic.Int64
	armed := e.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: e.p(znode.MigrationPath),
		Then: func() { dropped.Store(time.Now().UnixNano()) }})
	s := e.s
	s.KRaftMetadataOffset++
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	next, err := e.w.Update(ctx, s)
	end := time.Now()
	if err != nil {
		tb.Fatalf("Update: %v", err)
	}
	if !armed.HasFired() || !next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
		tb.Fatalf("fault fired %v, recovered %v, version %d after %d", armed.HasFired(), next.Recovered, next.MigrationZkVersion, s.MigrationZkVersion)
	}
	e.s = next
	return end.Sub(time.Unix(0, dropped.Load()))
}

// BenchmarkRecovery drops the reply to a fenced checkpoint write after the
// server committed it and measures the time from the drop to Update
// returning the corrected version, recovered. It compares a client using
// zkconn.HostProvider (what zkconn.Open and zktest use) with one using
// go-zookeeper's default host provider, interleaved, on a standalone
// server and on a three-member ensemble. Metrics are medians in
// milliseconds and the 90th percentile.
func BenchmarkRecovery(b *testing.B) {
	for _, topo := range []string{"standalone", "ensemble"} {
		var servers []string
		var root string // where the test's znodes go
		if topo == "standalone" {
			srv := zktest.Start(b)
			servers, root = srv.Servers, srv.Root
		} else {
			servers = zktest.StartEnsemble(b, 3).Servers
		}
		admin := zktest.Connect(b, servers)
		fast := &recoverer{e: newEnv(b, servers, admin, root+"/zkconn", nil)}
		dflt := &recoverer{e: newEnv(b, servers, admin, root+"/default", nil, zk.WithHostProvider(zk.NewDNSHostProvider()))}
		b.Run(topo, func(b *testing.B) {
			smp := newSamples(b.N, "zkconn", "default")
			for i := 0; i < b.N; i++ {
				for _, v := range order(i, 2) {
					if v == 0 {
						smp.add(0, fast.recover(b))
					} else {
						smp.add(1, dflt.recover(b))
					}
				}
			}
			for i, name := range smp.names {
				b.ReportMetric(float64(smp.quantile(i, 0.5))/1e6, name+"-p50-ms")
				b.ReportMetric(float64(smp.quantile(i, 0.9))/1e6, name+"-p90-ms")
			}
		})
	}
}
