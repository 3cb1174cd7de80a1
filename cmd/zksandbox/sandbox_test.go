//go:build unix

package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/zkserver"
)

// walkthroughStep is one line of the README's sandbox walkthrough.
type walkthroughStep struct {
	line string
	// args run migrationzk, with --zk given first; nil for a make line.
	args []string
	// make is the zksandbox command of a make line.
	make string
	code int
	want string
}

// stepComment is the comment of a migrationzk line: its exit code and a
// line of its output.
var stepComment = regexp.MustCompile(`^(.*\S)\s+# exit (\d): (.+)$`)

// walkthrough returns the steps of the README's sandbox walkthrough.
func walkthrough(t *testing.T) []walkthroughStep {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### A walkthrough on the sandbox\n")
	if !ok {
		t.Fatal("README.md has no sandbox walkthrough")
	}
	_, block, _ := strings.Cut(section, "```sh\n")
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("the walkthrough has no sh block")
	}
	var steps []walkthroughStep
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		steps = append(steps, parseStep(t, line))
	}
	return steps
}

// parseStep reads one line of the walkthrough.
func parseStep(t *testing.T, line string) walkthroughStep {
	cmd, _, _ := strings.Cut(line, "#")
	switch strings.TrimSpace(cmd) {
	case "make sandbox":
		return walkthroughStep{line: line, make: "start"}
	case "make sandbox-delta":
		return walkthroughStep{line: line, make: "delta"}
	case "make sandbox-stop":
		return walkthroughStep{line: line, make: "stop"}
	case "export ZK=127.0.0.1:<port>/kafka", "go install ./cmd/migrationzk":
		return walkthroughStep{line: line}
	}
	m := stepComment.FindStringSubmatch(line)
	if m == nil || !strings.HasPrefix(m[1], `migrationzk --zk "$ZK" `) {
		t.Fatalf("walkthrough line %q is neither a make target nor migrationzk with its exit code and output", line)
	}
	code, _ := strconv.Atoi(m[2])
	return walkthroughStep{line: line, args: strings.Fields(strings.TrimPrefix(m[1], `migrationzk --zk "$ZK" `)), code: code, want: m[3]}
}

// build builds the command in pkg into dir as name.
func build(t *testing.T, dir, pkg, name string) string {
	bin := filepath.Join(dir, name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// runIn runs bin with args in dir and returns its output and exit code.
func runIn(t *testing.T, dir, bin string, args ...string) (string, int) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s %q: %v", bin, args, err)
	}
	return out.String(), 0
}

// zkAddr is the --zk start prints.
var zkAddr = regexp.MustCompile(`export ZK=(\S+)`)

// TestWalkthrough runs the README's sandbox walkthrough as it stands:
// zksandbox start, each migrationzk line through the built binary (its
// exit code and output as the line's comment says), zksandbox delta and
// stop; then no sandbox is left: no directory, no server.
// Fault: none.
func TestWalkthrough(t *testing.T) {
	if _, err := zkserver.FindInstall(); err != nil && os.Getenv("ZKWRITER_REQUIRE_ZK") == "" {
		t.Skipf("no local ZooKeeper: %v", err)
	}
	bins, work := t.TempDir(), t.TempDir()
	sandboxBin, migrationzk := build(t, bins, ".", "zksandbox"), build(t, bins, "../migrationzk", "migrationzk")
	dir := filepath.Join(t.TempDir(), "sandbox")
	var zk string
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			runIn(t, work, sandboxBin, "stop", "-dir", dir)
		}
	})
	for _, step := range walkthrough(t) {
		switch {
		case step.make != "":
			out, code := runIn(t, work, sandboxBin, step.make, "-dir", dir)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s", step.line, code, out)
			}
			if step.make == "start" {
				m := zkAddr.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("start printed no --zk:\n%s", out)
				}
				zk = m[1]
			}
			stopped = step.make == "stop"
		case step.args != nil:
			out, code := runIn(t, work, migrationzk, append([]string{"--zk", zk}, step.args...)...)
			if code != step.code || !strings.Contains(out, step.want) {
				t.Fatalf("%s\nexit %d, output:\n%s", step.line, code, out)
			}
		}
	}
	if !stopped {
		t.Fatal("the walkthrough does not stop the sandbox")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sandbox directory is left after stop: %v", err)
	}
	server, _, _ := strings.Cut(zk, "/")
	if conn, err := net.DialTimeout("tcp", server, time.Second); err == nil {
		conn.Close()
		t.Fatalf("ZooKeeper still serves on %s after stop", server)
	}
}
