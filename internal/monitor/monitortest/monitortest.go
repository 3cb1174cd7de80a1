// Package monitortest builds migrationzk and runs `migrationzk monitor` as
// a process for tests, as an operator runs it.
package monitortest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Build builds the migrationzk command of the package at pkg (a path such
// as ../../cmd/migrationzk) into dir and returns the binary's path.
func Build(pkg, dir string) (string, error) {
	bin := filepath.Join(dir, "migrationzk")
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return bin, nil
}

// Process is a running `migrationzk monitor`.
type Process struct {
	// Addr is the address it serves, host:port.
	Addr string
	Cmd  *exec.Cmd

	mu     sync.Mutex
	log    strings.Builder
	exited chan struct{}
	err    error
}

// servingLine is the log line that names the address served.
var servingLine = regexp.MustCompile(`msg="serving /metrics and /healthz" address=(\S+)`)

// Start runs bin with args, whose command is monitor, with env added to
// the environment, and waits until it serves; it is killed when the test
// ends unless it exited before, its log shown if the test failed.
func Start(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{Cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	p.Cmd.Env = append(os.Environ(), env...)
	stderr, err := p.Cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go p.read(stderr, found)
	t.Cleanup(func() {
		_ = p.Cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("monitor log:\n%s", p.Stderr())
		}
	})
	select {
	case p.Addr = <-found:
	case <-p.exited:
		t.Fatalf("monitor exited before serving: %v\n%s", p.err, p.Stderr())
	case <-time.After(time.Minute):
		t.Fatalf("monitor did not serve within a minute:\n%s", p.Stderr())
	}
	return p
}

// read keeps the log and reports the address served on found.
func (p *Process) read(stderr io.Reader, found chan<- string) {
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		p.mu.Lock()
		p.log.WriteString(sc.Text() + "\n")
		p.mu.Unlock()
		if g := servingLine.FindStringSubmatch(sc.Text()); g != nil {
			select {
			case found <- g[1]:
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, stderr)
	p.err = p.Cmd.Wait()
	close(p.exited)
}

// Stderr returns what the process logged so far.
func (p *Process) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Wait waits up to d for the process to exit and returns whether it did,
// and its error.
func (p *Process) Wait(d time.Duration) (exited bool, err error) {
	select {
	case <-p.exited:
		return true, p.err
	case <-time.After(d):
		return false, nil
	}
}
