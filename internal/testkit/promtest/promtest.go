// Package promtest runs Debian's Prometheus and promtool for the tests of
// the monitoring examples: promtool checks and unit-tests rules, and a
// real Prometheus, started on loopback with a configuration of the test's
// own, scrapes and evaluates rules while the test asks its HTTP API.
//
// When prometheus or promtool is not on PATH the test is skipped, unless
// ZKWRITER_REQUIRE_PROMETHEUS=1, which makes it fail instead: make test
// installs Debian's prometheus package (scripts/prepare-prometheus.sh) and
// sets it.
package promtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvRequire, when "1", turns a missing prometheus or promtool into a
// failure.
const EnvRequire = "ZKWRITER_REQUIRE_PROMETHEUS"

const howTo = "install Prometheus (as root on Debian: apt-get install prometheus, or make prometheus)"

// lookPath returns the path of program, skipping or failing t without it.
func lookPath(t testing.TB, program string) string {
	t.Helper()
	path, err := exec.LookPath(program)
	if err == nil {
		return path
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s not found (%v), and %s=1: %s", program, err, EnvRequire, howTo)
	}
	t.Skipf("%s not found: %s, or run make test", program, howTo)
	return ""
}

// Promtool runs promtool with args in dir and returns its combined
// output; a non-zero exit fails t with that output.
func Promtool(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(lookPath(t, "promtool"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Server is a Prometheus run for one test.
type Server struct {
	// URL is the base URL of its HTTP API, http://127.0.0.1:port.
	URL string
	dir string
	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
}

// Start runs Prometheus with the configuration config (YAML, which may
// name files written beside it in dir) on a free loopback port, its data
// in a directory of its own, and waits until it is ready. It is stopped
// when the test ends.
func Start(t testing.TB, dir, config string) *Server {
	t.Helper()
	bin := lookPath(t, "prometheus")
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: "http://" + port, dir: dir}
	s.cmd = exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+port, "--log.level=warn")
	s.cmd.Stdout, s.cmd.Stderr = &lockedWriter{s}, &lockedWriter{s}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("prometheus log:\n%s", s.Log())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-done:
			t.Fatalf("prometheus exited:\n%s", s.Log())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready within 30s:\n%s", s.Log())
		}
	}
}

// freePort returns a loopback address whose port was free a moment ago.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

type lockedWriter struct{ s *Server }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.log.Write(p)
}

// Log returns what Prometheus logged so far.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Sample is one series of an instant query's result.
type Sample struct {
	Metric map[string]string `json:"metric"`
	// Value is the sample's [time, "value"].
	Value [2]any `json:"value"`
}

// Float returns the sample's value.
func (s Sample) Float() float64 {
	var f float64
	str, _ := s.Value[1].(string)
	_, _ = fmt.Sscan(str, &f)
	return f
}

// Query evaluates expr now and returns its samples, or the error
// Prometheus gave.
func (s *Server) Query(ctx context.Context, expr string) ([]Sample, error) {
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := s.get(ctx, "/api/v1/query?query="+url.QueryEscape(expr), &data); err != nil {
		return nil, fmt.Errorf("query %q: %w", expr, err)
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %q: a %s, not a vector", expr, data.ResultType)
	}
	var samples []Sample
	if err := json.Unmarshal(data.Result, &samples); err != nil {
		return nil, fmt.Errorf("query %q: %w", expr, err)
	}
	return samples, nil
}

// Alert is one alert of the alerts API.
type Alert struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"` // pending or firing
	ActiveAt time.Time         `json:"activeAt"`
	Value    string            `json:"value"`
}

// Alerts returns the pending and firing alerts.
func (s *Server) Alerts(ctx context.Context) ([]Alert, error) {
	var data struct {
		Alerts []Alert `json:"alerts"`
	}
	if err := s.get(ctx, "/api/v1/alerts", &data); err != nil {
		return nil, err
	}
	return data.Alerts, nil
}

// get fetches an API path and decodes its data into v.
func (s *Server) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("%s: %s: %w", resp.Status, body, err)
	}
	if env.Status != "success" {
		return fmt.Errorf("%s: %s", resp.Status, env.Error)
	}
	return json.Unmarshal(env.Data, v)
}
