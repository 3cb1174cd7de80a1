package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestChroot gives the chroot in --zk, as Kafka's zookeeper.connect does.
// Situation: --zk host:port/chroot alone, with the same --root, with a
// conflicting --root (a usage error), and with the chroot after several
// servers.
func TestChroot(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "chroot")
	c.seedKafka(43, uniform("orders", 3, 50))
	c.zkController(1)
	servers := strings.Join(srv.Servers, ",")

	start := time.Now()
	r := runBinary(t, nil, "--zk", servers+c.root, "--timeout", "30s", "rollback-check")
	wantCode(t, r, exitProblem)
	wantOutput(t, r, "root "+c.root+"\n", "AT RISK: 3 partitions")
	if d := time.Since(start); d > fastFail {
		t.Fatalf("took %v", d)
	}
	r = runBinary(t, nil, "--zk", servers+c.root, "--root", c.root, "status")
	wantCode(t, r, exitOK)

	r = runBinary(t, nil, "--zk", servers+c.root, "--root", "/other", "--output", "json", "status")
	wantCode(t, r, exitError)
	var out errorReport
	r.decode(t, &out)
	if out.Kind != kindUsage || !strings.Contains(out.Error, `--root "/other" conflicts with the chroot "`+c.root+`"`) {
		t.Fatalf("json: %+v", out)
	}
	r = runBinary(t, nil, "--zk", srv.Addr()+",127.0.0.1:1"+c.root, "status")
	wantCode(t, r, exitOK)
	wantOutput(t, r, "root "+c.root+"\n")
}

// TestNoKafkaMetadata runs every command under a root that holds no
// Kafka tree: one that does not exist, one with other znodes, and the
// server's root when Kafka runs under a chroot.
// Fault: a wrong --root; each command must say no Kafka metadata was
// found there and exit 2, writing nothing.
func TestNoKafkaMetadata(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "elsewhere")
	c.create("/app", nil, 0)
	c.create("/app2", nil, 0)
	for _, root := range []string{srv.Path("/missing"), c.root} {
		for _, cmd := range [][]string{{"status"}, {"rollback-check"}, {"rollback-fix", "--apply", "--yes"}, {"repair-null-migration", "--apply"}} {
			r := runBinary(t, nil, append([]string{"--zk", srv.Addr(), "--root", root}, cmd...)...)
			wantCode(t, r, exitError)
			if !strings.Contains(r.stderr, "no Kafka metadata found under "+root) || !strings.Contains(r.stderr, "is --root right?") {
				t.Fatalf("%s %v: %s", root, cmd, r)
			}
		}
	}
	r := runBinary(t, nil, "--zk", srv.Addr(), "--root", c.root, "--output", "json", "status")
	var out errorReport
	r.decode(t, &out)
	if out.Kind != kindNoKafka || !strings.Contains(out.Error, "(its children: app, app2)") {
		t.Fatalf("json: %+v", out)
	}
	if c.exists(znode.MigrationPath) || c.exists(znode.ControllerEpochPath) {
		t.Fatal("a command wrote under a root without Kafka metadata")
	}
}

// TestFailsFast checks that a refused connection and an unknown host fail
// at once with the cause, long before --timeout.
// Fault: nothing listens on the port; the host name does not resolve.
func TestFailsFast(t *testing.T) {
	for _, tc := range []struct{ name, zk, want string }{
		{"refused", "127.0.0.1:1", "cannot reach ZooKeeper at 127.0.0.1:1: connection refused"},
		{"unknown-host", "no-such-host.invalid:2181/kafka", "cannot reach ZooKeeper at no-such-host.invalid:2181: unknown host no-such-host.invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := runBinary(t, nil, "--zk", tc.zk, "--timeout", "60s", "status")
			wantCode(t, r, exitError)
			if !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("stderr lacks %q: %s", tc.want, r)
			}
			if d := time.Since(start); d > fastFail {
				t.Fatalf("took %v, want under %v", d, fastFail)
			}
		})
	}
}

// TestJSONAlways checks that --output json prints exactly one JSON object
// on stdout whatever happens.
// Fault: usage errors (unknown flag, unknown command, no command, bad
// values, extra arguments, a digest file that cannot be read or parsed),
// help, the version, an unreachable server.
func TestJSONAlways(t *testing.T) {
	dir := t.TempDir()
	noColon := filepath.Join(dir, "digest")
	if err := os.WriteFile(noColon, []byte("justapassword\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		key  string
		want string
	}{
		{[]string{"status", "--bogus"}, exitError, "error", "flag provided but not defined: -bogus"},
		{[]string{"--bogus", "status"}, exitError, "error", "flag provided but not defined: -bogus"},
		{[]string{"frobnicate"}, exitError, "error", `unknown command "frobnicate"`},
		{nil, exitError, "error", "no command given"},
		{[]string{"--timeout", "soon", "status"}, exitError, "error", `invalid value "soon" for flag -timeout`},
		{[]string{"--timeout", "0s", "status"}, exitError, "error", "--timeout 0s: must be positive"},
		{[]string{"status", "extra"}, exitError, "error", "unexpected arguments: extra"},
		{[]string{"--zk-digest-file", filepath.Join(dir, "absent"), "status"}, exitError, "error", "--zk-digest-file: open "},
		{[]string{"--zk-digest-file", noColon, "status"}, exitError, "error", "want user:password, found no colon"},
		{[]string{"--help"}, exitOK, "usage", "Commands:"},
		{[]string{"rollback-fix", "--help"}, exitOK, "usage", "-yes"},
		{[]string{"--version"}, exitOK, "version", ""},
		{[]string{"--zk", "127.0.0.1:1", "status"}, exitError, "error", "connection refused"},
	} {
		args := append([]string{"--output", "json"}, tc.args...)
		r := runBinary(t, nil, args...)
		wantCode(t, r, tc.code)
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		var out map[string]any
		if err := dec.Decode(&out); err != nil {
			t.Fatalf("%v: stdout is no JSON object: %v\n%s", tc.args, err, r)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("%v: more than one JSON value on stdout:\n%s", tc.args, r)
		}
		got, _ := out[tc.key].(string)
		if out["schema_version"] != 1.0 || got == "" || !strings.Contains(got, tc.want) {
			t.Fatalf("%v: %q = %q, want %q\n%s", tc.args, tc.key, got, tc.want, r)
		}
		if strings.Contains(r.stdout, "justapassword") || strings.Contains(r.stderr, "justapassword") {
			t.Fatalf("%v: the digest file's content is shown:\n%s", tc.args, r)
		}
	}
}

// TestVersion checks --version: the build's module version, "devel" for
// a build from a work tree without one.
// Situation: --version before and after a command, in text and json.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"status", "--version"}} {
		r := runBinary(t, nil, args...)
		wantCode(t, r, exitOK)
		if !strings.HasPrefix(r.stdout, "migrationzk ") || strings.TrimSpace(strings.TrimPrefix(r.stdout, "migrationzk ")) == "" {
			t.Fatalf("%v: %s", args, r)
		}
	}
	if v := version(); v == "" {
		t.Fatal("empty version")
	}
	stamp := vcsStamp{revision: "feedface", time: "2026-12-02T08:00:00Z", modified: true}
	for _, tc := range []struct {
		info    debug.BuildInfo
		stamped vcsStamp
		want    string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "4352023abc"}, {Key: "vcs.time", Value: "2026-12-01T21:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			vcsStamp{}, "devel (revision 4352023abc, 2026-12-01T21:00:00Z, modified)"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "4352023abc"}, {Key: "vcs.modified", Value: "false"}}},
			stamp, "v1.2.0 (revision 4352023abc)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, vcsStamp{}, "devel"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, stamp, "devel (revision feedface, 2026-12-02T08:00:00Z, modified)"},
		{debug.BuildInfo{}, vcsStamp{revision: "feedface"}, "devel (revision feedface)"},
	} {
		if got := versionOf(&tc.info, tc.stamped); got != tc.want {
			t.Errorf("versionOf(%+v, %+v) = %q, want %q", tc.info, tc.stamped, got, tc.want)
		}
	}
}

// TestVersionStamped builds the tool as make does from a checkout
// whose build records no VCS information (-buildvcs=false): --version
// names the commit make stamps with -ldflags; and make migrationzk
// itself, whose binary names the checkout's HEAD.
// Situation: a build without VCS information, stamped; the make target.
func TestVersionStamped(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "stamped")
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin,
		"-ldflags", "-X main.stampedRevision=0123abcd -X main.stampedTime=2026-12-02T08:00:00Z -X main.stampedModified=true", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if want := "migrationzk devel (revision 0123abcd, 2026-12-02T08:00:00Z, modified)\n"; err != nil || string(out) != want {
		t.Fatalf("--version = %q, %v; want %q", out, err, want)
	}

	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout, or no git: %v", err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("no make: %v", err)
	}
	made := filepath.Join(dir, "made")
	mk := exec.Command("make", "-s", "-C", "../..", "migrationzk", "BIN="+made)
	mk.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make migrationzk: %v\n%s", err, out)
	}
	out, err = exec.Command(made, "--version").Output()
	if want := "revision " + strings.TrimSpace(string(head)); err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("make migrationzk: --version = %q, %v; want %q", out, err, want)
	}
}

// TestConfirm runs rollback-fix --apply and repair-null-migration
// --apply with stdin a terminal (the check injected) and not: both ask
// on a terminal unless --yes, and write off a terminal only with --yes;
// without it nothing is written and they exit 2 saying to add --yes.
// Every write is printed as it is made.
// Situation: the operator answers no, yes, nothing (end of input); --yes;
// stdin not a terminal, with "n", "y" or nothing piped in, and with --yes.
func TestConfirm(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	for _, tc := range []struct {
		name  string
		env   inProcess
		args  []string
		code  int
		asked bool
	}{
		{"terminal-no", inProcess{stdinTTY: true, stdin: "n\n"}, nil, exitProblem, true},
		{"terminal-eof", inProcess{stdinTTY: true}, nil, exitProblem, true},
		{"terminal-yes", inProcess{stdinTTY: true, stdin: "yes\n"}, nil, exitOK, true},
		{"terminal-flag-yes", inProcess{stdinTTY: true}, []string{"--yes"}, exitOK, false},
		{"not-terminal-n", inProcess{stdin: "n\n"}, nil, exitError, false},
		{"not-terminal-y", inProcess{stdin: "y\n"}, nil, exitError, false},
		{"not-terminal", inProcess{}, nil, exitError, false},
		{"not-terminal-flag-yes", inProcess{stdin: "n\n"}, []string{"--yes"}, exitOK, false},
	} {
		t.Run("rollback-fix/"+tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, "fix-"+tc.name)
			c.seedKafka(43, uniform("orders", 3, 50))
			c.zkController(1)
			ctl, _ := c.get(znode.ControllerPath)
			r := c.runWith(tc.env, append([]string{"rollback-fix", "--apply"}, tc.args...)...)
			checkConfirm(t, r, tc.code, tc.asked)
			if tc.code != exitOK {
				c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
				c.unchanged(znode.ControllerPath, ctl, 0)
				wantOutput(t, r, "Plan:\n  1. set "+c.root+"/controller_epoch from 43 to 50")
				return
			}
			want := "write 1/2: set " + c.root + `/controller_epoch at version 43 from "43" to "50"` + "\n" +
				"write 1/2: ok, now version 44\n" +
				"write 2/2: delete " + c.root + "/controller at version 0, holding " + fmt.Sprintf("%q", ctl) + "\n" +
				"write 2/2: ok\n"
			if !strings.Contains(r.stderr, want) {
				t.Fatalf("stderr lacks the writes\n%s\n%s", want, r)
			}
			c.unchanged(znode.ControllerEpochPath, []byte("50"), 44)
		})
		t.Run("repair-null-migration/"+tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, "repair-"+tc.name)
			c.seedKafka(43)
			c.migration(nil)
			r := c.runWith(tc.env, append([]string{"repair-null-migration", "--apply"}, tc.args...)...)
			checkConfirm(t, r, tc.code, tc.asked)
			if tc.code != exitOK {
				c.unchanged(znode.MigrationPath, nil, 0)
				wantOutput(t, r, "set "+c.root+"/migration from null data to the initial state")
				return
			}
			if !strings.Contains(r.stderr, "write 1/1: ok, now version 1\n") {
				t.Fatalf("stderr lacks the write:\n%s", r)
			}
			c.unchanged(znode.MigrationPath, znode.InitialMigration().Encode(), 1)
		})
	}
}

// checkConfirm checks the exit code of a writing command run with
// --apply, whether it asked, and what it says when it did not write.
func checkConfirm(t *testing.T, r result, code int, asked bool) {
	t.Helper()
	wantCode(t, r, code)
	if got := strings.Contains(r.stderr, "Proceed? [y/N]"); got != asked {
		t.Fatalf("asked %v, want %v: %s", got, asked, r)
	}
	switch code {
	case exitProblem:
		wantOutput(t, r, "Cancelled: nothing was changed.")
	case exitError:
		if !strings.Contains(r.stderr, "stdin is not a terminal") || !strings.Contains(r.stderr, "add --yes") {
			t.Fatalf("stderr does not say to add --yes:\n%s", r)
		}
	}
	if code != exitOK && strings.Contains(r.stderr, "write 1/") {
		t.Fatalf("a write was made: %s", r)
	}
}

// TestIncompleteVerdict checks that undecodable partition states make the
// verdict "incomplete" and the exit code 1 in rollback-check and in
// rollback-fix --apply alike, with partitions at risk and without.
// Fault: garbage and null partition state data.
func TestIncompleteVerdict(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	broken := func(c *cluster) {
		c.create("/brokers/topics/broken", nil, 0)
		c.create("/brokers/topics/broken/partitions", nil, 0)
		c.create("/brokers/topics/broken/partitions/0", nil, 0)
		c.create("/brokers/topics/broken/partitions/0/state", []byte("garbage"), 0)
		c.create("/brokers/topics/broken/partitions/1", nil, 0)
		c.create("/brokers/topics/broken/partitions/1/state", nil, 0)
	}
	const verdict = "Verdict: incomplete: 2 partition states could not be read"
	for _, tc := range []struct {
		name   string
		stamps int32
	}{{"with-at-risk", 50}, {"none-at-risk", 40}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, tc.name)
			c.seedKafka(43, uniform("orders", 2, tc.stamps))
			c.zkController(1)
			broken(c)
			r := c.run("rollback-check")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, verdict)
			r = c.run("--output", "json", "rollback-check")
			wantCode(t, r, exitProblem)
			var out checkReport
			r.decode(t, &out)
			if out.Verdict != verdictIncomplete || out.UndecodableCount != 2 {
				t.Fatalf("json: %+v", out)
			}
			r = c.run("rollback-fix", "--apply", "--yes")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, verdict)
		})
	}
}
