package dualwrite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/internal/zkerr"
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
	credential   = znode.ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 8192}
	topicOrders  = dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "orders"}
	bobQuota     = dualwrite.QuotaEntity{User: "bob"}
	clientQuota  = dualwrite.QuotaEntity{ClientID: "app"}
	writeBob     = znode.ACLEntry{Principal: "User:bob", PermissionType: znode.PermissionAllow, Operation: znode.OperationWrite, Host: "*"}
	otherUUID    = znode.Uuid{MostSignificantBits: 1, LeastSignificantBits: 2}
	sha512       = znode.ScramCredential{Salt: []byte("salt2"), StoredKey: []byte("stored2"), ServerKey: []byte("server2"), Iterations: 4096}
	producerNext = znode.MigrationProducerIDBlock(6000)
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

// fullImage returns an image with something of every domain: two topics,
// topic and broker configs, quotas and SCRAM credentials, two ACL sets, a
// delegation token and a producer-id block. Each call returns new maps.
func fullImage() dualwrite.Image {
	img := dualwrite.NewImage()
	img.Topics["orders"] = topic("orders", 2)
	img.Topics["payments"] = topic("payments", 1)
	img.Configs[topicOrders] = map[string]string{"retention.ms": "1000", "cleanup.policy": "compact"}
	img.Configs[brokerOne] = map[string]string{"log.retention.hours": "1"}
	img.ClientQuotas[aliceQuota] = map[string]float64{"producer_byte_rate": 1024}
	img.ClientQuotas[clientQuota] = map[string]float64{"consumer_byte_rate": 2048}
	img.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	img.ACLs[literalFoo] = []znode.ACLEntry{readAll[0], writeBob}
	img.ACLs[prefixBar] = readAll
	img.DelegationTokens["tok1"] = token
	block := producerNext
	img.ProducerIDBlock = &block
	return img
}

// planLines lists a plan's changes as Plan.String prints them, without
// the counts line.
func planLines(p dualwrite.Plan) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(p.String()), "\n") {
		if !strings.HasPrefix(l, "    ") {
			lines = append(lines, l)
		}
	}
	return lines[:len(lines)-1]
}

// editTopic returns a mutation that replaces a topic of an image.
func editTopic(name string, edit func(*dualwrite.Topic)) func(*dualwrite.Image) {
	return func(img *dualwrite.Image) {
		t := img.Topics[name]
		t.Partitions = maps.Clone(t.Partitions)
		edit(&t)
		img.Topics[name] = t
	}
}

// checkJSONRoundTrip checks that p's JSON holds its values, decodes to
// the same changes, and that the decoded plan still cannot be applied.
func checkJSONRoundTrip(t *testing.T, p dualwrite.Plan) {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back dualwrite.Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.String() != p.String() {
		t.Fatalf("decoded plan prints\n%s\nwant\n%s", back, p)
	}
	for i, c := range back.Changes {
		if !reflect.DeepEqual(c.Fields, p.Changes[i].Fields) {
			t.Fatalf("change %d: decoded fields %+v, want %+v", i, c.Fields, p.Changes[i].Fields)
		}
	}
	if err := back.AddTo(&dualwrite.Batch{}); !errors.Is(err, dualwrite.ErrNotPlanned) {
		t.Fatalf("AddTo of a decoded plan: %v, want ErrNotPlanned", err)
	}
}

// createAll creates path holding data, and its missing parents with null
// data, through the test's session.
func (c *cluster) createAll(path string, data []byte) {
	c.t.Helper()
	for i := 1; i < len(path); i++ {
		if path[i] == '/' && c.version(path[:i]) == -1 {
			c.create(path[:i], nil)
		}
	}
	if c.version(path) == -1 {
		c.create(path, data)
	} else if _, err := c.admin.Set(c.p(path), data, -1); err != nil {
		c.t.Fatal(err)
	}
}

// wantData fails unless path holds want, and returns it.
func (c *cluster) wantData(path, want string) []byte {
	c.t.Helper()
	data, _, ok := c.get(path)
	if !ok || string(data) != want {
		c.t.Fatalf("%s holds %q (present %v), want %q", path, data, ok, want)
	}
	return data
}

// Tests named TestKafka... reproduce Kafka 3.9's own expectations of its
// migration clients (ZkMigrationClientTest, ZkConfigMigrationClientTest,
// ZkAclMigrationClientTest, KafkaZkClientTest, ZkMigrationIntegrationTest)
// against a real ZooKeeper. Kafka's harness starts, as newCluster does,
// with /migration at version 0 and a claimed /controller_epoch at version
// 1. Kafka's tests call its migration clients one at a time, each call one
// fenced request per znode; the /migration versions they assert are those
// of one transaction per call, as ours, unless a test's comment says
// otherwise.
//
// Tests named TestDefect... (and TestSyncDefect...) each show one way
// Kafka 3.9's migration clients go wrong, with the Kafka-shaped client
// below, next to the same situation through dualwrite, which must get it
// right. The Kafka-shaped client reproduces the write sequences of Kafka
// 3.9's ZkTopicMigrationClient, ZkConfigMigrationClient,
// ZkAclMigrationClient and ZkMigrationClient, request for request, with
// the raw go-zookeeper client: its requests are here, each domain's
// writes in that domain's test file (kafkaShapedCreateTopic in
// topics_test.go, kafkaShapedWriteConfigs in configs_test.go, and so on).
// Nothing in it is used for anything else.

// kafkaShaped writes as a Kafka 3.9 KRaft controller does: every request
// in its own fenced multi, notifications as plain creates after it. s is
// its in-memory ZkMigrationLeadershipState.
type kafkaShaped struct {
	c    *cluster
	conn *zk.Conn
	s    migrationzk.State
}

// kafkaShapedClient writes through the cluster's writer session from
// state s, which holds the fence the cluster's claim gave.
func (c *cluster) kafkaShapedClient(s migrationzk.State) *kafkaShaped {
	return &kafkaShaped{c: c, conn: c.conn, s: s}
}

// kafkaShapedMulti is one fenced request: [Check /controller_epoch, Check
// /migration, op], or on the call's last request [Check /controller_epoch,
// SetData /migration = s at its version, op]. On the last, the version
// kept is the new one when the SetData succeeded, else the one sent.
func (k *kafkaShaped) kafkaShapedMulti(op any, last bool) error {
	reqs := []any{&zk.CheckVersionRequest{Path: k.c.p("/controller_epoch"), Version: k.s.ZkControllerEpochZkVersion}}
	if last {
		m := znode.Migration{KRaftMetadataOffset: k.s.KRaftMetadataOffset, KRaftControllerID: k.s.KRaftControllerID,
			KRaftMetadataEpoch: k.s.KRaftMetadataEpoch, KRaftControllerEpoch: k.s.KRaftControllerEpoch}
		reqs = append(reqs, &zk.SetDataRequest{Path: k.c.p("/migration"), Data: m.Encode(), Version: k.s.MigrationZkVersion})
	} else {
		reqs = append(reqs, &zk.CheckVersionRequest{Path: k.c.p("/migration"), Version: k.s.MigrationZkVersion})
	}
	res, err := k.conn.Multi(append(reqs, op)...)
	if last && err == nil {
		k.s.MigrationZkVersion = res[1].Stat.Version
	}
	return err
}

// kafkaShapedCreate is a create inside a fenced request, with the ACL of
// an unsecured cluster.
func (k *kafkaShaped) kafkaShapedCreate(p string, data []byte) *zk.CreateRequest {
	return &zk.CreateRequest{Path: k.c.p(p), Data: data, Acl: zk.WorldACL(zk.PermAll)}
}

// kafkaShapedResend sends a plain create until ZooKeeper answers, resent
// unchanged after a lost connection as Kafka's
// retryRequestsUntilConnected resends it.
func (k *kafkaShaped) kafkaShapedResend(p string, data []byte, flags int32, acl []zk.ACL) error {
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		if _, err = k.conn.Create(k.c.p(p), data, flags, acl); !zkerr.Retryable(err) {
			return err
		}
	}
	return err
}

// kafkaShapedCreateRecursive is createRecursive: the path and its missing
// parents, null data, NodeExists taken for success.
func (k *kafkaShaped) kafkaShapedCreateRecursive(p string, acl func(string) []zk.ACL) {
	k.c.t.Helper()
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if err := k.kafkaShapedResend(p[:i], nil, 0, acl(p[:i])); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			k.c.t.Fatalf("createRecursive %s: %v", p[:i], err)
		}
	}
}

// domainRows are one domain's rows of the tables that the checks common to
// every domain run: TestInvalidChangesWriteNothing (invalid and refused),
// TestNewNamesFollowKafka (newNames), TestUndecodableZnodeInTheWay
// (undecodable), TestDiffDomains (diff) and TestDiffShowsValues (values).
// Each domain's test file makes its own (topicRows in topics_test.go, and
// so on); domains lists them all.
type domainRows struct {
	invalid     []invalid
	refused     []namedInvalid
	newNames    []newName
	undecodable []undecodable
	diff        []diffCase
	values      []valuesCase
}

// domains returns the rows of every domain, in the order Read reads them.
func domains() []domainRows {
	return []domainRows{topicRows(), partitionRows(), configRows(), quotaRows(), aclRows(), tokenRows(), producerIDRows()}
}

// everyDomain gathers one table's rows, which rows picks, from every
// domain.
func everyDomain[R any](rows func(domainRows) []R) []R {
	var all []R
	for _, d := range domains() {
		all = append(all, rows(d)...)
	}
	return all
}

// withPartition returns a topic named name with the one partition id.
func withPartition(name string, id int32) dualwrite.Topic {
	return dualwrite.Topic{Name: name, Partitions: map[int32]dualwrite.Partition{id: topic("x", 1).Partitions[0]}}
}
