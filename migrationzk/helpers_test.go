package migrationzk_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

var worldACL = zk.WorldACL(zk.PermAll)

// cluster is a test's ZooKeeper laid out as Kafka leaves it when a
// migration starts: /controller_epoch, a ZooKeeper-mode controller and the
// topics tree, under the test's root.
type cluster struct {
	t      *testing.T
	srv    *zktest.Server
	faults *zktest.FaultDialer
	conn   *zk.Conn // dials through faults
	admin  *zk.Conn // a second session: the rival, and the test's eyes
	root   string
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	srv := zktest.Start(t)
	c := &cluster{t: t, srv: srv, faults: zktest.NewFaultDialer(t), root: srv.Root}
	c.conn = srv.Connect(t, c.faults.Option())
	c.admin = srv.Connect(t)
	c.seed()
	return c
}

// seed creates /controller_epoch at epoch 1 and version 0, a ZooKeeper-mode
// controller (broker 1, ephemeral), and /brokers/topics.
func (c *cluster) seed() {
	c.t.Helper()
	c.create("/controller_epoch", znode.EncodeControllerEpoch(1))
	ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	if _, err := c.admin.Create(c.p("/controller"), ctl.Encode(), zk.FlagEphemeral, worldACL); err != nil {
		c.t.Fatal(err)
	}
	c.create("/brokers", nil)
	c.create("/brokers/topics", nil)
}

func (c *cluster) p(path string) string { return c.root + path }

// stopServer stops the server. It may run on any goroutine, such as a
// fault's Then hook: it reports a failure with t.Error.
func (c *cluster) stopServer() {
	if err := c.srv.Stop(); err != nil {
		c.t.Errorf("stop the server: %v", err)
	}
}

// restartServer restarts the server stopped or killed before.
func (c *cluster) restartServer() {
	c.t.Helper()
	if err := c.srv.Restart(); err != nil {
		c.t.Fatalf("restart the server: %v", err)
	}
}

func (c *cluster) create(path string, data []byte) {
	c.t.Helper()
	if _, err := c.admin.Create(c.p(path), data, 0, worldACL); err != nil {
		c.t.Fatalf("create %s: %v", path, err)
	}
}

func (c *cluster) writer(opts ...migrationzk.Option) *migrationzk.Writer {
	return must.Get(migrationzk.New(c.conn, append([]migrationzk.Option{migrationzk.WithRoot(c.root)}, opts...)...))
}

// get reads a znode through the admin session, after a sync.
func (c *cluster) get(path string) ([]byte, *zk.Stat) {
	c.t.Helper()
	if _, err := c.admin.Sync(c.p(path)); err != nil && !errors.Is(err, zk.ErrNoNode) {
		c.t.Fatalf("sync: %v", err)
	}
	data, st, err := c.admin.Get(c.p(path))
	if err != nil {
		c.t.Fatalf("get %s: %v", path, err)
	}
	return data, st
}

func (c *cluster) exists(path string) bool {
	c.t.Helper()
	ok, _, err := c.admin.Exists(c.p(path))
	if err != nil {
		c.t.Fatal(err)
	}
	return ok
}

func (c *cluster) migration() (znode.Migration, int32) {
	c.t.Helper()
	data, st := c.get("/migration")
	m, err := znode.DecodeMigration(data)
	if err != nil {
		c.t.Fatalf("decode /migration: %v", err)
	}
	return m, st.Version
}

// kraft is the state of a KRaft controller (id 3000, epoch 5) about to
// take over.
func kraft() migrationzk.State {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, 5
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 100, 5
	return s
}

// start claims leadership and reads or creates /migration, as a KRaft
// controller does when it becomes leader.
func (c *cluster) start(w *migrationzk.Writer) migrationzk.State {
	c.t.Helper()
	ctx := testContext(c.t)
	s, err := w.ClaimLeadership(ctx, kraft())
	if err != nil {
		c.t.Fatalf("ClaimLeadership: %v", err)
	}
	s, _, err = w.GetOrCreate(ctx, s)
	if err != nil {
		c.t.Fatalf("GetOrCreate: %v", err)
	}
	return s
}

// checkMatches fails unless s carries the /migration version and content
// ZooKeeper holds.
func (c *cluster) checkMatches(s migrationzk.State) {
	c.t.Helper()
	m, v := c.migration()
	if v != s.MigrationZkVersion {
		c.t.Fatalf("state has /migration version %d, ZooKeeper %d", s.MigrationZkVersion, v)
	}
	if m.KRaftMetadataOffset != s.KRaftMetadataOffset || m.KRaftControllerEpoch != s.KRaftControllerEpoch ||
		m.KRaftControllerID != s.KRaftControllerID || m.KRaftMetadataEpoch != s.KRaftMetadataEpoch {
		c.t.Fatalf("state %+v, ZooKeeper holds %+v", s, m)
	}
}

// tenMoreWrites proves the writer is not stuck: ten checkpoints in a row
// with the returned states land, each at the next version.
func (c *cluster) tenMoreWrites(w *migrationzk.Writer, s migrationzk.State) migrationzk.State {
	c.t.Helper()
	ctx := testContext(c.t)
	for i := 0; i < 10; i++ {
		s.KRaftMetadataOffset++
		next, err := w.Update(ctx, s)
		if err != nil {
			c.t.Fatalf("write %d after recovery: %v", i+1, err)
		}
		if next.MigrationZkVersion != s.MigrationZkVersion+1 || next.Recovered {
			c.t.Fatalf("write %d: version %d (from %d), recovered %v", i+1, next.MigrationZkVersion, s.MigrationZkVersion, next.Recovered)
		}
		s = next
	}
	c.checkMatches(s)
	return s
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func waitSession(t *testing.T, c *zk.Conn) {
	t.Helper()
	if err := zkconn.WaitForSession(testContext(t), c); err != nil {
		t.Fatal(err)
	}
}

// partition returns a partition state op for topic t, partition p.
func partition(topic string, p int32, leaderEpoch int32) migrationzk.Op {
	st := znode.PartitionState{ControllerEpoch: 5, Leader: 1, LeaderEpoch: leaderEpoch, ISR: []int32{1, 2, 3}}
	return migrationzk.Create(znode.PartitionStatePath(topic, p), st.Encode())
}

// topicOps creates a topic with n partitions: the topic znode, its
// partitions node, one node per partition and its state.
func topicOps(topic string, n int) []migrationzk.Op {
	base := znode.TopicsPath + "/" + topic
	ops := []migrationzk.Op{
		migrationzk.Create(base, []byte(`{"partitions":{"0":[1,2,3]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{},"version":3}`)),
		migrationzk.Create(base+"/partitions", nil),
	}
	for p := int32(0); p < int32(n); p++ {
		ops = append(ops, migrationzk.Create(fmt.Sprintf("%s/partitions/%d", base, p), nil), partition(topic, p, 0))
	}
	return ops
}
