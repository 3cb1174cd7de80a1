package zkmetrics_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkmetrics"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// gauge returns the value of the unlabelled gauge name from reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// counter returns the value of counter name with label outcome (or no
// label when outcome is "").
func counter(t *testing.T, reg *prometheus.Registry, name, outcome string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if outcome == "" || (len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == outcome) {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no metric %s{outcome=%q}", name, outcome)
	return 0
}

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestLagGrowsWhileBlocked shows zk_write_behind_lag telling the truth: it
// grows with the committed offset while checkpoints cannot be written, and
// returns to zero once one is.
//
// As the Writer asks after ErrOutcomeUnknown, the caller retries the same
// checkpoint until it is settled: go-zookeeper queues a request sent while
// disconnected and sends it once connected again, so an abandoned write
// may still land after the restart.
//
// Fault: the ZooKeeper server is stopped (writes fail with short
// contexts), then restarted.
func TestLagGrowsWhileBlocked(t *testing.T) {
	srv := zktest.Start(t)
	conn := srv.Connect(t)
	w := must.Get(migrationzk.New(conn, migrationzk.WithRoot(srv.Root)))
	var committed atomic.Int64
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(must.Get(zkmetrics.NewCollector(w, committed.Load)))

	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch, s.KRaftMetadataOffset = 3000, 5, 5, 100
	committed.Store(100)
	s, _, err := w.GetOrCreate(testContext(t, time.Minute), s)
	if err != nil {
		t.Fatal(err)
	}
	if lag := gauge(t, reg, zkmetrics.LagMetric); lag != 0 {
		t.Fatalf("lag %v after the first checkpoint", lag)
	}

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	pending := s
	pending.KRaftMetadataOffset = 110
	for i := 1; i <= 3; i++ {
		committed.Add(10) // the KRaft controller commits records meanwhile
		if _, err := w.Update(testContext(t, 300*time.Millisecond), pending); err == nil {
			t.Fatal("a checkpoint was written while the server was down")
		}
		if lag := gauge(t, reg, zkmetrics.LagMetric); lag != float64(10*i) {
			t.Fatalf("write %d while blocked: lag %v, want %d", i, lag, 10*i)
		}
	}
	if n := counter(t, reg, "zkwriter_writes_total", "error"); n != 3 {
		t.Fatalf("writes_total{outcome=error} = %v, want 3", n)
	}
	if c := gauge(t, reg, "zkwriter_confirmed_offset"); c != 100 {
		t.Fatalf("confirmed offset %v while blocked, want 100", c)
	}

	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	s, err = w.Update(testContext(t, time.Minute), pending)
	if err != nil {
		t.Fatalf("pending checkpoint after the restart: %v", err)
	}
	if lag := gauge(t, reg, zkmetrics.LagMetric); lag != 20 {
		t.Fatalf("lag %v with offset 110 confirmed and 130 committed, want 20", lag)
	}
	s.KRaftMetadataOffset = committed.Load()
	if _, err := w.Update(testContext(t, time.Minute), s); err != nil {
		t.Fatalf("checkpoint after the restart: %v", err)
	}
	if lag := gauge(t, reg, zkmetrics.LagMetric); lag != 0 {
		t.Fatalf("lag %v after recovery, want 0", lag)
	}
	if c := gauge(t, reg, "zkwriter_confirmed_offset"); c != 130 {
		t.Fatalf("confirmed offset %v, want 130", c)
	}
}

// TestMetricsAfterLostAck checks every metric after a checkpoint whose
// acknowledgement was lost and recovered.
// Fault: the reply to the /migration setData is dropped after the server
// applied it.
func TestMetricsAfterLostAck(t *testing.T) {
	srv := zktest.Start(t)
	faults := zktest.NewFaultDialer(t)
	conn := srv.Connect(t, faults.Option())
	w := must.Get(migrationzk.New(conn, migrationzk.WithRoot(srv.Root)))
	ctx := testContext(t, time.Minute)
	s, _, err := w.GetOrCreate(ctx, migrationzk.InitialState())
	if err != nil {
		t.Fatal(err)
	}
	faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: srv.Path(znode.MigrationPath)})
	s.KRaftMetadataOffset = 7
	if s, err = w.Update(ctx, s); err != nil || !s.Recovered {
		t.Fatalf("Update: recovered %v, %v", s.Recovered, err)
	}

	c := must.Get(zkmetrics.NewCollector(w, func() int64 { return 9 }, zkmetrics.WithConstLabels(prometheus.Labels{"cluster": "orders"})))
	want := `
# HELP zk_write_behind_lag Committed KRaft metadata offset minus the offset of the last checkpoint confirmed in ZooKeeper, not below 0. It grows while writes are stuck.
# TYPE zk_write_behind_lag gauge
zk_write_behind_lag{cluster="orders"} 2
# HELP zkwriter_confirmed_offset KRaft metadata offset of the last /migration checkpoint confirmed in ZooKeeper, -1 before the first.
# TYPE zkwriter_confirmed_offset gauge
zkwriter_confirmed_offset{cluster="orders"} 7
# HELP zkwriter_lost_acks_recovered_total Write requests whose acknowledgement was lost but which a reread proved had landed.
# TYPE zkwriter_lost_acks_recovered_total counter
zkwriter_lost_acks_recovered_total{cluster="orders"} 1
# HELP zkwriter_retired 1 once the Writer was fenced by another controller and writes nothing more, else 0.
# TYPE zkwriter_retired gauge
zkwriter_retired{cluster="orders"} 0
# HELP zkwriter_write_attempts_total Write requests sent to ZooKeeper.
# TYPE zkwriter_write_attempts_total counter
zkwriter_write_attempts_total{cluster="orders"} 3
# HELP zkwriter_write_retries_total Write requests sent again within a call, after a lost connection or a transaction that lost an op.
# TYPE zkwriter_write_retries_total counter
zkwriter_write_retries_total{cluster="orders"} 1
# HELP zkwriter_writes_total Write calls by outcome: ok, recovered (acknowledgement lost, landed per the reread), conflict, fenced, error.
# TYPE zkwriter_writes_total counter
zkwriter_writes_total{cluster="orders",outcome="conflict"} 0
zkwriter_writes_total{cluster="orders",outcome="error"} 0
zkwriter_writes_total{cluster="orders",outcome="fenced"} 0
zkwriter_writes_total{cluster="orders",outcome="ok"} 1
zkwriter_writes_total{cluster="orders",outcome="recovered"} 1
`
	names := []string{"zk_write_behind_lag", "zkwriter_confirmed_offset", "zkwriter_lost_acks_recovered_total", "zkwriter_retired",
		"zkwriter_write_attempts_total", "zkwriter_write_retries_total", "zkwriter_writes_total"}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c); n != 13 {
		t.Fatalf("%d metrics, want 13", n)
	}
	if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "zkwriter_write_duration_seconds" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != 2 || h.GetSampleSum() <= 0 || len(h.GetBucket()) != len(w.Stats().Latency.Bounds) {
			t.Fatalf("histogram: %v", h)
		}
		return
	}
	t.Fatal("no zkwriter_write_duration_seconds")
}

// TestLag checks the clamp of the lag.
// Fault: none.
func TestLag(t *testing.T) {
	for _, tc := range []struct{ committed, confirmed, want int64 }{
		{100, 100, 0}, {130, 100, 30}, {90, 100, 0}, {-1, -1, 0}, {5, -1, 6},
	} {
		if got := zkmetrics.Lag(tc.committed, tc.confirmed); got != tc.want {
			t.Errorf("Lag(%d, %d) = %d, want %d", tc.committed, tc.confirmed, got, tc.want)
		}
	}
}

// TestNoLagWithoutCommitted checks that a nil committed leaves the lag
// gauge out, and WithNamespace renames the rest.
// Fault: none.
func TestNoLagWithoutCommitted(t *testing.T) {
	w := must.Get(migrationzk.New(noConn{}))
	c := must.Get(zkmetrics.NewCollector(w, nil, zkmetrics.WithNamespace("kafka_migration")))
	if n := testutil.CollectAndCount(c, zkmetrics.LagMetric); n != 0 {
		t.Fatalf("%d lag metrics without committed", n)
	}
	if n := testutil.CollectAndCount(c, "kafka_migration_confirmed_offset"); n != 1 {
		t.Fatalf("%d kafka_migration_confirmed_offset metrics", n)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	if v := gauge(t, reg, "kafka_migration_confirmed_offset"); v != -1 {
		t.Fatalf("confirmed offset %v before any checkpoint, want -1", v)
	}
}

// Fault: none. A nil Writer or a nil option fails NewCollector with an
// error matching migrationzk.ErrInvalidArgument, and no Collector.
func TestNewCollectorRefusesNil(t *testing.T) {
	w := must.Get(migrationzk.New(noConn{}))
	for name, call := range map[string]func() (*zkmetrics.Collector, error){
		"nil Writer": func() (*zkmetrics.Collector, error) { return zkmetrics.NewCollector(nil, nil) },
		"nil option": func() (*zkmetrics.Collector, error) {
			return zkmetrics.NewCollector(w, nil, zkmetrics.WithNamespace("x"), nil)
		},
	} {
		if c, err := call(); c != nil || !errors.Is(err, migrationzk.ErrInvalidArgument) {
			t.Errorf("%s: %v, %v; want no Collector and ErrInvalidArgument", name, c, err)
		}
	}
}
