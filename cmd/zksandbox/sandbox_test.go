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
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// walkthroughStep is one line of the operators' guide's sandbox walkthrough.
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

// walkthrough returns the steps of the sandbox walkthrough of the
// operators' guide, docs/operators.md.
func walkthrough(t *testing.T) []walkthroughStep {
	guide, err := os.ReadFile("../../docs/operators.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(guide), "## A walkthrough on the sandbox\n")
	if !ok {
		t.Fatal("docs/operators.md has no sandbox walkthrough")
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
	case "export ZK=127.0.0.1:<port>/kafka", "export KRAFT=<sandbox dir>/kraft", "go install ./cmd/migrationzk":
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
	return runEnv(t, nil, dir, bin, args...)
}

// runEnv runs bin with args in dir, with env added to the environment,
// and returns its output and exit code.
func runEnv(t *testing.T, env []string, dir, bin string, args ...string) (string, int) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
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

// zkAddr is the --zk start prints, kraftDir the KRaft metadata directory.
var (
	zkAddr   = regexp.MustCompile(`export ZK=(\S+)`)
	kraftDir = regexp.MustCompile(`export KRAFT=(\S+)`)
)

// kraftArg is the walkthrough's argument naming the sandbox's KRaft
// metadata directory, which start prints.
const kraftArg = `"$KRAFT"`

// TestWalkthrough runs the operators' guide's sandbox walkthrough as it
// stands: zksandbox start, each migrationzk line through the built binary
// (its exit code and output as the line's comment says; "$KRAFT" the
// KRaft metadata directory start prints), zksandbox delta and stop; then
// no sandbox is left: no directory, no server, no chroot. It
// runs on a server the sandbox starts itself, and on servers named by
// ZK_SERVERS, where the outputs name the sandbox's chroot before /kafka.
// Fault: none.
func TestWalkthrough(t *testing.T) {
	bins := t.TempDir()
	sandboxBin, migrationzk := build(t, bins, ".", "zksandbox"), build(t, bins, "../migrationzk", "migrationzk")
	t.Run("local", func(t *testing.T) {
		if _, err := zkserver.FindInstall(); err != nil && os.Getenv("ZKWRITER_REQUIRE_ZK") == "" {
			t.Skipf("no local ZooKeeper: %v", err)
		}
		zk := walk(t, []string{zktest.EnvServers + "="}, sandboxBin, migrationzk)
		server, _, _ := strings.Cut(zk, "/")
		if conn, err := net.DialTimeout("tcp", server, time.Second); err == nil {
			conn.Close()
			t.Fatalf("ZooKeeper still serves on %s after stop", server)
		}
	})
	t.Run("zk-servers", func(t *testing.T) {
		srv := zktest.Start(t)
		admin := srv.Connect(t)
		zk := walk(t, []string{zktest.EnvServers + "=" + strings.Join(srv.Servers, ",")}, sandboxBin, migrationzk)
		chroot := sandboxChroot(t, zk)
		if ok, _, err := admin.Exists(chroot); err != nil || ok {
			t.Fatalf("the chroot %s is left after stop: %v", chroot, err)
		}
	})
}

// walk runs the walkthrough with env, and returns the --zk start printed.
func walk(t *testing.T, env []string, sandboxBin, migrationzk string) string {
	work := t.TempDir()
	dir := filepath.Join(t.TempDir(), "sandbox")
	var zk, chroot, kraft string
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			runEnv(t, env, work, sandboxBin, "stop", "-dir", dir)
		}
	})
	for _, step := range walkthrough(t) {
		switch {
		case step.make != "":
			out, code := runEnv(t, env, work, sandboxBin, step.make, "-dir", dir)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s", step.line, code, out)
			}
			if step.make == "start" {
				m := zkAddr.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("start printed no --zk:\n%s", out)
				}
				zk = m[1]
				if k := kraftDir.FindStringSubmatch(out); k != nil {
					kraft = k[1]
				}
				if strings.Contains(zk, chrootPrefix) {
					chroot = sandboxChroot(t, zk)
				}
			}
			stopped = step.make == "stop"
		case step.args != nil:
			args := slices.Clone(step.args)
			for i, a := range args {
				if a == kraftArg {
					args[i] = kraft
				}
			}
			out, code := runEnv(t, env, work, migrationzk, append([]string{"--zk", zk}, args...)...)
			if chroot != "" {
				out = strings.ReplaceAll(out, chroot, "")
			}
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
	return zk
}

// sandboxChroot is the chroot of ZK_SERVERS in a --zk the sandbox printed.
func sandboxChroot(t *testing.T, zk string) string {
	_, root, _ := strings.Cut(zk, "/")
	chroot, ok := strings.CutSuffix("/"+root, kafkaRoot)
	if !ok || !strings.HasPrefix(chroot, chrootPrefix) {
		t.Fatalf("--zk %s names no chroot %s<random> before %s", zk, chrootPrefix, kafkaRoot)
	}
	return chroot
}

// TestSandboxOnZKServers runs the sandbox on servers ZK_SERVERS names,
// which needs no local installation: it seeds under a fresh chroot of
// its own and prints it, refuses a chroot that exists, leaving it as it
// was, and stop deletes its chroot. A second start and a second delta
// print what the cluster holds then, read from it, not what it was
// seeded with.
// Fault: a chroot that exists; ZK_SERVERS naming a chroot; start and
// delta run twice.
func TestSandboxOnZKServers(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	bin := build(t, t.TempDir(), ".", "zksandbox")
	work := t.TempDir()
	env := []string{zktest.EnvServers + "=" + strings.Join(srv.Servers, ",")}
	dir := filepath.Join(t.TempDir(), "sandbox")
	t.Cleanup(func() { runEnv(t, env, work, bin, "stop", "-dir", dir) })
	run := func(args ...string) string {
		t.Helper()
		out, code := runEnv(t, env, work, bin, append(args, "-dir", dir)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		return out
	}
	want := func(out string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(out, s) {
				t.Fatalf("output lacks %q:\n%s", s, out)
			}
		}
	}

	out := run("start")
	m := zkAddr.FindStringSubmatch(out)
	if m == nil || !strings.HasPrefix(m[1], strings.Join(srv.Servers, ",")+chrootPrefix) {
		t.Fatalf("start printed no --zk on ZK_SERVERS under a chroot:\n%s", out)
	}
	chroot := sandboxChroot(t, m[1])
	want(out, "ZooKeeper sandbox started", "It lives under the chroot "+chroot+" of ZK_SERVERS",
		"/controller        KRaft controller 3000 (KRaft epoch 50)")
	if ok, _, err := admin.Exists(chroot + kafkaRoot + "/brokers/topics/orders"); err != nil || !ok {
		t.Fatalf("nothing seeded under %s: %v", chroot, err)
	}
	if _, err := os.Stat(filepath.Join(dir, zkDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a local server was started: %v", err)
	}

	want(run("start"), "ZooKeeper sandbox already running", "/controller        KRaft controller 3000 (KRaft epoch 50)", "export ZK="+m[1])
	want(run("delta"), "KRaft controller 3001 (epoch 51) took over and mirrored a delta", "retention.ms: 86400000 -> 3600000",
		"/controller        KRaft controller 3001 (KRaft epoch 51)")
	out = run("delta")
	want(out, "Nothing to mirror: ZooKeeper holds the delta already", "/controller        KRaft controller 3001 (KRaft epoch 51)")
	if strings.Contains(out, "took over") {
		t.Fatalf("a second delta tells the first one's story:\n%s", out)
	}
	out = run("start")
	want(out, "already running", "/controller        KRaft controller 3001 (KRaft epoch 51)", "written by KRaft controller 3001")
	if strings.Contains(out, "3000") {
		t.Fatalf("a second start tells the seeded story:\n%s", out)
	}

	taken := chrootPrefix + "taken"
	for _, p := range []string{taken, taken + "/kafka"} {
		if _, err := admin.Create(p, []byte("mine"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { admin.Delete(taken+"/kafka", -1); admin.Delete(taken, -1) })
	other := filepath.Join(t.TempDir(), "other")
	t.Cleanup(func() { runEnv(t, env, work, bin, "stop", "-dir", other) })
	out, code := runEnv(t, env, work, bin, "start", "-dir", other, "-chroot", taken)
	if code == 0 || !strings.Contains(out, taken+" exists on ") {
		t.Fatalf("a chroot that exists: exit %d\n%s", code, out)
	}
	if data, _, err := admin.Get(taken + "/kafka"); err != nil || string(data) != "mine" {
		t.Fatalf("the chroot that exists was changed: %q, %v", data, err)
	}
	out, code = runEnv(t, []string{zktest.EnvServers + "=" + srv.Servers[0] + "/kafka"}, work, bin, "start", "-dir", other)
	if code == 0 || !strings.Contains(out, "names a chroot: give the servers alone") {
		t.Fatalf("ZK_SERVERS with a chroot: exit %d\n%s", code, out)
	}

	want(run("stop"), "Sandbox stopped; its chroot "+chroot+" on ")
	if ok, _, err := admin.Exists(chroot); err != nil || ok {
		t.Fatalf("the chroot %s is left after stop: %v", chroot, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sandbox directory is left after stop: %v", err)
	}
}
