package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// monitorProcess is a running `migrationzk monitor`.
type monitorProcess struct {
	cmd *exec.Cmd
	// addr is where it serves.
	addr string
	mu   sync.Mutex
	log  bytes.Buffer // its stderr
	done chan error
}

// servingLine is the log line that names the address served.
var servingLine = regexp.MustCompile(`msg="serving /metrics and /healthz" address=(\S+)`)

// startMonitor runs `migrationzk <args>`, whose command is monitor, and
// waits until it serves; the process is killed when the test ends unless
// it exited before.
func startMonitor(t *testing.T, env []string, args ...string) *monitorProcess {
	t.Helper()
	m := &monitorProcess{cmd: exec.Command(os.Getenv(binEnv), args...), done: make(chan error, 1)}
	m.cmd.Env = append(os.Environ(), env...)
	stderr, err := m.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			m.mu.Lock()
			m.log.WriteString(sc.Text() + "\n")
			m.mu.Unlock()
			if g := servingLine.FindStringSubmatch(sc.Text()); g != nil {
				found <- g[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		m.done <- m.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = m.cmd.Process.Kill()
		<-m.done
	})
	select {
	case m.addr = <-found:
	case err := <-m.done:
		m.done <- err
		t.Fatalf("monitor exited before serving: %v\n%s", err, m.stderr())
	case <-time.After(deadline):
		t.Fatalf("monitor did not serve within %v:\n%s", deadline, m.stderr())
	}
	return m
}

func (m *monitorProcess) stderr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.log.String()
}

// get fetches path from the monitor.
func (m *monitorProcess) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + m.addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, m.stderr())
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

	m := startMonitor(t, nil, "--zk", strings.Join(srv.Servers, ","), "--root", c.root, "monitor", "--listen", "127.0.0.1:0")
	if !strings.HasPrefix(m.addr, "127.0.0.1:") {
		t.Fatalf("serves at %s", m.addr)
	}
	code, body := m.get(t, "/metrics")
	if code != http.StatusOK || !strings.Contains(body, "migrationzk_checkpoint_offset 1234\n") ||
		!strings.Contains(body, "migrationzk_controller_id 3000\n") || !strings.Contains(body, "migrationzk_zookeeper_up 1\n") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if code, body = m.get(t, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-m.done:
		m.done <- err
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, m.stderr())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10s after SIGTERM:\n%s", m.stderr())
	}
	if !strings.Contains(m.stderr(), `msg=stopped`) {
		t.Fatalf("no graceful stop logged:\n%s", m.stderr())
	}
}
