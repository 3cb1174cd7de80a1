package dualwrite_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// traced makes c's Client report to a trace it returns.
func (c *cluster) traced() *[]dualwrite.TraceEvent {
	var events []dualwrite.TraceEvent
	c.c = must.Get(dualwrite.New(c.w, dualwrite.WithTrace(func(e dualwrite.TraceEvent) { events = append(events, e) })))
	return &events
}

// createTopics creates topics t0..t(n-1) of parts partitions each through
// c's Client, which then remembers them.
func (c *cluster) createTopics(n, parts int) migrationzk.State {
	c.t.Helper()
	s := c.s
	for i := 0; i < n; i++ {
		var err error
		if s, err = c.c.CreateTopic(testContext(c.t), at(s, s.KRaftMetadataOffset+1), topic(fmt.Sprintf("t%d", i), parts)); err != nil {
			c.t.Fatal(err)
		}
	}
	return s
}

// leaderMoves is a delta moving the leader of each partition of topics
// t0..t(n-1) to the next replica, with leader epoch epoch.
func leaderMoves(b *dualwrite.Batch, n, parts int, epoch int32) *dualwrite.Batch {
	for i := 0; i < n; i++ {
		states := map[int32]dualwrite.PartitionState{}
		for p := int32(0); p < int32(parts); p++ {
			r := []int32{1 + p%3, 1 + (p+1)%3, 1 + (p+2)%3}
			states[p] = dualwrite.PartitionState{Leader: r[1], LeaderEpoch: epoch, ISR: r}
		}
		b.UpdatePartitions(fmt.Sprintf("t%d", i), states)
	}
	return b
}

// stateAndVersion reads a partition's state through the test's session.
func (c *cluster) stateAndVersion(topic string, id int32) (znode.PartitionState, int32) {
	c.t.Helper()
	data, st, ok := c.get(znode.PartitionStatePath(topic, id))
	if !ok {
		c.t.Fatalf("%s partition %d has no state", topic, id)
	}
	ps, err := znode.DecodePartitionState(data)
	if err != nil {
		c.t.Fatal(err)
	}
	return ps, st.Version
}

// checkLeaders fails unless every partition of t0..t(n-1) has the leader
// and epoch leaderMoves gave it.
func (c *cluster) checkLeaders(n, parts int, epoch int32) {
	c.t.Helper()
	for i := 0; i < n; i++ {
		for p := int32(0); p < int32(parts); p++ {
			ps, _ := c.stateAndVersion(fmt.Sprintf("t%d", i), p)
			if ps.Leader != 1+(p+1)%3 || ps.LeaderEpoch != epoch {
				c.t.Fatalf("t%d partition %d: leader %d epoch %d, want %d epoch %d", i, p, ps.Leader, ps.LeaderEpoch, 1+(p+1)%3, epoch)
			}
		}
	}
}

// Fault: none. A delta of partitions the Client created is sent as one
// multi, no read, each SetData at the version the create left.
func TestRememberedDeltaSendsOneRequest(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(3, 20)
	c.faults.ResetCounts()
	s, res, err := leaderMoves(c.c.Batch(), 3, 20, 1).Apply(testContext(t), at(s, 500))
	if err != nil {
		t.Fatal(err)
	}
	if n := c.faults.Requests(); n != 1 || c.faults.Count(zktest.OpMulti) != 1 {
		t.Fatalf("%d requests (%v), want one multi", n, c.faults.Counts())
	}
	for _, r := range res {
		if r.Op.Version() != 0 {
			t.Fatalf("%s at version %d, want 0 (what the create left)", r.Op, r.Op.Version())
		}
	}
	c.checkLeaders(3, 20, 1)
	c.checkState(s)
	// The same delta again changes nothing. The digests say so, and
	// since leaving a change out must not rest on memory, a read
	// confirms it: one sync, one wave.
	c.faults.ResetCounts()
	if _, res, err = leaderMoves(c.c.Batch(), 3, 20, 1).Apply(testContext(t), at(s, 501)); err != nil || len(res) != 0 {
		t.Fatalf("repeat: %d ops, %v; want none", len(res), err)
	}
	if c.faults.Count(zktest.OpGetData) != 60 || c.faults.Count(zktest.OpSync) != 1 || c.faults.Count(zktest.OpMulti) != 1 {
		t.Fatalf("repeat: %v, want the 60 states read after one sync, and the checkpoint", c.faults.Counts())
	}
}

// Fault: another client sets the data of 12 remembered partition states
// (more than the conflict limit) before a delta. The delta's transaction
// is refused, the Client rereads what it touched in one wave and lands
// the delta: no ErrConflict, and no foreign SetData overwritten unseen.
func TestRememberedStaleManyMended(t *testing.T) {
	c := newCluster(t)
	events := c.traced()
	s := c.createTopics(1, 20)
	foreign := znode.PartitionState{ControllerEpoch: 5, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3, 1}}
	for p := int32(0); p < 12; p++ {
		if _, err := c.admin.Set(c.p(znode.PartitionStatePath("t0", p)), foreign.Encode(), -1); err != nil {
			t.Fatal(err)
		}
	}
	c.faults.ResetCounts()
	*events = nil
	if _, _, err := leaderMoves(c.c.Batch(), 1, 20, 1).Apply(testContext(t), at(s, 500)); err != nil {
		t.Fatalf("got %v, want the delta landed", err)
	}
	if got := c.faults.Count(zktest.OpMulti); got != 2 {
		t.Fatalf("%d multis, want 2: the refused one and the mended one", got)
	}
	if got := c.faults.Count(zktest.OpSync); got != 1 {
		t.Fatalf("%d syncs, want 1", got)
	}
	waves := 0
	for _, e := range *events {
		if e.Kind == dualwrite.TraceReadWave {
			waves++
		}
	}
	if waves != 1 {
		t.Fatalf("%d read waves, want 1", waves)
	}
	c.checkLeaders(1, 20, 1)
	for p := int32(0); p < 12; p++ {
		if _, v := c.stateAndVersion("t0", p); v != 2 {
			t.Fatalf("partition %d at version %d, want 2: the foreign write and the delta's", p, v)
		}
	}
}

// Remember makes c's Client remember t0..: a Read.
func (c *cluster) Remember(t *testing.T) {
	t.Helper()
	if _, err := c.c.Read(testContext(t), nil); err != nil {
		t.Fatal(err)
	}
}

// Fault: another client deletes a remembered state, and creates one the
// Client remembers as missing. Both refusals are mended.
func TestRememberedDeletedAndCreatedMended(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(1, 4)
	if err := c.admin.Delete(c.p(znode.PartitionStatePath("t0", 1)), -1); err != nil {
		t.Fatal(err)
	}
	s, _, err := leaderMoves(c.c.Batch(), 1, 4, 1).Apply(testContext(t), at(s, 500))
	if err != nil {
		t.Fatal(err)
	}
	c.checkLeaders(1, 4, 1)
	// CreateTopic where absence is remembered, and another client
	// created its topic znode first, as the topic has it.
	c.Remember(t)
	if _, err := c.admin.Create(c.p(znode.TopicPath("late")), topicBytes(topic("late", 3)), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.c.CreateTopic(testContext(t), at(s, 501), topic("late", 3)); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.get(znode.PartitionStatePath("late", 2)); !ok {
		t.Fatal("late partition 2 has no state")
	}
}

// Fault: none. Absence the Client read is remembered: a CreateTopic sends
// one multi; DeletePartitions and DeleteTopic of what it remembers read
// nothing.
func TestRememberedCreateAndDeleteSendNoRead(t *testing.T) {
	c := newCluster(t)
	c.Remember(t)
	c.faults.ResetCounts()
	s, err := c.c.CreateTopic(testContext(t), at(c.s, 200), topic("orders", 50))
	if err != nil {
		t.Fatal(err)
	}
	if n := c.faults.Requests(); n != 1 {
		t.Fatalf("CreateTopic: %d requests (%v), want one multi", n, c.faults.Counts())
	}
	c.faults.ResetCounts()
	if s, err = c.c.DeletePartitions(testContext(t), at(s, 201), "orders", []int32{48, 49}); err != nil {
		t.Fatal(err)
	}
	if s, err = c.c.DeleteTopic(testContext(t), at(s, 202), "orders"); err != nil {
		t.Fatal(err)
	}
	if n := c.faults.Requests(); n != 2 {
		t.Fatalf("deletes: %d requests (%v), want two multis", n, c.faults.Counts())
	}
	if _, _, ok := c.get(znode.TopicPath("orders")); ok {
		t.Fatal("orders still exists")
	}
	c.checkState(s)
}

// Fault: a rival raises /controller_epoch. The fenced Writer's Client
// forgets everything.
func TestRememberedForgottenWhenFenced(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(1, 4)
	if parts, _ := c.c.Remembered(); parts != 4 {
		t.Fatalf("%d partitions remembered, want 4", parts)
	}
	c.raiseEpoch()
	if _, _, err := leaderMoves(c.c.Batch(), 1, 4, 1).Apply(testContext(t), at(s, 500)); !errors.Is(err, migrationzk.ErrFenced) {
		t.Fatalf("got %v, want ErrFenced", err)
	}
	if parts, zs := c.c.Remembered(); parts != 0 || zs != 0 {
		t.Fatalf("fenced: %d partitions and %d znodes remembered, want none", parts, zs)
	}
}

// Fault: none. A call under another tenure starts from nothing: it reads.
func TestRememberedEmptyForNewTenure(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(1, 4)
	s.KRaftControllerEpoch = 6
	s, err := c.w.ClaimLeadership(testContext(t), s)
	if err != nil {
		t.Fatal(err)
	}
	c.faults.ResetCounts()
	if _, _, err := leaderMoves(c.c.Batch(), 1, 4, 1).Apply(testContext(t), at(s, 500)); err != nil {
		t.Fatal(err)
	}
	if c.faults.Count(zktest.OpGetData) == 0 {
		t.Fatalf("new tenure read nothing (%v)", c.faults.Counts())
	}
}

// Fault: none. Bounded: a Client remembering nothing reads every time,
// and Forget drops what is remembered.
func TestRememberedBounded(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(1, 4)
	c.c.Forget()
	if parts, zs := c.c.Remembered(); parts != 0 || zs != 0 {
		t.Fatalf("Forget: %d partitions and %d znodes remembered", parts, zs)
	}
	c.c = must.Get(dualwrite.New(c.w, dualwrite.WithRememberedPartitions(0)))
	for i := int32(1); i <= 2; i++ {
		c.faults.ResetCounts()
		var err error
		if s, _, err = leaderMoves(c.c.Batch(), 1, 4, i).Apply(testContext(t), at(s, 500+int64(i))); err != nil {
			t.Fatal(err)
		}
		if c.faults.Count(zktest.OpSync) != 1 || c.faults.Count(zktest.OpGetData) == 0 {
			t.Fatalf("delta %d: %v, want a sync and reads", i, c.faults.Counts())
		}
	}
	if _, err := dualwrite.New(c.w, dualwrite.WithRememberedPartitions(-1)); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("negative bound: %v", err)
	}
}

// Fault: none. A cold delta syncs once and reads in one wave.
func TestColdDeltaOneSyncOneWave(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(3, 10)
	events := c.traced()
	c.faults.ResetCounts()
	s, _, err := leaderMoves(c.c.Batch(), 3, 10, 1).Apply(testContext(t), at(s, 500))
	if err != nil {
		t.Fatal(err)
	}
	waves := 0
	for _, e := range *events {
		if e.Kind == dualwrite.TraceReadWave {
			waves++
		}
	}
	if c.faults.Count(zktest.OpSync) != 1 || waves != 1 {
		t.Fatalf("%d syncs, %d read waves (%v), want 1 and 1", c.faults.Count(zktest.OpSync), waves, c.faults.Counts())
	}
	c.checkLeaders(3, 10, 1)
	// A cold DeleteTopic needs two waves (the partitions, then what is
	// below them), after one sync still.
	c.c.Forget()
	c.faults.ResetCounts()
	*events = nil
	if _, err := c.c.DeleteTopic(testContext(t), at(s, 600), "t0"); err != nil {
		t.Fatal(err)
	}
	waves = 0
	for _, e := range *events {
		if e.Kind == dualwrite.TraceReadWave {
			waves++
		}
	}
	if c.faults.Count(zktest.OpSync) != 1 || waves < 2 {
		t.Fatalf("DeleteTopic: %d syncs, %d read waves (%v), want 1 and more than 1", c.faults.Count(zktest.OpSync), waves, c.faults.Counts())
	}
}

// Fault: the delta's request is lost and its context ends before the
// outcome is known; then another client sets one of its states. The
// Client forgot what the transaction touched: the next call reads those
// states again before its one multi, instead of sending a stale version.
func TestRememberedForgottenWhenInDoubt(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(1, 4)
	ctx, cancel := context.WithCancel(testContext(t))
	c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: transaction, Then: cancel})
	st, _, err := leaderMoves(c.c.Batch(), 1, 4, 1).Apply(ctx, at(s, 500))
	if !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("got %v, want the outcome unknown", err)
	}
	foreign := znode.PartitionState{ControllerEpoch: 5, Leader: 3, LeaderEpoch: 4, ISR: []int32{3, 1, 2}}
	if _, err := c.admin.Set(c.p(znode.PartitionStatePath("t0", 2)), foreign.Encode(), -1); err != nil {
		t.Fatal(err)
	}
	c.faults.ResetCounts()
	if _, _, err := leaderMoves(c.c.Batch(), 1, 4, 1).Apply(testContext(t), at(st, 500)); err != nil {
		t.Fatal(err)
	}
	if n := c.faults.Count(zktest.OpGetData); n < 4 || c.faults.Count(zktest.OpMulti) != 1 {
		t.Fatalf("%v after the outcome was unknown, want the 4 states read again before one multi", c.faults.Counts())
	}
	c.checkLeaders(1, 4, 1)
}

// Fault: another client reassigns a remembered topic (partition 0 to
// brokers 7, 8, 9). A delta electing broker 7 is checked against the
// assignment ZooKeeper holds, read again, not refused on what was
// remembered.
func TestRememberedErrorsAreConfirmed(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(1, 2)
	moved := topic("t0", 2)
	moved.Partitions[0] = dualwrite.Partition{Replicas: []int32{7, 8, 9}, State: moved.Partitions[0].State}
	if _, err := c.admin.Set(c.p(znode.TopicPath("t0")), topicBytes(moved), -1); err != nil {
		t.Fatal(err)
	}
	st := map[int32]dualwrite.PartitionState{0: {Leader: 7, LeaderEpoch: 3, ISR: []int32{7, 8, 9}}}
	if _, err := c.c.UpdatePartitions(testContext(t), at(s, 500), "t0", st); err != nil {
		t.Fatalf("got %v, want the delta checked against the assignment ZooKeeper holds", err)
	}
	if ps, _ := c.stateAndVersion("t0", 0); ps.Leader != 7 {
		t.Fatalf("leader %d, want 7", ps.Leader)
	}
}

// Fault: none. Cold calls that read states and list partitions in one
// wave (a CreateTopic of topics ZooKeeper holds already, a delta, a
// CreatePartitions) must not let the listing make the states it lists
// read as missing, or the next delta would plan creates ZooKeeper
// refuses. Each next delta is one multi.
func TestListingKeepsRememberedStates(t *testing.T) {
	c := newCluster(t)
	s := c.createTopics(2, 10)
	cold := map[string]func(s migrationzk.State) (migrationzk.State, error){
		"CreateTopic": func(s migrationzk.State) (migrationzk.State, error) {
			return c.c.CreateTopic(testContext(t), s, topic("t0", 10))
		},
		"UpdatePartitions": func(s migrationzk.State) (migrationzk.State, error) {
			s, _, err := leaderMoves(c.c.Batch(), 1, 10, 7).Apply(testContext(t), s)
			return s, err
		},
		"CreatePartitions": func(s migrationzk.State) (migrationzk.State, error) {
			return c.c.CreatePartitions(testContext(t), s, "t0", topic("t0", 10).Partitions)
		},
	}
	epoch := int32(10)
	for name, call := range cold {
		c.c.Forget()
		var err error
		if s, err = call(at(s, s.KRaftMetadataOffset+1)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		epoch++
		c.faults.ResetCounts()
		if s, _, err = leaderMoves(c.c.Batch(), 1, 10, epoch).Apply(testContext(t), at(s, s.KRaftMetadataOffset+1)); err != nil {
			t.Fatalf("after %s: %v", name, err)
		}
		if n := c.faults.Requests(); n != 1 || c.faults.Count(zktest.OpMulti) != 1 {
			t.Fatalf("after a cold %s: %d requests (%v), want one multi", name, n, c.faults.Counts())
		}
		c.checkLeaders(1, 10, epoch)
	}
}
