package bench_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// pipelineDepth bounds the multis the pipelined Kafka-shaped writer keeps
// in flight.
const pipelineDepth = 32

// kafkaBatch writes a dual-write batch the way Kafka 3.9 does: each op in
// a multi of its own, [Check /controller_epoch, Check /migration (SetData
// of the new checkpoint for the last op), the op]. It returns the
// /migration version after the batch. A failure of the op itself is
// reported per op, as Kafka does, and does not stop the batch.
type kafkaBatch struct {
	e          *env
	checkpoint []byte
	ps         partitions
	acl        []zk.ACL
}

func (k kafkaBatch) multi(i int, last bool) ([]zk.MultiResponse, error) {
	return kafkaCreate(k.e, k.ps.paths[i], k.ps.data[i], k.acl, k.checkpoint, last)
}

// kafkaCreate sends one of Kafka's fenced requests on e's session, a
// create of path (under e's root) holding data: [Check /controller_epoch,
// Check /migration, the create], or with SetData /migration of checkpoint
// instead of its Check when last.
func kafkaCreate(e *env, path string, data []byte, acl []zk.ACL, checkpoint []byte, last bool) ([]zk.MultiResponse, error) {
	var mig interface{} = &zk.CheckVersionRequest{Path: e.p(znode.MigrationPath), Version: e.s.MigrationZkVersion}
	if last {
		mig = &zk.SetDataRequest{Path: e.p(znode.MigrationPath), Data: checkpoint, Version: e.s.MigrationZkVersion}
	}
	return e.conn.Multi(
		&zk.CheckVersionRequest{Path: e.p(znode.ControllerEpochPath), Version: e.s.ZkControllerEpochZkVersion},
		mig,
		&zk.CreateRequest{Path: e.p(path), Data: data, Acl: acl})
}

// finish sends the last op with the checkpoint and returns the new
// /migration version.
func (k kafkaBatch) finish(tb testing.TB) int32 {
	n := len(k.ps.paths)
	res, err := k.multi(n-1, true)
	if err != nil {
		tb.Fatalf("Kafka-shaped multi of op %d: %v", n-1, err)
	}
	return res[1].Stat.Version
}

// sequential sends one multi after another.
func (k kafkaBatch) sequential(tb testing.TB) int32 {
	for i := 0; i < len(k.ps.paths)-1; i++ {
		if res, err := k.multi(i, false); err != nil && !isOpFailure(res, err) {
			tb.Fatalf("Kafka-shaped multi of op %d: %v", i, err)
		}
	}
	return k.finish(tb)
}

// pipelined keeps up to pipelineDepth multis in flight on the connection.
// The ops create distinct znodes whose parents exist, so their order does
// not matter; the last, which moves the checkpoint, waits for all others.
func (k kafkaBatch) pipelined(tb testing.TB) int32 {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan int)
	for w := 0; w < pipelineDepth; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if res, err := k.multi(i, false); err != nil && !isOpFailure(res, err) {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < len(k.ps.paths)-1; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		tb.Fatalf("pipelined Kafka-shaped multi: %v", firstErr)
	}
	return k.finish(tb)
}

// dualWrite is one way of writing the batch, on an env of its own.
type dualWrite struct {
	name  string
	e     *env
	ps    partitions
	write func(tb testing.TB, d *dualWrite) (requests int64)
}

func (d *dualWrite) run(tb testing.TB, admin *zk.Conn) (time.Duration, int64) {
	d.e.s.KRaftMetadataOffset++
	d.e.faults.ResetCounts()
	start := time.Now()
	n := d.write(tb, d)
	elapsed := time.Since(start)
	d.ps.deleteAll(tb, admin, d.e.root, nil)
	return elapsed, n
}

func applyWrite(tb testing.TB, d *dualWrite) int64 {
	s, res, err := d.e.w.Apply(context.Background(), d.e.s, d.ps.ops()...)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	if err := migrationzk.OpErrors(res); err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	d.e.s = s
	return d.e.faults.Requests()
}

// multiWrite writes the batch's creates and checkpoint in one multi of the
// bare client (bareMulti): the floor Apply is held to.
func multiWrite(tb testing.TB, d *dualWrite) int64 {
	bareMulti(tb, d.e, d.ps.paths, d.ps.data, d.e.s)
	return d.e.faults.Requests()
}

func kafkaWrite(pipelined bool) func(tb testing.TB, d *dualWrite) int64 {
	return func(tb testing.TB, d *dualWrite) int64 {
		k := kafkaBatch{e: d.e, checkpoint: checkpoint(d.e.s), ps: d.ps, acl: worldACL()}
		if pipelined {
			d.e.s.MigrationZkVersion = k.pipelined(tb)
		} else {
			d.e.s.MigrationZkVersion = k.sequential(tb)
		}
		return d.e.faults.Requests()
	}
}

// BenchmarkDualWrite writes a dual-write batch of 1,000 partition-state
// znodes (ten topics of 100 partitions, three-replica ISR) and the
// checkpoint, four ways in turn within each iteration: Writer.Apply, the
// Kafka-shaped batch sent sequentially, the same pipelined with up to 32
// multis in flight, and, for the floor, the same creates and checkpoint in
// one multi of the bare client. Each writes under a root of its own; the
// znodes are deleted after each write, outside the timings. It fails if
// Apply takes more round trips than the batch's bytes need.
// apply/multi-paired-p50-ratio is the median over the iterations of
// Apply's time over the bare multi's in the same iteration.
func BenchmarkDualWrite(b *testing.B) {
	const n = 1000
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	variants := []*dualWrite{
		{name: "apply", write: applyWrite},
		{name: "kafka-seq", write: kafkaWrite(false)},
		{name: "kafka-pipe", write: kafkaWrite(true)},
		{name: "multi", write: multiWrite},
	}
	for _, v := range variants {
		v.e = newEnv(b, srv.Servers, admin, srv.Path("/"+v.name), nil)
		v.ps = newPartitions("topic", n)
		v.ps.createParents(b, admin, v.e.root)
	}
	bound := batchRequests(variants[0].e.root, variants[0].ps, checkpoint(variants[0].e.s), migrationzk.DefaultMaxRequestBytes)
	b.Run("partitions=1000", func(b *testing.B) {
		smp := newSamples(b.N, "apply", "kafka-seq", "kafka-pipe", "multi")
		var applyRequests int64
		for i := 0; i < b.N; i++ {
			for _, j := range order(i, len(variants)) {
				d, reqs := variants[j].run(b, admin)
				smp.add(j, d)
				if j == 0 {
					if reqs > int64(bound) {
						b.Fatalf("Apply took %d round trips, the batch needs %d", reqs, bound)
					}
					applyRequests = reqs
				}
			}
		}
		smp.report(b, [2]int{1, 0}, [2]int{2, 0})
		smp.reportPaired(b, [2]int{0, 3})
		b.ReportMetric(float64(applyRequests), "apply-requests")
		b.ReportMetric(float64(bound), "bound-requests")
	})
}
