package main

import (
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/monitor/monitortest"
	"github.com/kraftmigration/zkwriter/internal/quorum/quorumtest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// get fetches path from the monitor m.
func get(t *testing.T, m *monitortest.Process, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + m.Addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, m.Stderr())
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestMonitorServesAndStops runs monitor as an operator would: it serves
// /metrics and /healthz on loopback, refuses bad flags, and on SIGTERM
// stops and exits 0.
// Fault: SIGTERM; bad flag values.
func TestMonitorServesAndStops(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "monitored")
	c.seedKafka(43, uniform("orders", 3, 50))
	c.kraftController(3000, 50)
	c.migration(checkpoint(1234, 3000, 50))

	for _, bad := range [][]string{{"--stall-after", "0s"}, {"--scan-rate", "-1"}, {"--listen", "nowhere"}, {"--min-poll", "-1s"}} {
		r := c.run(append([]string{"monitor"}, bad...)...)
		wantCode(t, r, exitError)
	}

	m := monitortest.Start(t, os.Getenv(binEnv), nil, "--zk", strings.Join(srv.Servers, ","), "--root", c.root, "monitor", "--listen", "127.0.0.1:0")
	if !strings.HasPrefix(m.Addr, "127.0.0.1:") {
		t.Fatalf("serves at %s", m.Addr)
	}
	code, body := get(t, m, "/metrics")
	if code != http.StatusOK || !strings.Contains(body, "migrationzk_checkpoint_offset 1234\n") ||
		!strings.Contains(body, "migrationzk_controller_id 3000\n") || !strings.Contains(body, "migrationzk_zookeeper_up 1\n") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if code, body = get(t, m, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if err := m.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	switch exited, err := m.Wait(10 * time.Second); {
	case !exited:
		t.Fatalf("still running 10s after SIGTERM:\n%s", m.Stderr())
	case err != nil:
		t.Fatalf("exit after SIGTERM: %v\n%s", err, m.Stderr())
	}
	if !strings.Contains(m.Stderr(), `msg=stopped`) {
		t.Fatalf("no graceful stop logged:\n%s", m.Stderr())
	}
}

// TestMonitorKRaft points monitor at a quorum (the DescribeQuorum stub):
// it serves the high watermark, the leader and the true lag beside the
// ZooKeeper series, and migrationzk_kraft_up 0 when the quorum does not
// answer, while the ZooKeeper series stay.
// Faults: a quorum whose controllers do not lead.
func TestMonitorKRaft(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "monitorkraft")
	c.seedKafka(43)
	c.kraftController(3000, 7)
	c.migration(checkpoint(100, 3000, 7))
	stub := quorumtest.Start(t, "-leader-node", "1", "-hw", "150")
	m := monitortest.Start(t, os.Getenv(binEnv), nil, "--zk", strings.Join(srv.Servers, ","), "--root", c.root, "monitor",
		"--listen", "127.0.0.1:0", "--bootstrap-controller", strings.Join(stub.Addrs, ","))
	_, body := get(t, m, "/metrics")
	for _, want := range []string{"migrationzk_kraft_up 1\n", "migrationzk_kraft_high_watermark 150\n", "migrationzk_kraft_leader_id 3000\n",
		"migrationzk_kraft_leader_epoch 7\n", "migrationzk_kraft_lag_records 49\n", "migrationzk_checkpoint_offset 100\n"} {
		if !strings.Contains(body, want) {
			t.Fatalf("/metrics lacks %q:\n%s", want, body)
		}
	}

	noLeader := quorumtest.Start(t, "-leader-node", "-1")
	m = monitortest.Start(t, os.Getenv(binEnv), nil, "--zk", strings.Join(srv.Servers, ","), "--root", c.root, "monitor",
		"--listen", "127.0.0.1:0", "--bootstrap-controller", strings.Join(noLeader.Addrs, ","))
	_, body = get(t, m, "/metrics")
	if !strings.Contains(body, "migrationzk_kraft_up 0\n") || strings.Contains(body, "migrationzk_kraft_high_watermark") ||
		strings.Contains(body, "migrationzk_kraft_lag_records") || !strings.Contains(body, "migrationzk_checkpoint_offset 100\n") {
		t.Fatalf("/metrics without a leader:\n%s", body)
	}
}
