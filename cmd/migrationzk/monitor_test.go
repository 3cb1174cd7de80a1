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
