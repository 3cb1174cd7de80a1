package monitoring_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/monitor/monitortest"
	"github.com/kraftmigration/zkwriter/internal/quorum/quorumtest"
	"github.com/kraftmigration/zkwriter/internal/testkit/promtest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// binEnv names the migrationzk binary TestMain builds.
const binEnv = "MIGRATIONZK_TEST_BINARY"

// TestMain builds migrationzk once; the end-to-end tests run it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "monitoring-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin, err := monitortest.Build("../../cmd/migrationzk", dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv(binEnv, bin)
	quorumtest.Build(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Timings of the end-to-end test.
const (
	scrapeInterval = time.Second
	// stallAfter is monitor's --stall-after.
	stallAfter = 3 * time.Second
	// shortFor replaces every for: of the rules.
	shortFor = 3 * time.Second
	// measureSlack covers the test's own polling of the alerts API.
	measureSlack = 500 * time.Millisecond
)

// checkpointer rewrites /migration with a rising offset every 200 ms, as
// a KRaft controller in dual-write does, while it is not paused.
type checkpointer struct {
	conn *zk.Conn
	path string

	mu     sync.Mutex
	paused bool
	offset int64
	// mtime is the mtime of the last write that succeeded.
	mtime time.Time
}

func (c *checkpointer) run(ctx context.Context) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		c.mu.Lock()
		if !c.paused {
			c.offset++
			// Errors (ZooKeeper stopped) are retried at the next tick.
			if st, err := c.conn.Set(c.path, checkpointData(c.offset), -1); err == nil {
				c.mtime = time.UnixMilli(st.Mtime)
			}
		}
		c.mu.Unlock()
	}
}

// pause stops the writes and returns the mtime of the last one.
func (c *checkpointer) pause() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = true
	return c.mtime
}

func (c *checkpointer) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = false
}

func checkpointData(offset int64) []byte {
	return znode.Migration{KRaftMetadataOffset: offset, KRaftControllerID: 3000, KRaftMetadataEpoch: 50, KRaftControllerEpoch: 50}.Encode()
}

// seedCluster lays out a cluster in dual-write under srv's root: KRaft
// controller 3000 with epoch 50 in /controller, /controller_epoch 43, and
// a topic whose partitions carry epoch 50, above the 44 a rollback would
// elect under.
func seedCluster(t *testing.T, srv *zktest.Server, admin *zk.Conn) {
	t.Helper()
	acl := zk.WorldACL(zk.PermAll)
	create := func(p string, data []byte) *zk.CreateRequest {
		return &zk.CreateRequest{Path: srv.Path(p), Data: data, Acl: acl}
	}
	ops := []any{
		create("/brokers", nil), create(znode.TopicsPath, nil),
		create(znode.ControllerEpochPath, znode.EncodeControllerEpoch(43)),
		create(znode.ControllerPath, znode.Controller{Version: 2, BrokerID: 3000, Timestamp: 1, KRaftControllerEpoch: 50}.Encode()),
		create(znode.MigrationPath, checkpointData(0)),
		create(znode.TopicPath("orders"), nil), create(znode.TopicPartitionsPath("orders"), nil),
	}
	for p := int32(0); p < 2; p++ {
		ops = append(ops, create(fmt.Sprintf("%s/%d", znode.TopicPartitionsPath("orders"), p), nil),
			create(znode.PartitionStatePath("orders", p), znode.PartitionState{ControllerEpoch: 50, Leader: 1, ISR: []int32{1}}.Encode()))
	}
	if _, err := admin.Multi(ops...); err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// startPrometheus runs Prometheus scraping target every second, with a
// copy of rules.yml whose every for: is shortFor.
func startPrometheus(t *testing.T, target string) *promtest.Server {
	t.Helper()
	dir := t.TempDir()
	rules, err := os.ReadFile("rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	short := regexp.MustCompile(`(?m)^(\s+for:\s*)\S+\s*$`).ReplaceAll(rules, []byte("${1}"+shortFor.String()))
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), short, 0o644); err != nil {
		t.Fatal(err)
	}
	return promtest.Start(t, dir, fmt.Sprintf(`global:
  scrape_interval: %[1]v
  scrape_timeout: %[1]v
  evaluation_interval: %[1]v
rule_files: [rules.yml]
scrape_configs:
  - job_name: migrationzk
    static_configs:
      - targets: [%q]
`, scrapeInterval, target))
}

// alertState returns the state of alert name, "" when neither pending nor
// firing.
func alertState(ctx context.Context, t *testing.T, p *promtest.Server, name string) string {
	t.Helper()
	alerts, err := p.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if a.Labels["alertname"] == name {
			return a.State
		}
	}
	return ""
}

// waitFor polls cond every 100 ms until it holds or d passes, and returns
// when it first held.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// query evaluates expr and fails the test on an error.
func query(ctx context.Context, t *testing.T, p *promtest.Server, expr string) []promtest.Sample {
	t.Helper()
	samples, err := p.Query(ctx, expr)
	if err != nil {
		t.Fatal(err)
	}
	return samples
}

const stalledAlert = "MigrationCheckpointStalled"

// TestStallAlertOnPrometheus runs the rules on a real Prometheus scraping
// `migrationzk monitor` every second against a real ZooKeeper, each for:
// shortened to 3s and --stall-after 3s. A checkpoint that stops moving
// under a KRaft controller fires the stall alert within the for: plus two
// scrapes of the moment its age passes the threshold; it resolves once
// /migration moves; an outage of ZooKeeper neither resolves it nor leaves
// the ZooKeeper series in Prometheus; and every ZooKeeper panel query of
// the dashboard evaluates, with data.
// Faults: /migration's writes stopped (the stall); the ZooKeeper server
// stopped, then restarted.
func TestStallAlertOnPrometheus(t *testing.T) {
	promtest.Promtool(t, ".", "--version") // skip early without Prometheus
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	seedCluster(t, srv, admin)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp := &checkpointer{conn: srv.Connect(t), path: srv.Path(znode.MigrationPath)}
	go cp.run(ctx)

	m := monitortest.Start(t, os.Getenv(binEnv), nil, "--zk", strings.Join(srv.Servers, ","), "--root", srv.Root, "monitor", "--listen", "127.0.0.1:0",
		"--stall-after", stallAfter.String(), "--min-poll", "500ms", "--scan-interval", "2s")
	p := startPrometheus(t, m.Addr)
	waitFor(t, 30*time.Second, "the first scrapes and scan", func() bool {
		return len(query(ctx, t, p, `migrationzk_rollback_hazard_partitions == 2 and on() migrationzk_zookeeper_up == 1`)) == 1
	})

	// The stall.
	last := cp.pause()
	threshold := last.Add(stallAfter)
	bound := threshold.Add(shortFor + 2*scrapeInterval)
	fired := waitFor(t, time.Until(bound)+10*time.Second, "the stall alert", func() bool {
		return alertState(ctx, t, p, stalledAlert) == "firing"
	})
	t.Logf("stall alert firing %v after the age passed --stall-after (bound %v)", fired.Sub(threshold).Round(time.Millisecond), bound.Sub(threshold))
	if fired.After(bound.Add(measureSlack)) {
		t.Fatalf("the stall alert fired %v after the threshold, later than for: plus two scrapes (%v)", fired.Sub(threshold), bound.Sub(threshold))
	}

	// /migration moves again.
	cp.resume()
	waitFor(t, 3*scrapeInterval+measureSlack+2*time.Second, "the stall alert resolving", func() bool {
		return alertState(ctx, t, p, stalledAlert) == ""
	})

	// A stall, then ZooKeeper stops.
	cp.pause()
	waitFor(t, stallAfter+shortFor+10*time.Second, "the stall alert again", func() bool {
		return alertState(ctx, t, p, stalledAlert) == "firing"
	})
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	down := waitFor(t, 10*time.Second, "migrationzk_zookeeper_up 0", func() bool {
		return len(query(ctx, t, p, `migrationzk_zookeeper_up == 0`)) == 1
	})
	for time.Since(down) < 3*shortFor {
		if s := alertState(ctx, t, p, stalledAlert); s != "firing" {
			t.Fatalf("the stall alert is %q during the outage", s)
		}
		for _, name := range []string{"migrationzk_checkpoint_offset", "migrationzk_checkpoint_stalled", "migrationzk_controller_id", "migrationzk_rollback_hazard_partitions"} {
			if got := query(ctx, t, p, name); len(got) != 0 {
				t.Fatalf("%s still in Prometheus during the outage: %v", name, got)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	cp.resume()
	waitFor(t, 30*time.Second, "the series back and the alert resolved", func() bool {
		return len(query(ctx, t, p, `migrationzk_checkpoint_offset`)) == 1 && alertState(ctx, t, p, stalledAlert) == ""
	})
	// A scan after the restart, so that every panel has its data.
	waitFor(t, 30*time.Second, "a scan after the restart", func() bool {
		return len(query(ctx, t, p, `migrationzk_rollback_hazard_partitions`)) == 1
	})

	checkDashboard(ctx, t, p, false)
}

// TestDashboardKRaftPanels points monitor at a KRaft quorum (the
// DescribeQuorum stub: no Kafka runs here) and evaluates every panel query
// of the dashboard on a real Prometheus scraping it: the quorum's return
// data.
// Fault: none.
func TestDashboardKRaftPanels(t *testing.T) {
	promtest.Promtool(t, ".", "--version") // skip early without Prometheus
	stub := quorumtest.Start(t, "-leader-node", "0", "-hw", "5000")
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	seedCluster(t, srv, admin)
	m := monitortest.Start(t, os.Getenv(binEnv), nil, "--zk", strings.Join(srv.Servers, ","), "--root", srv.Root, "monitor", "--listen", "127.0.0.1:0",
		"--min-poll", "500ms", "--bootstrap-controller", strings.Join(stub.Addrs, ","))
	p := startPrometheus(t, m.Addr)
	ctx := context.Background()
	waitFor(t, 30*time.Second, "the quorum's series", func() bool {
		return len(query(ctx, t, p, `migrationzk_kraft_lag_records == 4999`)) == 1
	})
	checkDashboard(ctx, t, p, true)
}

// dashboardTarget is one query of a panel of dashboard.json.
type dashboardTarget struct {
	panel, expr string
}

// dashboardTargets returns every panel query of dashboard.json.
func dashboardTargets(t *testing.T) []dashboardTarget {
	t.Helper()
	data, err := os.ReadFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var out []dashboardTarget
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, dashboardTarget{panel: p.Title, expr: tg.Expr})
		}
	}
	if len(out) == 0 {
		t.Fatal("dashboard.json has no panel queries")
	}
	return out
}

// grafanaMacros are Grafana's variables as the dashboard's queries use
// them, with the values they take on a Prometheus scraping every second.
var grafanaMacros = strings.NewReplacer(
	"$__rate_interval", "1m",
	"$__interval", "15s",
	"$__range", "5m",
	"$instance", ".*",
)

// kraftQuery reports whether a dashboard query reads the quorum's series,
// which only a monitor with a quorum configured serves.
func kraftQuery(expr string) bool { return strings.Contains(expr, "migrationzk_kraft_") }

// checkDashboard evaluates every panel query of dashboard.json on p, its
// Grafana macros substituted: each must evaluate without error, and those
// of one kind (the quorum's with kraft, ZooKeeper's without) must return
// data.
func checkDashboard(ctx context.Context, t *testing.T, p *promtest.Server, kraft bool) {
	t.Helper()
	for _, tg := range dashboardTargets(t) {
		expr := grafanaMacros.Replace(tg.expr)
		if strings.Contains(expr, "$") {
			t.Errorf("panel %q: a macro left unsubstituted in %s", tg.panel, expr)
			continue
		}
		samples, err := p.Query(ctx, expr)
		switch {
		case err != nil:
			t.Errorf("panel %q: %v", tg.panel, err)
		case kraftQuery(tg.expr) == kraft && len(samples) == 0:
			t.Errorf("panel %q: %s returns no data", tg.panel, expr)
		}
	}
}
