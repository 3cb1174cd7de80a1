// Command dualwrite runs a KRaft controller's dual-write loop against a real
// ZooKeeper while faults are injected, and shows it finishing correctly.
//
// Like a KRaft controller that has become leader during a migration, it
// claims leadership in ZooKeeper, reads or creates /migration, then mirrors
// ten KRaft deltas through package dualwrite (new topics, each with a
// fresh topic id, and a leader change for every partition created
// before), each a dualwrite.Batch: fenced transactions ending in a
// checkpoint. After each batch it prints the committed offset, the offset
// ZooKeeper confirmed and the lag between them.
//
// Meanwhile the connection is cut around chosen transactions: the reply to
// one is dropped after ZooKeeper committed it, another is dropped before it
// reaches ZooKeeper, the server is stopped right after committing a third
// and restarted a moment later, and the session of a fourth is expired.
// At the end the dual-write Client reads the tree back, and
// dualwrite.Diff against the image the deltas built must be empty; the
// checkpoint must be the last one written.
//
// It gets its ZooKeeper from zktest.NewServer: the servers in ZK_SERVERS,
// under a fresh root, or a standalone server started from a local
// installation (as make test does). With ZK_SERVERS the restart is
// replaced by a session expiry, since the server is not ours to stop. It
// removes the znodes it wrote before it exits.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

const (
	batches            = 10
	topicsPerBatch     = 2
	partitionsPerTopic = 4
	// controllerID and kraftEpoch identify the KRaft controller.
	controllerID = 3000
	kraftEpoch   = 7
	// downFor is how long the server stays stopped.
	downFor = 1500 * time.Millisecond
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := runMain(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dualwrite:", err)
		os.Exit(1)
	}
}

// runMain gets a ZooKeeper, runs the demo against it and releases it.
func runMain(ctx context.Context, out io.Writer) (err error) {
	srv, err := zktest.NewServer()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()
	return run(ctx, out, srv)
}

// demo is the state of one run.
type demo struct {
	out    io.Writer
	root   string
	admin  *zk.Conn // the operator's session: seeds and verifies
	faults *zktest.FaultDialer
	conn   *zk.Conn // the controller's session, through faults
	srv    *zktest.Server

	w         *migrationzk.Writer
	c         *dualwrite.Client
	committed atomic.Int64
	// want is the image the deltas build, as KRaft's metadata image
	// would hold it.
	want dualwrite.Image
	// restartErr is set when a restart in the background fails.
	restartErr atomic.Pointer[error]
	// restarting tracks the restart in the background.
	restarting sync.WaitGroup
}

// run runs the demo under a fresh root on srv and removes the root when
// it is done.
func run(ctx context.Context, out io.Writer, srv *zktest.Server) (err error) {
	d := &demo{out: out, root: srv.Path(fmt.Sprintf("/dualwrite-%d", time.Now().UnixNano())), srv: srv,
		want: dualwrite.NewImage(), faults: zktest.NewFaultDialer(nil)}
	if d.admin, err = zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout); err != nil {
		return err
	}
	defer d.admin.Close()
	if d.conn, err = zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithZKOptions(d.faults.Option())); err != nil {
		return err
	}
	defer d.conn.Close()
	defer func() { err = errors.Join(err, d.removeTree()) }()
	defer d.restarting.Wait()
	if err := d.seed(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintf(out, "ZooKeeper at %s, cluster under %s: a ZooKeeper-mode controller (broker 1) and /controller_epoch 1.\n\n",
		strings.Join(srv.Servers, ","), d.root)

	if d.w, err = migrationzk.New(d.conn, migrationzk.WithRoot(d.root)); err != nil {
		return err
	}
	if d.c, err = dualwrite.New(d.w); err != nil {
		return err
	}
	if err := d.w.CreateTopLevelPaths(ctx); err != nil {
		return fmt.Errorf("create Kafka's persistent paths: %w", err)
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataEpoch = controllerID, kraftEpoch, kraftEpoch
	if s, err = d.w.ClaimLeadership(ctx, s); err != nil {
		return fmt.Errorf("claim leadership: %w", err)
	}
	fmt.Fprintf(out, "KRaft controller %d (epoch %d) claimed leadership: /controller_epoch %d at version %d fences every write.\n",
		controllerID, kraftEpoch, s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
	if s, _, err = d.w.GetOrCreate(ctx, s); err != nil {
		return fmt.Errorf("read or create /migration: %w", err)
	}
	fmt.Fprintf(out, "/migration at version %d, offset %d.\n\n", s.MigrationZkVersion, s.KRaftMetadataOffset)

	for b := 1; b <= batches; b++ {
		if s, err = d.batch(ctx, b, s); err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
	}
	if err := d.verify(ctx, s); err != nil {
		return err
	}
	if f := d.faults.Unfired(); len(f) > 0 {
		return fmt.Errorf("faults never fired: %v", f)
	}
	return nil
}

// removeTree deletes the demo's cluster from ZooKeeper.
func (d *demo) removeTree() error {
	if err := zktest.DeleteAll(d.admin, d.root); err != nil {
		return fmt.Errorf("remove %s: %w", d.root, err)
	}
	return nil
}

// seed lays out a cluster in ZooKeeper mode: /controller_epoch at 1, a
// ZooKeeper-mode broker as controller, and /brokers/topics.
func (d *demo) seed() error {
	acl := zk.WorldACL(zk.PermAll)
	ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: time.Now().UnixMilli(), KRaftControllerEpoch: -1}
	_, err := d.admin.Multi(
		&zk.CreateRequest{Path: d.root, Acl: acl},
		&zk.CreateRequest{Path: d.root + "/brokers", Acl: acl},
		&zk.CreateRequest{Path: d.root + znode.TopicsPath, Acl: acl},
		&zk.CreateRequest{Path: d.root + znode.ControllerEpochPath, Data: znode.EncodeControllerEpoch(1), Acl: acl},
		&zk.CreateRequest{Path: d.root + znode.ControllerPath, Data: ctl.Encode(), Acl: acl, Flags: zk.FlagEphemeral},
	)
	return err
}

// delta fills batch b with KRaft delta number b: a leader change for
// every partition created before, and topicsPerBatch new topics, each
// with a fresh topic id. It returns how many records the delta is.
func (d *demo) delta(b int, batch *dualwrite.Batch) (created, moved int) {
	for _, name := range slices.Sorted(maps.Keys(d.want.Topics)) {
		t := d.want.Topics[name]
		states := map[int32]dualwrite.PartitionState{}
		for id, p := range t.Partitions {
			p.State.Leader = p.State.Leader%3 + 1
			p.State.LeaderEpoch++
			p.State.ISR = []int32{p.State.Leader, p.State.Leader%3 + 1}
			t.Partitions[id], states[id] = p, p.State
		}
		batch.UpdatePartitions(name, states)
		moved += len(states)
	}
	for i := 0; i < topicsPerBatch; i++ {
		t := dualwrite.Topic{Name: fmt.Sprintf("events-%02d-%d", b, i), ID: znode.NewUuid(), Partitions: map[int32]dualwrite.Partition{}}
		for p := int32(0); p < partitionsPerTopic; p++ {
			replicas := []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
			t.Partitions[p] = dualwrite.Partition{Replicas: replicas, State: dualwrite.PartitionState{Leader: replicas[0], LeaderEpoch: int32(b - 1), ISR: replicas}}
		}
		batch.CreateTopic(t)
		d.want.Topics[t.Name] = t
		created++
	}
	return created, moved
}

// fault arms the fault for batch b and says what it is, or "".
func (d *demo) fault(b int) string {
	migration := d.root + znode.MigrationPath
	switch b {
	case 3:
		d.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: migration})
		return "the reply was dropped after ZooKeeper committed the transaction"
	case 5:
		d.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: migration})
		return "the transaction was dropped before it reached ZooKeeper"
	case 7:
		// Root is empty exactly for a server zktest started, which can
		// be stopped; ZK_SERVERS gives a shared one under a root.
		if d.srv.Root != "" {
			d.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: migration, Then: d.expire})
			return "the session was expired right after ZooKeeper committed the transaction (ZK_SERVERS: no restart)"
		}
		d.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: migration, Then: d.restart})
		return fmt.Sprintf("ZooKeeper was stopped right after committing the transaction and restarted %v later", downFor)
	case 9:
		d.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: migration, Then: d.expire})
		return "the session was expired right after ZooKeeper committed the transaction"
	}
	return ""
}

// restart stops the server and starts it again downFor later, in the
// background: it runs on the client's I/O goroutine.
func (d *demo) restart() {
	if err := d.srv.Stop(); err != nil {
		d.restartErr.Store(&err)
		return
	}
	d.restarting.Add(1)
	go func() {
		defer d.restarting.Done()
		time.Sleep(downFor)
		if err := d.srv.Restart(); err != nil {
			d.restartErr.Store(&err)
		}
	}()
}

// expire ends the controller's session from outside.
func (d *demo) expire() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, password := d.faults.Session()
	if err := zktest.ExpireSession(ctx, d.srv.Addr(), id, password); err != nil {
		d.restartErr.Store(&err)
	}
}

// batch mirrors delta b and checkpoints it.
func (d *demo) batch(ctx context.Context, b int, s migrationzk.State) (migrationzk.State, error) {
	batch := d.c.Batch()
	created, moved := d.delta(b, batch)
	// The KRaft controller committed one record per topic and per
	// partition change to its log.
	offset := d.committed.Add(int64(created + moved))
	lagBefore := d.lag()
	fault := d.fault(b)
	start := time.Now()
	s.KRaftMetadataOffset = offset
	next, results, err := batch.Apply(ctx, s)
	if p := d.restartErr.Load(); p != nil {
		return s, fmt.Errorf("injecting the fault: %w", *p)
	}
	if err != nil {
		return next, err
	}
	if err := migrationzk.OpErrors(results); err != nil {
		return next, err
	}
	how := "ok"
	if next.Recovered {
		how = "recovered"
	}
	fmt.Fprintf(d.out, "batch %2d/%d: %d topics created, %2d leaders moved, %3d writes, checkpoint offset %3d: %s at /migration version %2d in %v; committed %d, confirmed %d, lag %d (was %d)\n",
		b, batches, created, moved, len(results), offset, how, next.MigrationZkVersion, time.Since(start).Round(time.Millisecond),
		d.committed.Load(), d.w.ConfirmedOffset(), d.lag(), lagBefore)
	if fault != "" {
		fmt.Fprintf(d.out, "           fault: %s\n", fault)
	}
	return next, nil
}

// lag is the write-behind lag: committed minus confirmed offset.
func (d *demo) lag() int64 {
	if l := d.committed.Load() - d.w.ConfirmedOffset(); l > 0 {
		return l
	}
	return 0
}

// verify reads the tree back through the dual-write Client: it must hold
// what the deltas built, and the last checkpoint.
func (d *demo) verify(ctx context.Context, s migrationzk.State) error {
	got, err := d.c.Read(ctx, nil)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	if plan := dualwrite.Diff(got, d.want); !plan.Empty() {
		return fmt.Errorf("ZooKeeper does not hold what was written:\n%s", plan)
	}
	data, st, err := d.admin.Get(d.root + znode.MigrationPath)
	if err != nil {
		return err
	}
	m, err := znode.DecodeMigration(data)
	if err != nil {
		return err
	}
	if m.KRaftMetadataOffset != d.committed.Load() || st.Version != s.MigrationZkVersion {
		return errors.New("the checkpoint in ZooKeeper is not the last one written")
	}
	partitions, ids := 0, map[znode.Uuid]bool{}
	for _, t := range got.Topics {
		partitions += len(t.Partitions)
		ids[t.ID] = true
	}
	stats := d.w.Stats()
	fmt.Fprintf(d.out, "\nZooKeeper holds all %d topics (%d distinct topic ids) and %d partition states as written, and the checkpoint at offset %d (version %d): nothing lost, never stuck.\n",
		len(got.Topics), len(ids), partitions, m.KRaftMetadataOffset, st.Version)
	fmt.Fprintf(d.out, "%d write calls (%d recovered), %d write requests, %d retries, %d lost acknowledgements recovered.\n",
		stats.OK+stats.Recovered+stats.Conflicts+stats.Fenced+stats.Errors, stats.Recovered, stats.Attempts, stats.Retries, stats.LostAcks)
	return nil
}
