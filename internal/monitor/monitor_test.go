package monitor_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kraftmigration/zkwriter/internal/monitor"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// cluster is a cluster's control znodes and partition states under a
// server's root.
type cluster struct {
	t     *testing.T
	srv   *zktest.Server
	admin *zk.Conn
}

func newCluster(t *testing.T) *cluster {
	srv := zktest.Start(t)
	c := &cluster{t: t, srv: srv, admin: srv.Connect(t)}
	for _, p := range []string{"/brokers", znode.TopicsPath} {
		c.create(p, nil, 0)
	}
	c.create(znode.ControllerEpochPath, znode.EncodeControllerEpoch(43), 0)
	return c
}

func (c *cluster) create(p string, data []byte, flags int32) {
	c.t.Helper()
	if _, err := c.admin.Create(c.srv.Path(p), data, flags, zk.WorldACL(zk.PermAll)); err != nil {
		c.t.Fatalf("create %s: %v", p, err)
	}
}

func (c *cluster) set(p string, data []byte) {
	c.t.Helper()
	if _, err := c.admin.Set(c.srv.Path(p), data, -1); err != nil {
		c.t.Fatalf("set %s: %v", p, err)
	}
}

// kraft makes KRaft controller id with epoch hold /controller, persistent.
func (c *cluster) kraft(id, epoch int32) {
	c.create(znode.ControllerPath, znode.Controller{Version: 2, BrokerID: id, Timestamp: 1, KRaftControllerEpoch: epoch}.Encode(), 0)
}

func checkpoint(offset int64, id, epoch int32) []byte {
	return znode.Migration{KRaftMetadataOffset: offset, KRaftControllerID: id, KRaftMetadataEpoch: epoch, KRaftControllerEpoch: epoch}.Encode()
}

// topic creates a topic whose partitions' states carry stamps.
func (c *cluster) topic(name string, stamps ...int32) {
	c.create(znode.TopicPath(name), nil, 0)
	c.create(znode.TopicPartitionsPath(name), nil, 0)
	for p, e := range stamps {
		c.create(fmt.Sprintf("%s/%d", znode.TopicPartitionsPath(name), p), nil, 0)
		c.create(znode.PartitionStatePath(name, int32(p)), znode.PartitionState{ControllerEpoch: e, Leader: 1, ISR: []int32{1}}.Encode(), 0)
	}
}

// exporter serves an Exporter of the cluster's ZooKeeper over HTTP, its
// client dialing through faults when given.
func (c *cluster) exporter(cfg monitor.Config, faults *zktest.FaultDialer) (*monitor.Exporter, *httptest.Server) {
	c.t.Helper()
	var opts []func(*zk.Conn)
	if faults != nil {
		opts = append(opts, faults.Option())
	}
	cfg.Conn, cfg.Root = c.srv.Connect(c.t, opts...), c.srv.Root
	if cfg.StallAfter == 0 {
		cfg.StallAfter = 30 * time.Second
	}
	if cfg.PollTimeout == 0 {
		cfg.PollTimeout = 5 * time.Second
	}
	e := must.Get(monitor.New(cfg))
	hs := httptest.NewServer(e.Handler())
	c.t.Cleanup(hs.Close)
	return e, hs
}

// scrape gets /metrics from hs and parses it.
func scrape(t *testing.T, hs *httptest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// value returns the value of the unlabelled series name, and whether it
// was served.
func value(families map[string]*dto.MetricFamily, name string) (float64, bool) {
	f, ok := families[monitor.Namespace+"_"+name]
	if !ok || len(f.GetMetric()) != 1 {
		return 0, false
	}
	m := f.GetMetric()[0]
	if len(m.GetLabel()) != 0 {
		return 0, false
	}
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), true
	case m.Counter != nil:
		return m.GetCounter().GetValue(), true
	}
	return 0, false
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// want fails unless each series is served with its value.
func want(t *testing.T, families map[string]*dto.MetricFamily, values map[string]float64) {
	t.Helper()
	for name, v := range values {
		got, ok := value(families, name)
		if !ok || got != v {
			t.Errorf("%s = %v (served %v), want %v", name, got, ok, v)
		}
	}
}

// TestExporterSeries serves every series of a cluster in dual-write: the
// checkpoint, the controller and its identity against the checkpoint's,
// /controller_epoch, and the rollback hazard the scan counts.
// Faults: partitions stamped above the election epoch; a KRaft controller
// that /migration does not name.
func TestExporterSeries(t *testing.T) {
	c := newCluster(t)
	c.kraft(3000, 50)
	c.create(znode.MigrationPath, checkpoint(1234, 3000, 50), 0)
	c.topic("orders", 50, 44, 50)
	c.topic("payments", 12, 45)
	e, hs := c.exporter(monitor.Config{ScanInterval: time.Hour}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)

	deadline := time.Now().Add(time.Minute)
	families := scrape(t, hs)
	for {
		if _, ok := value(families, "rollback_hazard_partitions"); ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
		families = scrape(t, hs)
	}
	want(t, families, map[string]float64{
		"zookeeper_up": 1, "checkpoint_present": 1, "checkpoint_offset": 1234, "checkpoint_metadata_epoch": 50,
		"checkpoint_controller_id": 3000, "checkpoint_controller_epoch": 50, "checkpoint_znode_version": 0, "checkpoint_stalled": 0,
		"controller_present": 1, "controller_kraft": 1, "controller_ephemeral": 0, "controller_id": 3000, "controller_kraft_epoch": 50,
		"controller_identity_matches_checkpoint": 1, "controller_epoch": 43, "stall_after_seconds": 30,
		// The next ZooKeeper-mode controller gets 44: 50, 50 and 45 are above.
		"rollback_hazard_partitions": 3, "rollback_election_epoch": 44, "partition_controller_epoch_max": 50,
		"scan_partitions": 5, "scan_undecodable_partitions": 0, "scans_total": 1, "scan_errors_total": 0,
	})
	if age, ok := value(families, "checkpoint_age_seconds"); !ok || age < 0 || age > 30 {
		t.Errorf("checkpoint_age_seconds %v (served %v)", age, ok)
	}
	for _, name := range []string{"zookeeper_last_success_timestamp_seconds", "checkpoint_modified_timestamp_seconds", "scan_last_success_timestamp_seconds"} {
		if v, ok := value(families, name); !ok || v < float64(time.Now().Add(-time.Hour).Unix()) {
			t.Errorf("%s = %v (served %v)", name, v, ok)
		}
	}
	if _, ok := families["migrationzk_kraft_up"]; ok {
		t.Error("KRaft series without a quorum")
	}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != 0 {
				t.Errorf("%s has labels %v", name, m.GetLabel())
			}
		}
	}

	// A new KRaft controller that has not yet written /migration.
	c.set(znode.ControllerPath, znode.Controller{Version: 2, BrokerID: 3001, Timestamp: 2, KRaftControllerEpoch: 51}.Encode())
	want(t, scrape(t, hs), map[string]float64{"controller_identity_matches_checkpoint": 0, "controller_id": 3001})
}

// TestStalledGauge flips migrationzk_checkpoint_stalled as the checkpoint
// ages past StallAfter under a KRaft controller and back when it is
// written, and never under a ZooKeeper-mode controller or during the
// initial load.
// Fault: /migration not written for longer than StallAfter.
func TestStalledGauge(t *testing.T) {
	c := newCluster(t)
	c.kraft(3000, 50)
	c.create(znode.MigrationPath, checkpoint(1, 3000, 50), 0)
	_, hs := c.exporter(monitor.Config{StallAfter: 500 * time.Millisecond}, nil)
	// The gauge follows the age the same scrape serves: on a loaded
	// machine a scrape right after a write may come later than 500 ms.
	agrees := func(families map[string]*dto.MetricFamily) {
		t.Helper()
		age, _ := value(families, "checkpoint_age_seconds")
		want(t, families, map[string]float64{"checkpoint_stalled": bool01(age > 0.5)})
	}
	c.set(znode.MigrationPath, checkpoint(1, 3000, 50))
	agrees(scrape(t, hs))
	time.Sleep(700 * time.Millisecond)
	want(t, scrape(t, hs), map[string]float64{"checkpoint_stalled": 1})
	c.set(znode.MigrationPath, checkpoint(2, 3000, 50))
	families := scrape(t, hs)
	agrees(families)
	want(t, families, map[string]float64{"checkpoint_offset": 2, "checkpoint_znode_version": 2})

	c.set(znode.MigrationPath, checkpoint(-1, 3000, 50))
	time.Sleep(700 * time.Millisecond)
	want(t, scrape(t, hs), map[string]float64{"checkpoint_stalled": 0, "checkpoint_offset": -1})

	if err := c.admin.Delete(c.srv.Path(znode.ControllerPath), -1); err != nil {
		t.Fatal(err)
	}
	c.create(znode.ControllerPath, znode.Controller{Version: 2, BrokerID: 1, Timestamp: 3, KRaftControllerEpoch: -1}.Encode(), zk.FlagEphemeral)
	c.set(znode.MigrationPath, checkpoint(3, 3000, 50))
	time.Sleep(700 * time.Millisecond)
	families = scrape(t, hs)
	want(t, families, map[string]float64{"checkpoint_stalled": 0, "controller_kraft": 0, "controller_ephemeral": 1, "controller_kraft_epoch": -1})
	if _, ok := value(families, "controller_identity_matches_checkpoint"); ok {
		t.Error("an identity match served for a ZooKeeper-mode controller")
	}
}

// TestMinPoll shares one read among scrapes closer together than
// MinPoll, and reads each control znode once per scrape otherwise, with
// no sync.
// Fault: none; the requests on the wire are counted.
func TestMinPoll(t *testing.T) {
	c := newCluster(t)
	c.kraft(3000, 50)
	c.create(znode.MigrationPath, checkpoint(1, 3000, 50), 0)
	for _, tc := range []struct {
		minPoll time.Duration
		gets    int64
	}{{time.Hour, 3}, {0, 15}} {
		faults := zktest.NewFaultDialer(t)
		_, hs := c.exporter(monitor.Config{MinPoll: tc.minPoll}, faults)
		faults.ResetCounts()
		for i := 0; i < 5; i++ {
			want(t, scrape(t, hs), map[string]float64{"checkpoint_offset": 1})
		}
		counts := faults.Counts()
		if counts[zktest.OpGetData] != tc.gets || counts[zktest.OpSync] != 0 || faults.Requests()-counts[zktest.OpPing] != tc.gets {
			t.Errorf("min poll %v: 5 scrapes sent %v, want %d reads", tc.minPoll, counts, tc.gets)
		}
	}
}

// TestOutage stops ZooKeeper: scrapes answer at once with
// migrationzk_zookeeper_up 0 and the time of the last read that
// succeeded, and none of the series read from ZooKeeper; /healthz still
// answers 200. Once ZooKeeper is back the series return.
// Fault: the ZooKeeper server stopped, then restarted.
func TestOutage(t *testing.T) {
	c := newCluster(t)
	c.kraft(3000, 50)
	c.create(znode.MigrationPath, checkpoint(7, 3000, 50), 0)
	_, hs := c.exporter(monitor.Config{}, nil)
	before := scrape(t, hs)
	want(t, before, map[string]float64{"zookeeper_up": 1, "checkpoint_offset": 7})
	lastOK, _ := value(before, "zookeeper_last_success_timestamp_seconds")

	if err := c.srv.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	during := scrape(t, hs)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a scrape during the outage took %v", d)
	}
	want(t, during, map[string]float64{"zookeeper_up": 0, "zookeeper_last_success_timestamp_seconds": lastOK, "poll_errors_total": 1})
	for name := range during {
		switch name {
		case "migrationzk_zookeeper_up", "migrationzk_zookeeper_last_success_timestamp_seconds", "migrationzk_stall_after_seconds",
			"migrationzk_polls_total", "migrationzk_poll_errors_total", "migrationzk_scans_total", "migrationzk_scan_errors_total":
		default:
			t.Errorf("%s served during the outage", name)
		}
	}
	resp, err := http.Get(hs.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz during the outage: %v %v", resp, err)
	}
	resp.Body.Close()

	if err := c.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		after := scrape(t, hs)
		if v, _ := value(after, "zookeeper_up"); v == 1 {
			want(t, after, map[string]float64{"checkpoint_offset": 7, "controller_id": 3000})
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ZooKeeper's series did not return")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLostReadFailsThePoll fails the scrape whose read of /migration was
// lost with its connection, rather than sending it again: the next
// scrape reads again.
// Fault: the reply to the read of /migration dropped, the connection cut.
func TestLostReadFailsThePoll(t *testing.T) {
	c := newCluster(t)
	c.kraft(3000, 50)
	c.create(znode.MigrationPath, checkpoint(7, 3000, 50), 0)
	faults := zktest.NewFaultDialer(t)
	_, hs := c.exporter(monitor.Config{}, faults)
	faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpGetData, Path: c.srv.Path(znode.MigrationPath)})
	faults.ResetCounts()
	want(t, scrape(t, hs), map[string]float64{"zookeeper_up": 0, "poll_errors_total": 1})
	if n := faults.Count(zktest.OpGetData); n != 3 {
		t.Fatalf("the failed poll sent %d reads, want 3, none sent again", n)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if v, _ := value(scrape(t, hs), "zookeeper_up"); v == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the poll did not recover")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTextMatchesCollector serves the same metrics, names, help and types
// through the text /metrics writes and through the prometheus.Collector,
// and they pass client_golang's lint of Prometheus's naming conventions.
// Fault: none.
func TestTextMatchesCollector(t *testing.T) {
	c := newCluster(t)
	c.kraft(3000, 50)
	c.create(znode.MigrationPath, checkpoint(5, 3000, 50), 0)
	c.topic("orders", 50)
	e, hs := c.exporter(monitor.Config{MinPoll: time.Hour, ScanInterval: time.Hour}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	var text map[string]*dto.MetricFamily
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if text = scrape(t, hs); text["migrationzk_rollback_hazard_partitions"] != nil || time.Now().After(deadline) {
			break
		}
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	gathered, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(gathered) != len(text) {
		t.Errorf("the collector serves %d metrics, the text %d", len(gathered), len(text))
	}
	for _, g := range gathered {
		f, ok := text[g.GetName()]
		switch {
		case !ok:
			t.Errorf("%s: not in the text", g.GetName())
		case f.GetHelp() != g.GetHelp() || f.GetType() != g.GetType():
			t.Errorf("%s: help %q type %v in the text, %q %v from the collector", g.GetName(), f.GetHelp(), f.GetType(), g.GetHelp(), g.GetType())
		default:
			tv, _ := value(text, strings.TrimPrefix(g.GetName(), monitor.Namespace+"_"))
			gv := g.GetMetric()[0].GetGauge().GetValue() + g.GetMetric()[0].GetCounter().GetValue()
			if tv != gv && g.GetName() != "migrationzk_checkpoint_age_seconds" {
				t.Errorf("%s: %v in the text, %v from the collector", g.GetName(), tv, gv)
			}
		}
	}
	problems, err := testutil.CollectAndLint(e)
	if err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
}
