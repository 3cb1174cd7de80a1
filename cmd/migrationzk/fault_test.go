package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// runInProcess runs the command in this process, its client connecting
// with opts (such as a FaultDialer's), with stderr taken for a terminal
// when tty, and stdin not a terminal.
func (c *cluster) runInProcess(tty bool, opts []zkconn.Option, args ...string) result {
	c.t.Helper()
	return c.runWith(inProcess{stderrTTY: tty, opts: opts}, args...)
}

// inProcess is the environment of a run in this process.
type inProcess struct {
	stderrTTY bool
	// stdinTTY makes stdin a terminal that holds stdin.
	stdinTTY bool
	stdin    string
	opts     []zkconn.Option
	env      map[string]string
}

// runWith runs the command in this process, in env.
func (c *cluster) runWith(env inProcess, args ...string) result {
	c.t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader(env.stdin),
		getenv: func(k string) string { return env.env[k] }, tty: env.stderrTTY,
		stdinTTY: func() bool { return env.stdinTTY }, connOpts: env.opts}
	code := a.run(append([]string{"--zk", strings.Join(c.srv.Servers, ","), "--root", c.root}, args...))
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// TestRollbackFixLostAck runs rollback-fix --apply with its client dialling
// through a FaultDialer.
// Fault: the reply to the /controller_epoch setData is dropped after the
// server applied it; the reply to the /controller delete likewise; the
// /controller_epoch setData is dropped before it reaches the server.
// The tool must report the writes as done exactly once: /controller_epoch
// one version up, never two.
func TestRollbackFixLostAck(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)

	for _, tc := range []struct {
		name      string
		fault     func(c *cluster) zktest.Fault
		setResult string
		delResult string
	}{
		{
			name: "epoch-reply-dropped",
			fault: func(c *cluster) zktest.Fault {
				return zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: c.root + znode.ControllerEpochPath}
			},
			setResult: "recovered: the acknowledgement was lost and a reread showed the write at version 44",
			delResult: "ok",
		},
		{
			name: "delete-reply-dropped",
			fault: func(c *cluster) zktest.Fault {
				return zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.root + znode.ControllerPath}
			},
			setResult: "ok, now version 44",
			delResult: "recovered: the acknowledgement was lost and a reread showed the znode gone",
		},
		{
			name: "epoch-request-dropped",
			fault: func(c *cluster) zktest.Fault {
				return zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSetData, Path: c.root + znode.ControllerEpochPath}
			},
			setResult: "ok, now version 44",
			delResult: "ok",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, tc.name)
			c.seedKafka(43, uniform("orders", 3, 50))
			c.zkController(1)
			faults := zktest.NewFaultDialer(t)
			armed := faults.Arm(tc.fault(c))

			r := c.runInProcess(false, []zkconn.Option{zkconn.WithDialer(faults.Dial)}, "--output", "json", "rollback-fix", "--apply", "--yes")
			wantCode(t, r, exitOK)
			if !armed.HasFired() {
				t.Fatal("the fault did not fire")
			}
			var out fixReport
			r.decode(t, &out)
			if out.Outcome != outcomeApplied || len(out.Actions) != 2 || out.After == nil || out.After.AtRiskCount != 0 {
				t.Fatalf("json: %+v", out)
			}
			if got := out.Actions[0].Result; got != tc.setResult {
				t.Fatalf("set result %q, want %q", got, tc.setResult)
			}
			if got := out.Actions[1].Result; got != tc.delResult {
				t.Fatalf("delete result %q, want %q", got, tc.delResult)
			}
			c.unchanged(znode.ControllerEpochPath, []byte("50"), 44)
			if c.exists(znode.ControllerPath) {
				t.Fatal("/controller still exists")
			}
		})
	}
}

// TestProgressBar checks that the scan draws a progress bar on stderr when
// it is a terminal, and only then, that it counts partitions (12 in 3
// topics), and keeps stdout clean.
// Fault: none.
func TestProgressBar(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "progress")
	c.seedKafka(3, uniform("orders", 10, 2), uniform("logs", 1, 2), uniform("audit", 1, 2))

	r := c.runInProcess(true, nil, "--output", "json", "rollback-check")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stderr, "\rscanning [##############################] 100% 12/12 partitions, 3 topics, ") ||
		!strings.HasSuffix(r.stderr, "\r\x1b[K") {
		t.Fatalf("no progress bar counting partitions on a terminal: %q", r.stderr)
	}
	var out checkReport
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Partitions != 12 {
		t.Fatalf("stdout: %v %q", err, r.stdout)
	}

	r = c.runInProcess(false, nil, "rollback-check")
	wantCode(t, r, exitOK)
	if r.stderr != "" {
		t.Fatalf("stderr is not a terminal, yet: %q", r.stderr)
	}
}

// TestProgressLine checks how the progress bar is drawn: topics while
// partitions are listed, then partitions, not topics or pages of topics.
// Fault: none.
func TestProgressLine(t *testing.T) {
	p := newProgress(nil, 1000)
	p.listed.Store(300)
	want := "listing  [#########.....................]  30% 300/1,000 topics, "
	if line := p.line(); !strings.HasPrefix(line, want) {
		t.Fatalf("line %q, want prefix %q", line, want)
	}
	p.listed.Store(1000)
	p.total.Store(100000)
	p.partitions.Store(75000)
	want = "scanning [######################........]  75% 75,000/100,000 partitions, 1,000 topics, "
	if line := p.line(); !strings.HasPrefix(line, want) {
		t.Fatalf("line %q, want prefix %q", line, want)
	}
}

// TestCommas checks the thousands separators of the text output.
// Fault: none.
func TestCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestRepairNullMigrationLostAck runs repair-null-migration --apply with
// its client dialling through a FaultDialer.
// Fault: the reply to the /migration setData is dropped after the server
// applied it. The tool reports the write as recovered, from what
// GetOrCreate returned, and /migration holds the initial state once.
func TestRepairNullMigrationLostAck(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "repair-lost-ack")
	c.seedKafka(43)
	c.migration(nil)
	faults := zktest.NewFaultDialer(t)
	armed := faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: c.root + znode.MigrationPath})
	r := c.runInProcess(false, []zkconn.Option{zkconn.WithDialer(faults.Dial)}, "repair-null-migration", "--apply", "--yes")
	wantCode(t, r, exitOK)
	if !armed.HasFired() {
		t.Fatal("the fault did not fire")
	}
	if want := "write 1/1: recovered: the acknowledgement was lost and a reread showed the write at version 1\n"; !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, r)
	}
	c.unchanged(znode.MigrationPath, znode.InitialMigration().Encode(), 1)
}
