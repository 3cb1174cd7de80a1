package dualwrite_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// cluster is a test's ZooKeeper laid out as Kafka leaves it when a
// migration starts, under a root of its own, with a Writer that claimed
// leadership as KRaft controller 3000 with epoch 5.
type cluster struct {
	t      *testing.T
	srv    *zktest.Server
	faults *zktest.FaultDialer
	conn   *zk.Conn // the writer's, through faults
	admin  *zk.Conn // a second session: the test's eyes, and rivals
	root   string
	w      *migrationzk.Writer
	c      *dualwrite.Client
	s      migrationzk.State
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	srv := zktest.Start(t)
	c := &cluster{t: t, srv: srv, faults: zktest.NewFaultDialer(t), root: srv.Path("/kafka")}
	c.conn = srv.Connect(t, c.faults.Option())
	c.admin = srv.Connect(t)
	c.w = migrationzk.New(c.conn, migrationzk.WithRoot(c.root))
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
	if c.s, err = c.w.GetOrCreate(ctx, s); err != nil {
		t.Fatal(err)
	}
	c.c = dualwrite.New(c.w)
	return c
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
