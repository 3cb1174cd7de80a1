package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/quorum/quorumtest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// binEnv names the binary built by TestMain for the tests to run.
const binEnv = "MIGRATIONZK_TEST_BINARY"

// TestMain builds the command once; the tests run it as an operator would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "migrationzk-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin := filepath.Join(dir, "migrationzk")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build migrationzk:", err)
		os.Exit(2)
	}
	os.Setenv(binEnv, bin)
	quorumtest.Build(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// decode parses the json output into v.
func (r result) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("json output: %v\n%s", err, r)
	}
}

// runBinary runs the command with args and env added to a copy of the
// environment without ZK_SERVERS.
func runBinary(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Getenv(binEnv), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, zktest.EnvServers+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return r
}

var worldACL = zk.WorldACL(zk.PermAll)

// inWorkers calls fn(i) for i in [0, n) on up to workers goroutines and
// returns their errors joined.
func inWorkers(n, workers int, fn func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cluster is a Kafka cluster's ZooKeeper state under a chroot of its own.
type cluster struct {
	t     *testing.T
	srv   *zktest.Server
	admin *zk.Conn
	root  string
	// acl gives the ACL of a znode created at a path relative to the
	// root; nil means world:anyone with every permission.
	acl func(path string) []zk.ACL
}

// aclFor returns the ACL of a znode created at path, relative to the root.
func (c *cluster) aclFor(path string) []zk.ACL {
	if c.acl == nil {
		return worldACL
	}
	return c.acl(path)
}

// newCluster lays out an empty chroot on srv for a cluster named name.
func newCluster(t *testing.T, srv *zktest.Server, admin *zk.Conn, name string) *cluster {
	t.Helper()
	c := &cluster{t: t, srv: srv, admin: admin, root: srv.Path("/" + name)}
	c.create("", nil, 0)
	return c
}

// run runs the command against this cluster: global flags, then args.
func (c *cluster) run(args ...string) result {
	c.t.Helper()
	return runBinary(c.t, nil, append([]string{"--zk", strings.Join(c.srv.Servers, ","), "--root", c.root}, args...)...)
}

func (c *cluster) create(path string, data []byte, flags int32) {
	c.t.Helper()
	if _, err := c.admin.Create(c.root+path, data, flags, c.aclFor(path)); err != nil {
		c.t.Fatalf("create %s: %v", c.root+path, err)
	}
}

func (c *cluster) get(path string) ([]byte, *zk.Stat) {
	c.t.Helper()
	data, st, err := c.admin.Get(c.root + path)
	if err != nil {
		c.t.Fatalf("get %s: %v", c.root+path, err)
	}
	return data, st
}

func (c *cluster) exists(path string) bool {
	c.t.Helper()
	ok, _, err := c.admin.Exists(c.root + path)
	if err != nil {
		c.t.Fatal(err)
	}
	return ok
}

// topic is a topic to seed: the controller epoch stamped on each of its
// partitions' state, in partition order.
type topic struct {
	name   string
	stamps []int32
}

// uniform is a topic of n partitions all stamped with epoch.
func uniform(name string, n int, epoch int32) topic {
	s := make([]int32, n)
	for i := range s {
		s[i] = epoch
	}
	return topic{name: name, stamps: s}
}

// multiBatch is how many creates go into one multi request at most.
const multiBatch = 1000

// seedWorkers is how many multi requests seeding keeps in flight.
const seedWorkers = 8

// seedKafka lays out what a Kafka cluster keeps in ZooKeeper: the cluster
// id, three live brokers, /controller_epoch holding epoch (at version
// epoch, as elections leave it), and the topics with their partitions and
// partition states. Topics are created with multi requests of up to
// multiBatch creates, several in flight at once; each request holds whole
// topics, or one topic's creates in order, so none depends on another.
func (c *cluster) seedKafka(epoch int32, topics ...topic) {
	c.t.Helper()
	create := func(path string, data []byte, flags int32) any {
		return &zk.CreateRequest{Path: c.root + path, Data: data, Acl: c.aclFor(path), Flags: flags}
	}
	base := []any{
		create("/cluster", nil, 0),
		create("/cluster/id", []byte(`{"version":"1","id":"q1Sh-9_ISia_zwGINzRvyQ"}`), 0),
		create("/brokers", nil, 0),
		create("/brokers/ids", nil, 0),
		create("/brokers/topics", nil, 0),
		create(znode.ControllerEpochPath, znode.EncodeControllerEpoch(0), 0),
	}
	for b := 1; b <= 3; b++ {
		reg := fmt.Sprintf(`{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://broker%d:9092"],"jmx_port":-1,"port":9092,"host":"broker%d","version":5,"kraftControllerEpoch":-1,"timestamp":"1729500000000"}`, b, b)
		base = append(base, create(fmt.Sprintf("/brokers/ids/%d", b), []byte(reg), zk.FlagEphemeral))
	}
	c.multi(base)

	// jobs are sequences of multi requests; the jobs are independent.
	var jobs [][][]any
	var batch []any
	for _, tp := range topics {
		dir := znode.TopicsPath + "/" + tp.name
		id, _ := znode.ParseUuid("cDz3VdoFSamPyu3jZ-Vh0w")
		assignment := znode.Topic{ID: id, Partitions: map[int32]znode.ReplicaAssignment{}}
		for p := range tp.stamps {
			assignment.Partitions[int32(p)] = znode.ReplicaAssignment{Replicas: []int32{1, 2, 3}}
		}
		ops := []any{
			create(dir, assignment.Encode(), 0),
			create(dir+"/partitions", nil, 0),
		}
		for p, stamp := range tp.stamps {
			st := znode.PartitionState{ControllerEpoch: stamp, Leader: int32(p%3 + 1), LeaderEpoch: 4, ISR: []int32{1, 2, 3}}
			ops = append(ops, create(fmt.Sprintf("%s/partitions/%d", dir, p), nil, 0),
				create(znode.PartitionStatePath(tp.name, int32(p)), st.Encode(), 0))
		}
		if len(ops) > multiBatch {
			var seq [][]any
			for len(ops) > 0 {
				n := min(multiBatch, len(ops))
				seq, ops = append(seq, ops[:n]), ops[n:]
			}
			jobs = append(jobs, seq)
			continue
		}
		if len(batch)+len(ops) > multiBatch {
			jobs = append(jobs, [][]any{batch})
			batch = nil
		}
		batch = append(batch, ops...)
	}
	if len(batch) > 0 {
		jobs = append(jobs, [][]any{batch})
	}
	err := inWorkers(len(jobs), seedWorkers, func(i int) error {
		for _, ops := range jobs[i] {
			if _, err := c.admin.Multi(ops...); err != nil {
				return fmt.Errorf("multi of %d creates: %w", len(ops), err)
			}
		}
		return nil
	})
	if err != nil {
		c.t.Fatalf("seed: %v", err)
	}
	// Elections leave /controller_epoch at version equal to its value.
	for e := int32(1); e <= epoch; e++ {
		if _, err := c.admin.Set(c.root+znode.ControllerEpochPath, znode.EncodeControllerEpoch(e), -1); err != nil {
			c.t.Fatal(err)
		}
	}
}

func (c *cluster) multi(ops []any) {
	c.t.Helper()
	if _, err := c.admin.Multi(ops...); err != nil {
		c.t.Fatalf("seed: multi of %d creates: %v", len(ops), err)
	}
}

// zkController registers ZooKeeper-mode broker id as controller,
// ephemeral, as a ZooKeeper-mode controller does.
func (c *cluster) zkController(id int32) {
	c.t.Helper()
	ctl := znode.Controller{Version: 2, BrokerID: id, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	c.create(znode.ControllerPath, ctl.Encode(), zk.FlagEphemeral)
}

// kraftController registers KRaft controller id with epoch, persistent,
// as a KRaft controller does during a migration.
func (c *cluster) kraftController(id, epoch int32) {
	c.t.Helper()
	ctl := znode.Controller{Version: 2, BrokerID: id, Timestamp: 1729500000000, KRaftControllerEpoch: epoch}
	c.create(znode.ControllerPath, ctl.Encode(), 0)
}

// migration creates /migration holding data (nil for null data).
func (c *cluster) migration(data []byte) {
	c.t.Helper()
	c.create(znode.MigrationPath, data, 0)
}

// checkpoint is a /migration as a KRaft controller in dual-write leaves it.
func checkpoint(offset int64, id, epoch int32) []byte {
	return znode.Migration{KRaftMetadataOffset: offset, KRaftControllerID: id, KRaftMetadataEpoch: epoch, KRaftControllerEpoch: epoch}.Encode()
}

// wantCode fails unless r exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
}

// wantOutput fails unless r's stdout holds each of subs.
func wantOutput(t *testing.T, r result, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.stdout, s) {
			t.Fatalf("stdout lacks %q:\n%s", s, r)
		}
	}
}

// unchanged fails unless the znode at path has the data and version it had.
func (c *cluster) unchanged(path string, data []byte, version int32) {
	c.t.Helper()
	got, st := c.get(path)
	if !bytes.Equal(got, data) || (got == nil) != (data == nil) || st.Version != version {
		c.t.Fatalf("%s changed: %q at version %d, was %q at version %d", path, got, st.Version, data, version)
	}
}

// deadline bounds a test's waits.
const deadline = 60 * time.Second
