package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// mirror is a KRaft controller in dual-write writing the cluster's tree
// through the dualwrite vocabulary.
type mirror struct {
	t *testing.T
	c *dualwrite.Client
	s migrationzk.State
}

// mirrorAs3000 claims the cluster as KRaft controller 3000 with epoch 7 and
// returns its mirror, a client with opts; the cluster must hold
// /controller_epoch.
func (c *cluster) mirrorAs3000(opts ...dualwrite.Option) *mirror {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	w := must.Get(migrationzk.New(c.admin, migrationzk.WithRoot(c.root)))
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		c.t.Fatal(err)
	}
	return c.takeOver(3000, 7, opts...)
}

// takeOver is KRaft controller id claiming the cluster with epoch, as a
// new controller does, and returns its mirror, a client with opts; a
// checkpoint it creates is at offset 100.
func (c *cluster) takeOver(id, epoch int32, opts ...dualwrite.Option) *mirror {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	w := must.Get(migrationzk.New(c.admin, migrationzk.WithRoot(c.root)))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataOffset, s.KRaftMetadataEpoch = id, epoch, 100, epoch
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		c.t.Fatal(err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		c.t.Fatal(err)
	}
	return &mirror{t: c.t, c: must.Get(dualwrite.New(w, opts...)), s: s}
}

// do applies one change, the checkpoint moved one offset on.
func (m *mirror) do(change func(context.Context, migrationzk.State) (migrationzk.State, error)) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	m.s.KRaftMetadataOffset++
	s, err := change(ctx, m.s)
	if err != nil {
		m.t.Fatal(err)
	}
	m.s = s
}

// seedMirrored writes something of every domain through m: two topics
// (one mid-reassignment), configs, quotas, SCRAM credentials, ACLs, a
// delegation token, the producer id block.
func (m *mirror) seedMirrored() {
	m.t.Helper()
	orders := dualwrite.Topic{Name: "orders", ID: znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2}, Partitions: map[int32]dualwrite.Partition{}}
	for p := int32(0); p < 3; p++ {
		r := []int32{1 + p%3, 1 + (p+1)%3}
		orders.Partitions[p] = dualwrite.Partition{Replicas: r, State: dualwrite.PartitionState{Leader: r[0], LeaderEpoch: 2, ISR: r}}
	}
	moving := dualwrite.Topic{Name: "moving", ID: znode.Uuid{MostSignificantBits: 3, LeastSignificantBits: 4}, Partitions: map[int32]dualwrite.Partition{
		0: {Replicas: []int32{1, 2, 3}, AddingReplicas: []int32{3}, RemovingReplicas: []int32{1}, State: dualwrite.PartitionState{Leader: 2, LeaderEpoch: 5, ISR: []int32{2, 1}}},
	}}
	cred := znode.ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
	acl := []znode.ACLEntry{{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}}
	token := znode.DelegationToken{TokenID: "tok1", Owner: "User:alice", TokenRequester: "User:alice", Renewers: []string{"User:bob"},
		IssueTimestamp: 1729500000000, MaxTimestamp: 1730100000000, ExpiryTimestamp: 1729600000000}
	for _, change := range []func(context.Context, migrationzk.State) (migrationzk.State, error){
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.CreateTopic(ctx, s, orders)
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.CreateTopic(ctx, s, moving)
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.WriteConfigs(ctx, s, dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}, map[string]string{"retention.ms": "86400000"})
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.WriteConfigs(ctx, s, dualwrite.ConfigResource{Type: dualwrite.BrokerConfig}, map[string]string{"log.retention.hours": "24"})
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.WriteClientQuotas(ctx, s, dualwrite.QuotaEntity{User: "alice"}, map[string]float64{"producer_byte_rate": 1024},
				map[string]znode.ScramCredential{znode.ScramSHA256: cred})
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.WriteACLs(ctx, s, dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}, acl)
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.WriteDelegationToken(ctx, s, token)
		},
		func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
			return m.c.WriteProducerID(ctx, s, 6000)
		},
	} {
		m.do(change)
	}
}

// seedExportCluster lays out a cluster, writes every domain through the
// dualwrite vocabulary, adds a topic config that does not decode, and
// deletes the state of partition moving-0.
func seedExportCluster(t *testing.T, srv *zktest.Server, name string) (*cluster, *mirror) {
	t.Helper()
	c := newCluster(t, srv, srv.Connect(t), name)
	c.seedKafka(3)
	m := c.mirrorAs3000()
	m.seedMirrored()
	c.create("/config/topics/broken", []byte("{not json"), 0)
	if err := c.admin.Delete(c.root+znode.PartitionStatePath("moving", 0), -1); err != nil {
		t.Fatal(err)
	}
	return c, m
}

// readExport decodes an export, failing t on an error.
func readExport(t *testing.T, data string) dualwrite.Image {
	t.Helper()
	img, err := dualwrite.ReadImageJSON(strings.NewReader(data))
	if err != nil {
		t.Fatalf("export does not read back: %v\n%s", err, data)
	}
	return img
}

// oneJSONObject fails unless s is exactly one JSON object, decoded into v.
func oneJSONObject(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("more than one JSON value (%v):\n%s", err, s)
	}
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		t.Fatalf("not an object:\n%s", s)
	}
}

// TestExport exports a tree written through the dualwrite vocabulary and
// checks that the export holds every domain as written, that --output
// writes the same bytes as stdout to a file of mode 0600, and that a
// wrong --root fails instead of exporting an empty cluster.
// Fault: none; a topic config that does not decode, a partition without a
// state.
func TestExport(t *testing.T) {
	srv := zktest.Start(t)
	c, _ := seedExportCluster(t, srv, "export")

	r := c.run("export")
	wantCode(t, r, exitOK)
	img := readExport(t, r.stdout)
	if len(img.Topics) != 2 || len(img.Topics["orders"].Partitions) != 3 || img.Topics["orders"].ID != (znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2}) ||
		!slices.Equal(img.Topics["moving"].Partitions[0].AddingReplicas, []int32{3}) ||
		img.Topics["moving"].Partitions[0].HasState() || !img.Topics["orders"].Partitions[0].HasState() ||
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}]["retention.ms"] != "86400000" ||
		img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig}]["log.retention.hours"] != "24" ||
		img.ClientQuotas[dualwrite.QuotaEntity{User: "alice"}]["producer_byte_rate"] != 1024 ||
		img.Scram["alice"][znode.ScramSHA256].Iterations != 4096 ||
		len(img.ACLs[dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "orders", PatternType: znode.PatternLiteral}]) != 1 ||
		img.DelegationTokens["tok1"].Owner != "User:alice" ||
		img.ProducerIDBlock == nil || *img.ProducerIDBlock != znode.MigrationProducerIDBlock(6000) ||
		len(img.Undecodable) != 1 || img.Undecodable[0].Path != "/config/topics/broken" {
		t.Fatalf("export lacks what was written:\n%s", r.stdout)
	}

	file := filepath.Join(t.TempDir(), "cluster.json")
	rf := c.run("export", "--output", file)
	wantCode(t, rf, exitOK)
	if rf.stdout != "" || !strings.Contains(rf.stderr, "wrote "+file+": 2 topics, 4 partitions, 1 undecodable") {
		t.Fatalf("export to a file: %s", rf)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != r.stdout {
		t.Fatalf("the file differs from stdout:\n%s\n---\n%s", data, r.stdout)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi.Mode(), err)
	}

	r = runBinary(t, nil, "--zk", srv.Addr(), "--root", c.root+"/nope", "export")
	wantCode(t, r, exitError)
	if r.stdout != "" || !strings.Contains(r.stderr, "is --root right?") {
		t.Fatalf("wrong root: %s", r)
	}
}

// exportFile exports c to a file of dir and returns its path.
func (c *cluster) exportFile(dir, name string) string {
	c.t.Helper()
	file := filepath.Join(dir, name)
	wantCode(c.t, c.run("export", "--output", file), exitOK)
	return file
}

// TestDiff compares an export with the live tree it was taken from
// (equal, exit 0, both ways, text and JSON), then with the tree after one
// change through the dualwrite vocabulary and one by hand (exit 1, the
// plan naming each), and two exports of the same tree (equal).
// Fault: none; a topic config that does not decode, then repaired.
func TestDiff(t *testing.T) {
	srv := zktest.Start(t)
	c, m := seedExportCluster(t, srv, "diff")
	dir := t.TempDir()
	before := c.exportFile(dir, "before.json")

	r := c.run("diff", before, "live")
	wantCode(t, r, exitOK)
	wantOutput(t, r, "From "+before+" to live:", "skipped /config/topics/broken", "Equal: live holds what "+before+" holds.")
	r = c.run("diff", "live", before, "--output", "json")
	wantCode(t, r, exitOK)
	var out diffReport
	oneJSONObject(t, r.stdout, &out)
	if !out.Equal || len(out.Changes) != 0 || len(out.Unplanned) != 0 || out.From != "live" || out.To != before ||
		out.Command != "diff" || out.Schema != 1 || len(out.Skipped) != 1 || out.Skipped[0].Path != "/config/topics/broken" {
		t.Fatalf("diff json: %+v\n%s", out, r)
	}
	wantCode(t, c.run("diff", before, c.exportFile(dir, "again.json")), exitOK)

	m.do(func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
		return m.c.WriteConfigs(ctx, s, dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}, map[string]string{"retention.ms": "1000"})
	})
	r = c.run("diff", before, "live")
	wantCode(t, r, exitProblem)
	wantOutput(t, r, "write-configs topics/orders\n", "Different: 1 change to make "+before+" into live, 0 differences no change makes.")
	r = c.run("--output", "json", "diff", before, "live")
	wantCode(t, r, exitProblem)
	out = diffReport{}
	oneJSONObject(t, r.stdout, &out)
	if out.Equal || len(out.Changes) != 1 || out.Changes[0].Kind != dualwrite.ChangeWriteConfigs || out.Changes[0].Subject != "topics/orders" ||
		out.Counts[dualwrite.ChangeWriteConfigs] != 1 {
		t.Fatalf("diff json after a config change: %+v\n%s", out, r)
	}

	diffAfterHandChanges(t, c, before)
}

// diffAfterHandChanges moves a partition's leader and repairs the config
// that did not decode, by hand, and diffs the export before with the live
// tree both ways: the plan names the partition; the repaired config is an
// unplanned difference, and diff plans no delete of it when only B fails
// to decode it.
func diffAfterHandChanges(t *testing.T, c *cluster, before string) {
	t.Helper()
	st := znode.PartitionState{ControllerEpoch: 7, Leader: 2, LeaderEpoch: 3, ISR: []int32{1, 2}}
	if _, err := c.admin.Set(c.root+znode.PartitionStatePath("orders", 0), st.Encode(), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.admin.Set(c.root+"/config/topics/broken", znode.Config{"cleanup.policy": "compact"}.Encode(), -1); err != nil {
		t.Fatal(err)
	}
	r := c.run("diff", before, "live")
	wantCode(t, r, exitProblem)
	wantOutput(t, r, "update-partitions orders partitions [0]\n", `unplanned undecodable /config/topics/broken: from "decode`, ", to decodable\n")
	// The other way, the config that decodes only in A is not deleted.
	r = c.run("diff", "live", before)
	wantCode(t, r, exitProblem)
	wantOutput(t, r, "unplanned undecodable /config/topics/broken: from decodable, to \"decode", "skipped /config/topics/broken: ")
	if strings.Contains(r.stdout, "delete-configs") {
		t.Fatalf("diff plans the delete of a znode B holds undecodable:\n%s", r)
	}
}

// writeFile writes data to the file name of dir and returns its path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDiffErrors checks that diff exits 2, with one JSON object under
// --output json, when a side cannot be read: an export of schema version
// 4, a file that is not an export, a missing file, an unreachable
// cluster; and that its arguments are checked, export's too: an --output
// that is a directory, --include-secrets without --output.
// Fault: ZooKeeper unreachable (nothing listens on the port); files of
// another schema version, without one, truncated, missing.
func TestDiffErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	v1 := write("v1.json", "{\"schema_version\": 1}\n")
	v4 := write("v4.json", "{\"schema_version\": 4, \"topics\": []}\n")
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"schema-version-4", []string{"diff", v1, v4}, v4 + ": dualwrite: image JSON: schema_version 4, this reads versions 1 to 3"},
		{"no-version", []string{"diff", write("none.json", `{"topics":[]}`), v1}, `no "schema_version" as the first key`},
		{"truncated", []string{"diff", v1, write("cut.json", `{"schema_version":1,"topics":[{"name"`)}, "not an image export: dualwrite: image JSON at byte 30 topics[0]: unexpected EOF"},
		{"missing-file", []string{"diff", v1, filepath.Join(dir, "absent.json")}, "no such file or directory"},
		{"unreachable", []string{"--zk", "127.0.0.1:1", "--timeout", "500ms", "diff", v1, "live"}, "cannot reach ZooKeeper at 127.0.0.1:1: connection refused"},
		{"one-side", []string{"diff", v1}, "want two images, each an export file or \"live\", got 1 argument"},
		{"three-sides", []string{"diff", v1, v1, v1}, "got 3 arguments"},
		{"export-args", []string{"export", "extra"}, "unexpected arguments: extra"},
		{"export-output-format", []string{"export", "--output", "json"}, "--output names the file to write (the image is always JSON); for a file named json, say ./json"},
		{"export-output-directory", []string{"export", "--output", dir}, "--output " + dir + " is a directory: name the file to write, such as " + filepath.Join(dir, "export.json")},
		{"export-secrets-to-stdout", []string{"export", "--include-secrets"}, "--include-secrets writes secrets only to a file: give --output FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBinary(t, nil, tc.args...)
			wantCode(t, r, exitError)
			if !strings.Contains(r.stderr, tc.stderr) || r.stdout != "" {
				t.Fatalf("stderr lacks %q, or stdout is not empty:\n%s", tc.stderr, r)
			}
		})
	}
	r := runBinary(t, nil, "diff", "--output", "json", v1, v4)
	wantCode(t, r, exitError)
	var out struct {
		header
		Error string `json:"error"`
	}
	oneJSONObject(t, r.stdout, &out)
	if out.Command != "diff" || !strings.Contains(out.Error, "schema_version 4") {
		t.Fatalf("json error: %+v", out)
	}
	r = runBinary(t, nil, "diff", v1, "--", v1)
	wantCode(t, r, exitOK)
	if r.stdout != "From "+v1+" to "+v1+":\nno changes\n\nEqual: "+v1+" holds what "+v1+" holds.\n" {
		t.Fatalf("diff of two files: %s", r)
	}
	wantCode(t, runBinary(t, nil, "export", "--help"), exitOK)
}

// TestExportProgress checks that export and a live diff draw the read's
// progress bar on stderr when it is a terminal, and only then, keeping
// stdout clean.
// Fault: none.
func TestExportProgress(t *testing.T) {
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "progress")
	c.seedKafka(3, uniform("orders", 10, 2))

	r := c.runInProcess(true, nil, "export")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stderr, "] 100% 1/1 topics") || !strings.HasSuffix(r.stderr, "\r\x1b[K") {
		t.Fatalf("no progress bar on a terminal: %q", r.stderr)
	}
	if img := readExport(t, r.stdout); len(img.Topics["orders"].Partitions) != 10 {
		t.Fatalf("export: %s", r.stdout)
	}
	file := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(file, []byte(r.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	r = c.runInProcess(true, nil, "diff", file, "live")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stderr, "] 100% 1/1 topics") {
		t.Fatalf("no progress bar on a terminal: %q", r.stderr)
	}
	r = c.runInProcess(false, nil, "export")
	wantCode(t, r, exitOK)
	if r.stderr != "" {
		t.Fatalf("stderr is not a terminal, yet: %q", r.stderr)
	}
}

// TestExportStall checks that --timeout ends a live read that gets no
// reply: the server stops while export reads a partition state, and
// export fails (exit 2) within a few timeouts, writing nothing.
// Fault: the request for a partition state is dropped and the server
// stopped at that moment.
func TestExportStall(t *testing.T) {
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "stall")
	c.seedKafka(3, uniform("orders", 3, 2))
	faults := zktest.NewFaultDialer(t)
	armed := faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpGetData, Path: c.root + znode.PartitionStatePath("orders", 1),
		Then: func() {
			if err := srv.Stop(); err != nil {
				t.Error(err)
			}
		}})
	start := time.Now()
	r := c.runInProcess(false, []zkconn.Option{zkconn.WithDialer(faults.Dial)}, "--timeout", "1s", "export")
	wantCode(t, r, exitError)
	if !armed.HasFired() || r.stdout != "" || !strings.Contains(r.stderr, "ZooKeeper sent no reply within 1s (--timeout)") {
		t.Fatalf("export of a stalled read: %s", r)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("export took %v to give up", took)
	}
}
