package dualwrite_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// bigTopic has enough partitions that, with 2 KiB requests, its creation
// spans several transactions.
const bigTopic = "big"

// syncFault is a fault struck while a Sync of several transactions sends
// one in their middle: the one that creates the last partition of
// bigTopic.
type syncFault struct {
	name string
	// arm arms the fault; cancel ends the Sync's context.
	arm func(c *cluster, cancel context.CancelFunc)
	// ends says the Sync fails: a rival's claim fences it, or its context
	// ends.
	fenced, cancelled bool
}

// midSync is the request the faults strike: a transaction after the
// first, with transactions after it.
func midSync(action zktest.Action, then func()) zktest.Fault {
	return zktest.Fault{Action: action, Op: zktest.OpCreate, Path: znode.PartitionStatePath(bigTopic, 59), Then: then}
}

func syncFaults() []syncFault {
	return []syncFault{
		{name: "reply-lost", arm: func(c *cluster, _ context.CancelFunc) { c.faults.Arm(midSync(zktest.DropReply, nil)) }},
		{name: "request-lost", arm: func(c *cluster, _ context.CancelFunc) { c.faults.Arm(midSync(zktest.DropRequest, nil)) }},
		{name: "connection-cut", arm: func(c *cluster, _ context.CancelFunc) { c.faults.Arm(midSync(zktest.CutRequest, nil)) }},
		{name: "session-expired", arm: func(c *cluster, _ context.CancelFunc) {
			id, pw := c.faults.Session()
			c.faults.Arm(midSync(zktest.DropReply, func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if err := zktest.ExpireSession(ctx, c.servers[0], id, pw); err != nil {
					c.t.Error(err)
				}
			}))
		}},
		{name: "rival-claims", fenced: true, arm: func(c *cluster, _ context.CancelFunc) { c.faults.Arm(midSync(zktest.DropRequest, c.rivalClaims)) }},
		{name: "ctx-cancelled", cancelled: true, arm: func(c *cluster, cancel context.CancelFunc) { c.faults.Arm(midSync(zktest.DropRequest, cancel)) }},
	}
}

// syncDesired is the image the fault tests Sync to: changedImage and
// bigTopic.
func syncDesired() dualwrite.Image {
	img := changedImage()
	img.Topics[bigTopic] = topic(bigTopic, 60)
	return img
}

// Fault: reply lost after commit, request lost, connection cut mid
// request, session expired after commit, a rival controller's claim, and
// the caller's context ending, each struck at a transaction in the
// middle of a Sync of several. Where the Sync goes on it converges, the
// checkpoint written once; where it stops, the checkpoint's content is
// unchanged though earlier transactions landed, nothing is written after
// the tenure ended, and the next Sync (the rival's, or the restarted
// controller's) converges.
func TestSyncFaults(t *testing.T) {
	for _, f := range syncFaults() {
		t.Run(f.name, func(t *testing.T) {
			c := newCluster(t).sized(2048)
			s, _ := c.sync(at(c.s, 200), fullImage())
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			f.arm(c, cancel)
			st, rep, err := c.c.Sync(ctx, at(s, 300), syncDesired())
			switch {
			case f.fenced:
				c.afterFenced(err)
			case f.cancelled:
				c.afterCancelled(err, st)
			default:
				if err != nil {
					t.Fatalf("Sync: %v\n%s", err, rep.Plan)
				}
				c.checkState(st)
				c.converged(syncDesired())
			}
		})
	}
}

// stoppedPartway fails unless the Sync stopped after some of its
// transactions landed, and before the fault's: the checkpoint's content
// is the one before the Sync.
func (c *cluster) stoppedPartway() {
	c.t.Helper()
	if _, _, ok := c.get(znode.PartitionStatePath(bigTopic, 0)); !ok {
		c.t.Fatal("no transaction landed before the fault; the test needs one")
	}
	if _, _, ok := c.get(znode.PartitionStatePath(bigTopic, 59)); ok {
		c.t.Fatal("the fault's transaction landed")
	}
	if m := c.migration(); m.KRaftMetadataOffset != 200 || m.KRaftControllerID != 3000 {
		c.t.Fatalf("/migration %+v: a Sync stopped partway moved the checkpoint", m)
	}
}

// afterFenced checks a Sync fenced by the rival's claim mid-way, then
// has the rival Sync.
func (c *cluster) afterFenced(err error) {
	c.t.Helper()
	if !errors.Is(err, migrationzk.ErrFenced) {
		c.t.Fatalf("got %v, want ErrFenced", err)
	}
	c.stoppedPartway()
	_, epoch, _ := c.get("/controller_epoch")
	if last := c.lastZxid(); last > epoch.Mzxid {
		c.t.Fatalf("a write at zxid %#x after the rival's claim at %#x", last, epoch.Mzxid)
	}
	c.faults.ResetCounts()
	if _, _, err := c.c.Sync(testContext(c.t), at(c.s, 301), syncDesired()); !errors.Is(err, migrationzk.ErrRetired) {
		c.t.Fatalf("the fenced writer's next Sync: %v, want ErrRetired", err)
	}
	if n := c.writeRequests(); n != 0 {
		c.t.Fatalf("the retired writer sent %d write requests", n)
	}
	rival := c.restarted(3001, 7)
	rival.sync(at(rival.s, 500), syncDesired())
	c.converged(syncDesired())
	if m := c.migration(); m.KRaftMetadataOffset != 500 || m.KRaftControllerID != 3001 {
		c.t.Fatalf("/migration %+v after the rival's Sync", m)
	}
}

// afterCancelled checks a Sync whose context ended mid-way; the same
// writer's next Sync, from the State returned, then converges, as does a
// restarted controller's after it.
func (c *cluster) afterCancelled(err error, st migrationzk.State) {
	c.t.Helper()
	if !errors.Is(err, context.Canceled) && !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		c.t.Fatalf("got %v, want the context's end", err)
	}
	c.stoppedPartway()
	st, _ = c.sync(at(st, 300), syncDesired())
	c.checkState(st)
	c.converged(syncDesired())
	restarted := c.restarted(3000, 6)
	restarted.faults.ResetCounts()
	if _, rep := restarted.sync(at(restarted.s, 300), syncDesired()); !rep.Plan.Empty() {
		c.t.Fatalf("after converging:\n%s", rep.Plan)
	}
}

// restarted is a controller (id, KRaft epoch) that claims the cluster
// with a Writer on a session of its own, as after a crash or a
// failover: a cluster view sharing c's ZooKeeper, its State that of the
// claim.
func (c *cluster) restarted(id, epoch int32) *cluster {
	c.t.Helper()
	r := *c
	r.faults = zktest.NewFaultDialer(c.t)
	r.conn = connect(c.t, c.servers, r.faults.Dial)
	r.w = must.Get(migrationzk.New(r.conn, migrationzk.WithRoot(c.root), migrationzk.WithMaxRequestBytes(2048)))
	r.c = must.Get(dualwrite.New(r.w))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = id, epoch
	ctx := testContext(c.t)
	var err error
	if s, err = r.w.ClaimLeadership(ctx, s); err != nil {
		c.t.Fatal(err)
	}
	if r.s, _, err = r.w.GetOrCreate(ctx, s); err != nil {
		c.t.Fatal(err)
	}
	// GetOrCreate returns the checkpoint ZooKeeper holds; the controller
	// writes its own id and epoch with the next one, as Kafka's does.
	r.s.KRaftControllerID, r.s.KRaftControllerEpoch = id, epoch
	return &r
}

// Fault: the controller stops (its context ends, its request lost) at
// each of several transactions of a Sync, from the first to the last, as
// a crash at any point would leave it. /migration keeps the checkpoint
// before the Sync, and a restarted controller's Sync converges.
func TestSyncResumesFromAnyTransaction(t *testing.T) {
	targets := []string{znode.PartitionStatePath(bigTopic, 0), znode.PartitionStatePath(bigTopic, 25),
		znode.PartitionStatePath(bigTopic, 59), znode.DelegationTokenPath("tok2")}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			c := newCluster(t).sized(2048)
			s, _ := c.sync(at(c.s, 200), fullImage())
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var fired atomic.Bool
			c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpAny, Path: target, Then: func() { fired.Store(true); cancel() }})
			if _, _, err := c.c.Sync(ctx, at(s, 300), syncDesired()); err == nil || !fired.Load() {
				t.Fatalf("Sync: %v, fault fired %v", err, fired.Load())
			}
			if m := c.migration(); m.KRaftMetadataOffset != 200 {
				t.Fatalf("/migration offset %d after a Sync stopped partway", m.KRaftMetadataOffset)
			}
			r := c.restarted(3000, 6)
			r.sync(at(r.s, 300), syncDesired())
			c.converged(syncDesired())
		})
	}
}
