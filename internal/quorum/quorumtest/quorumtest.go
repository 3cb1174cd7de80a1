// Package quorumtest builds and runs the DescribeQuorum stub
// (internal/quorum/quorumstub, a module of its own: see its go.mod) for
// tests. When the stub cannot be built (no Go 1.26, no module cache or
// proxy) the test is skipped with the reason, unless
// ZKWRITER_REQUIRE_KFAKE=1, which make test sets, makes it fail.
package quorumtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvRequire, when "1", turns a stub that cannot be built into a failure.
const EnvRequire = "ZKWRITER_REQUIRE_KFAKE"

// Environment variables through which Build hands the stub to Start.
const (
	envBinary = "QUORUMSTUB_BINARY"
	envError  = "QUORUMSTUB_BUILD_ERROR"
)

// stubDir is the stub module's directory, beside this package.
func stubDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "quorumstub")
}

// Build builds the stub into dir, once per test binary, from TestMain,
// and hands it to Start through the environment; when it cannot be
// built, Start skips or fails with the reason.
func Build(dir string) {
	path := filepath.Join(dir, "quorumstub")
	cmd := exec.Command("go", "build", "-o", path, ".")
	cmd.Dir = stubDir()
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Setenv(envError, fmt.Sprintf("build %s: %v\n%s", cmd.Dir, err, out))
		return
	}
	os.Setenv(envBinary, path)
}

// binary returns the stub's binary; it skips or fails t when Build could
// not build it.
func binary(t testing.TB) string {
	t.Helper()
	if path := os.Getenv(envBinary); path != "" {
		return path
	}
	why := os.Getenv(envError)
	if why == "" {
		why = "quorumtest.Build was not called from TestMain"
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("the DescribeQuorum stub: %s (%s=1)", why, EnvRequire)
	}
	t.Skipf("the DescribeQuorum stub cannot be built (it needs Go 1.26 and franz-go's kfake from the module proxy): %s", why)
	return ""
}

// Stub is a running stub.
type Stub struct {
	// Addrs are its nodes' addresses; with the default flags node 0
	// leads the quorum.
	Addrs []string
}

// Start runs the stub with args (see quorumstub's flags) until the test
// ends.
func Start(t testing.TB, args ...string) *Stub {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuilder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("quorumstub %v:\n%s", args, stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("quorumstub %v: %v\n%s", args, err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	var out struct {
		Addrs []string `json:"addrs"`
	}
	if err := json.Unmarshal([]byte(line), &out); err != nil || len(out.Addrs) == 0 {
		t.Fatalf("quorumstub printed %q: %v", line, err)
	}
	return &Stub{Addrs: out.Addrs}
}

// lockedBuilder is a strings.Builder safe for the writes of a process
// and a test's reads.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
