package dualwrite_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestMain runs the package's tests against one ZooKeeper, each test
// under a root of its own (newRoot): the ensemble ZK_SERVERS names, or a
// server started for the package. Without one, zktest.Start decides for
// each test (a skip, or a failure with ZKWRITER_REQUIRE_ZK=1).
func TestMain(m *testing.M) { os.Exit(runOnSharedServer(m)) }

// shared is the ZooKeeper the package's tests share, with a session that
// makes and removes their roots under a parent of this run's own; servers
// is nil when there is none.
var shared struct {
	servers []string
	conn    *zk.Conn
	parent  string
}

func runOnSharedServer(m *testing.M) int {
	servers := strings.Split(os.Getenv(zktest.EnvServers), ",")
	if servers[0] == "" {
		srv, err := zktest.NewServer()
		if err != nil {
			return m.Run()
		}
		defer srv.Close()
		servers = srv.Servers
	}
	conn, err := dial(servers, nil)
	if err != nil {
		return m.Run()
	}
	defer conn.Close()
	parent := fmt.Sprintf("/dualwrite-tests-%d-%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Create(parent, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		fmt.Fprintf(os.Stderr, "create %s: %v\n", parent, err)
		return 1
	}
	defer zktest.DeleteAll(conn, parent)
	shared.servers, shared.conn, shared.parent = servers, conn, parent
	return m.Run()
}

// dial connects a client with zkconn.Connect, through dialer when set,
// and waits up to 30s for its session.
func dial(servers []string, dialer zk.Dialer) (*zk.Conn, error) {
	var opts []func(*zk.Conn)
	if dialer != nil {
		opts = append(opts, zk.WithDialer(dialer))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return zkconn.Open(ctx, servers, zktest.SessionTimeout, zkconn.WithZKOptions(opts...))
}

// connect is dial for a test, closed when it ends.
func connect(t *testing.T, servers []string, dialer zk.Dialer) *zk.Conn {
	t.Helper()
	conn, err := dial(servers, dialer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

var roots atomic.Int64

// newRoot returns the servers and a fresh root for t, removed when t
// ends.
func newRoot(t *testing.T) (servers []string, root string) {
	t.Helper()
	if shared.servers == nil {
		srv := zktest.Start(t)
		return srv.Servers, srv.Root
	}
	root = fmt.Sprintf("%s/%d", shared.parent, roots.Add(1))
	if _, err := shared.conn.Create(root, []byte(t.Name()), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create %s: %v", root, err)
	}
	t.Cleanup(func() {
		if err := zktest.DeleteAll(shared.conn, root); err != nil {
			t.Errorf("remove %s: %v", root, err)
		}
	})
	return shared.servers, root
}

// cluster is a test's ZooKeeper laid out as Kafka leaves it when a
// migration starts, under a root of its own, with a Writer that claimed
// leadership as KRaft controller 3000 with epoch 5.
type cluster struct {
	t       *testing.T
	servers []string
	faults  *zktest.FaultDialer
	conn    *zk.Conn // the writer's, through faults
	admin   *zk.Conn // a second session: the test's eyes, and rivals
	root    string
	w       *migrationzk.Writer
	c       *dualwrite.Client
	s       migrationzk.State
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	servers, root := newRoot(t)
	c := &cluster{t: t, servers: servers, faults: zktest.NewFaultDialer(t), root: root + "/kafka"}
	c.conn = connect(t, servers, c.faults.Dial)
	c.admin = connect(t, servers, nil)
	c.start()
	return c
}

// newTLSCluster is newCluster under a fresh root on srv, a server with
// security options, such as TLS only or SASL, that both clients use. The
// FaultDialer wraps srv's dialer (TLS's: it sits on the clear side) and
// sees ZooKeeper's frames.
func newTLSCluster(t *testing.T, srv *zktest.Server) *cluster {
	t.Helper()
	root := fmt.Sprintf("%s/%d", srv.Root, roots.Add(1))
	c := &cluster{t: t, servers: srv.Servers, faults: zktest.NewFaultDialer(t), root: root + "/kafka"}
	c.faults.Dialer = srv.Dialer()
	c.conn = srv.ConnectWith(t, zkconn.WithDialer(c.faults.Dial))
	c.admin = srv.Connect(t)
	if _, err := c.admin.Create(root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create %s: %v", root, err)
	}
	c.start()
	return c
}

// start lays the cluster's root out and claims leadership as KRaft
// controller 3000 with epoch 5.
func (c *cluster) start() {
	t := c.t
	t.Helper()
	c.w = must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(c.root)))
	ctx := testContext(t)
	if err := c.w.CreateTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	c.setEpoch(1)
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 3000, 5, 100, 5
	var err error
	if s, err = c.w.ClaimLeadership(ctx, s); err != nil {
		t.Fatal(err)
	}
	if c.s, _, err = c.w.GetOrCreate(ctx, s); err != nil {
		t.Fatal(err)
	}
	c.c = must.Get(dualwrite.New(c.w))
}

// setEpoch creates /controller_epoch holding epoch, as a ZooKeeper-mode
// cluster has it.
func (c *cluster) setEpoch(epoch int32) {
	c.t.Helper()
	if _, err := c.admin.Create(c.p("/controller_epoch"), znode.EncodeControllerEpoch(epoch), 0, zk.WorldACL(zk.PermAll)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) p(path string) string { return c.root + path }

// at returns s with the checkpoint moved to offset.
func at(s migrationzk.State, offset int64) migrationzk.State {
	s.KRaftMetadataOffset = offset
	return s
}

// get reads path through the test's session, after a sync; data is nil
// and ok false for a missing znode.
func (c *cluster) get(path string) (data []byte, st *zk.Stat, ok bool) {
	c.t.Helper()
	if _, err := c.admin.Sync(c.p(path)); err != nil && !errors.Is(err, zk.ErrNoNode) {
		c.t.Fatal(err)
	}
	data, st, err := c.admin.Get(c.p(path))
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil, false
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return data, st, true
}

// children lists path's children, sorted; nil when it is missing.
func (c *cluster) children(path string) []string {
	c.t.Helper()
	names, _, err := c.admin.Children(c.p(path))
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// notifications returns the data of each child of parent named with
// prefix, in the order of their names.
func (c *cluster) notifications(parent, prefix string) []string {
	c.t.Helper()
	var out []string
	for _, n := range c.children(parent) {
		if strings.HasPrefix(n, prefix) {
			data, _, _ := c.get(parent + "/" + n)
			out = append(out, string(data))
		}
	}
	return out
}

// checkState fails unless s carries the /migration version ZooKeeper
// holds and its offset.
func (c *cluster) checkState(s migrationzk.State) {
	c.t.Helper()
	data, st, ok := c.get("/migration")
	m, err := znode.DecodeMigration(data)
	if !ok || err != nil || st.Version != s.MigrationZkVersion || m.KRaftMetadataOffset != s.KRaftMetadataOffset {
		c.t.Fatalf("/migration %s at version %v (%v); state says offset %d version %d", data, st, err, s.KRaftMetadataOffset, s.MigrationZkVersion)
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// topic returns a topic with n partitions of three replicas.
func topic(name string, n int) dualwrite.Topic {
	t := dualwrite.Topic{Name: name, ID: znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: 0x0fedcba987654321}, Partitions: map[int32]dualwrite.Partition{}}
	for p := int32(0); p < int32(n); p++ {
		r := []int32{1 + p%3, 1 + (p+1)%3, 1 + (p+2)%3}
		t.Partitions[p] = dualwrite.Partition{Replicas: r, State: dualwrite.PartitionState{Leader: r[0], LeaderEpoch: 0, ISR: r}}
	}
	return t
}

// in returns c reporting to t, for a subtest sharing c's ZooKeeper.
func (c *cluster) in(t *testing.T) *cluster {
	cc := *c
	cc.t = t
	return &cc
}

// stored is what the tests compare of a znode: its data and its version.
type stored struct {
	data    string
	version int32
}

// tree returns every znode under the cluster's root, by path relative to
// the root ("/" for the root), read after a sync.
func (c *cluster) tree() map[string]stored {
	c.t.Helper()
	if _, err := c.admin.Sync(c.root); err != nil {
		c.t.Fatal(err)
	}
	out := map[string]stored{}
	c.walk("", out)
	return out
}

func (c *cluster) walk(rel string, out map[string]stored) {
	c.t.Helper()
	data, st, err := c.admin.Get(c.root + rel)
	if err != nil {
		c.t.Fatalf("read %s: %v", rel, err)
	}
	key := rel
	if key == "" {
		key = "/"
	}
	out[key] = stored{data: string(data), version: st.Version}
	names, _, err := c.admin.Children(c.root + rel)
	if err != nil {
		c.t.Fatalf("list %s: %v", rel, err)
	}
	for _, n := range names {
		c.walk(rel+"/"+n, out)
	}
}

// diffTrees lists, sorted, the znodes where got differs from want, but
// for the paths in ignore.
func diffTrees(want, got map[string]stored, ignore ...string) []string {
	skip := map[string]bool{}
	for _, p := range ignore {
		skip[p] = true
	}
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !skip[p] && (!ok || g != w) {
			diffs = append(diffs, fmt.Sprintf("%s: want %q at version %d, got %q at version %d (present %v)", p, w.data, w.version, g.data, g.version, ok))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !skip[p] && !ok {
			diffs = append(diffs, fmt.Sprintf("%s: unexpected %q at version %d", p, g.data, g.version))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// sameTree fails unless got equals want but for the paths in ignore.
func (c *cluster) sameTree(what string, want, got map[string]stored, ignore ...string) {
	c.t.Helper()
	if d := diffTrees(want, got, ignore...); len(d) > 0 {
		c.t.Fatalf("%s: ZooKeeper differs in %d znode(s):\n\t%s", what, len(d), strings.Join(d, "\n\t"))
	}
}

// writeRequests counts the requests that change ZooKeeper the writer's
// session sent since the last ResetCounts.
func (c *cluster) writeRequests() int64 {
	f := c.faults
	return f.Count(zktest.OpCreate) + f.Count(zktest.OpDelete) + f.Count(zktest.OpSetData) + f.Count(zktest.OpMulti)
}

// raiseEpoch is a ZooKeeper-mode rival elected controller: it bumps
// /controller_epoch through the test's own session. It may run in a
// fault's Then hook, so it reports with t.Error.
func (c *cluster) raiseEpoch() {
	data, _, err := c.admin.Get(c.p("/controller_epoch"))
	if err == nil {
		var epoch int32
		if epoch, err = znode.DecodeControllerEpoch(data); err == nil {
			_, err = c.admin.Set(c.p("/controller_epoch"), znode.EncodeControllerEpoch(epoch+1), -1)
		}
	}
	if err != nil {
		c.t.Errorf("rival: raise /controller_epoch: %v", err)
	}
}

// rivalClaims is another KRaft controller (3001, KRaft epoch 6) taking
// over with a Writer of its own on the test's session. It may run in a
// fault's Then hook, so it reports with t.Error.
func (c *cluster) rivalClaims() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3001, 6
	if _, err := must.Get(migrationzk.New(c.admin, migrationzk.WithRoot(c.root))).ClaimLeadership(ctx, s); err != nil {
		c.t.Errorf("rival: claim: %v", err)
	}
}

// checkFenced fails unless err says the writer was fenced, ZooKeeper is as
// it was before the call but for the rival's claim, and the writer is
// retired: its next call writes nothing either.
func (c *cluster) checkFenced(err error, before map[string]stored) {
	c.t.Helper()
	if !errors.Is(err, migrationzk.ErrFenced) {
		c.t.Fatalf("got %v, want ErrFenced", err)
	}
	c.sameTree("after the fenced call", before, c.tree(), "/controller_epoch", "/controller")
	if retired, _ := c.w.Retired(); !retired {
		c.t.Fatal("the fenced writer is not retired")
	}
	c.faults.ResetCounts()
	if _, err := c.c.WriteProducerID(testContext(c.t), at(c.s, 999), 123000); !errors.Is(err, migrationzk.ErrRetired) {
		c.t.Fatalf("next call on the fenced writer: %v, want ErrRetired", err)
	}
	if n := c.writeRequests(); n != 0 {
		c.t.Fatalf("the retired writer sent %d write requests", n)
	}
}

// create creates path holding data through the test's session, as a
// ZooKeeper-mode broker or an operator would have.
func (c *cluster) create(path string, data []byte) {
	c.t.Helper()
	if _, err := c.admin.Create(c.p(path), data, 0, zk.WorldACL(zk.PermAll)); err != nil {
		c.t.Fatalf("create %s: %v", path, err)
	}
}

// config decodes the config znode at path.
func (c *cluster) config(path string) znode.Config {
	c.t.Helper()
	data, _, ok := c.get(path)
	cfg, err := znode.DecodeConfig(data)
	if !ok || err != nil {
		c.t.Fatalf("%s: %q (present %v): %v", path, data, ok, err)
	}
	return cfg
}

// version returns the znode version of path, -1 when it is missing.
func (c *cluster) version(path string) int32 {
	c.t.Helper()
	if _, st, ok := c.get(path); ok {
		return st.Version
	}
	return -1
}

// wantVersion fails unless s carries /migration version want and
// ZooKeeper holds it.
func (c *cluster) wantVersion(s migrationzk.State, want int32) {
	c.t.Helper()
	if s.MigrationZkVersion != want {
		c.t.Fatalf("/migration version %d, want %d", s.MigrationZkVersion, want)
	}
	c.checkState(s)
}

// czxid returns the zxid of the transaction that created path.
func (c *cluster) czxid(path string) int64 {
	c.t.Helper()
	_, st, ok := c.get(path)
	if !ok {
		c.t.Fatalf("%s does not exist", path)
	}
	return st.Czxid
}

// mzxid returns the zxid of the transaction that last set path.
func (c *cluster) mzxid(path string) int64 {
	c.t.Helper()
	_, st, ok := c.get(path)
	if !ok {
		c.t.Fatalf("%s does not exist", path)
	}
	return st.Mzxid
}

// Fixtures the tests share.
var (
	brokerOne  = dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}
	aliceQuota = dualwrite.QuotaEntity{User: "alice"}
	literalFoo = dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "foo", PatternType: znode.PatternLiteral}
	prefixBar  = dualwrite.ResourcePattern{Type: znode.ResourceTopic, Name: "bar-", PatternType: znode.PatternPrefixed}
	readAll    = []znode.ACLEntry{{Principal: "User:alice", PermissionType: znode.PermissionAllow, Operation: znode.OperationRead, Host: "*"}}
	token      = znode.DelegationToken{TokenID: "tok1", Owner: "User:alice", TokenRequester: "User:alice",
		Renewers: []string{"User:bob"}, IssueTimestamp: 0, MaxTimestamp: 100, ExpiryTimestamp: 1000}
	credential = znode.ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 8192}
)

// topicBytes is the topic znode of t.
func topicBytes(t dualwrite.Topic) []byte {
	z := znode.Topic{ID: t.ID, Partitions: map[int32]znode.ReplicaAssignment{}}
	for id, p := range t.Partitions {
		z.Partitions[id] = znode.ReplicaAssignment{Replicas: p.Replicas}
	}
	return z.Encode()
}

// sortedPartitions returns t's partition ids in ascending order.
func sortedPartitions(t dualwrite.Topic) []int32 {
	return slices.Sorted(maps.Keys(t.Partitions))
}
