package migrationzk_test

import (
	"errors"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// failover is a test of controllers taking over from each other under the
// quick start's root.
type failover struct {
	t    *testing.T
	c    *cluster
	root string
	at   *cluster // the test's eyes under root
}

func newFailover(t *testing.T) *failover {
	c := newCluster(t)
	root := c.p("/failover/kafka")
	return &failover{t: t, c: c, root: root, at: &cluster{t: t, admin: c.admin, root: root}}
}

// tenure is a controller of a failover: its Writer and the State it holds.
type tenure struct {
	w *migrationzk.Writer
	s migrationzk.State
}

// takeOver makes KRaft controller id, in KRaft epoch epoch, the leader on a
// session of its own, as the quick start does: claim, GetOrCreate, then the
// Update that names it in /migration. It checks that GetOrCreate reported
// the predecessor without adopting its identity.
func (f *failover) takeOver(id, epoch int32, predecessor migrationzk.Identity) *tenure {
	f.t.Helper()
	ctx := testContext(f.t)
	w := must.Get(migrationzk.New(f.c.srv.Connect(f.t), migrationzk.WithRoot(f.root)))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = id, epoch
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		f.t.Fatalf("controller %d: claim: %v", id, err)
	}
	s, found, err := w.GetOrCreate(ctx, s)
	if err != nil {
		f.t.Fatalf("controller %d: GetOrCreate: %v", id, err)
	}
	if found.Wrote() || found.Stored == nil ||
		(migrationzk.Identity{ControllerID: found.Stored.KRaftControllerID, ControllerEpoch: found.Stored.KRaftControllerEpoch}) != predecessor {
		f.t.Fatalf("controller %d: GetOrCreate found %+v (stored %+v), want the checkpoint of %v", id, found, found.Stored, predecessor)
	}
	if got := migrationzk.IdentityOf(s); got != (migrationzk.Identity{ControllerID: id, ControllerEpoch: epoch}) {
		f.t.Fatalf("controller %d: GetOrCreate returned a State naming %v", id, got)
	}
	if s, err = w.Update(ctx, s); err != nil {
		f.t.Fatalf("controller %d: the Update after the claim: %v", id, err)
	}
	return &tenure{w: w, s: s}
}

// moveLeader mirrors a leader change of orders-0 through dualwrite, which
// stamps the partition state with the State's KRaft epoch.
func (f *failover) moveLeader(l *tenure, offset int64) {
	f.t.Helper()
	c := must.Get(dualwrite.New(l.w))
	l.s.KRaftMetadataOffset = offset
	var err error
	l.s, err = c.UpdatePartitions(testContext(f.t), l.s, "orders", map[int32]dualwrite.PartitionState{
		0: {Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}},
	})
	if err != nil {
		f.t.Fatalf("UpdatePartitions: %v", err)
	}
}

// wantIdentity fails unless /migration and orders-0's state carry the
// identity of KRaft controller id in epoch epoch.
func (f *failover) wantIdentity(id, epoch int32) {
	f.t.Helper()
	m, _ := f.at.migration()
	if m.KRaftControllerID != id || m.KRaftControllerEpoch != epoch {
		f.t.Fatalf("/migration %+v, want it to name KRaft controller %d in epoch %d", m, id, epoch)
	}
	data, _ := f.at.get(znode.PartitionStatePath("orders", 0))
	st, err := znode.DecodePartitionState(data)
	if err != nil || st.ControllerEpoch != epoch {
		f.t.Fatalf("orders-0 state %+v (%v), want controller_epoch %d", st, err, epoch)
	}
}

// Fault: none. Controller A (3000, epoch 7) runs the quick start, then B
// (3001, epoch 8) takes over as the quick start says. /migration names B
// from B's first write on, and the partition states B writes carry
// controller_epoch 8, not A's 7.
func TestFailoverToAnotherController(t *testing.T) {
	f := newFailover(t)
	if err := quickStart(testContext(t), f.c.conn, f.root, 3000, 7, znode.NewUuid()); err != nil {
		t.Fatal(err)
	}
	b := f.takeOver(3001, 8, migrationzk.Identity{ControllerID: 3000, ControllerEpoch: 7})
	m, _ := f.at.migration()
	if m != (znode.Migration{KRaftMetadataOffset: 43, KRaftControllerID: 3001, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 8}) {
		t.Fatalf("/migration after the takeover %+v: want A's position under B's identity", m)
	}
	f.moveLeader(b, 44)
	f.wantIdentity(3001, 8)
}

// Fault: none. The same KRaft controller id comes back as leader with a
// newer epoch (a restart that lost the election once): it writes under the
// new epoch, not the one its previous tenure left in /migration.
func TestFailoverSameControllerNewerEpoch(t *testing.T) {
	f := newFailover(t)
	if err := quickStart(testContext(t), f.c.conn, f.root, 3000, 7, znode.NewUuid()); err != nil {
		t.Fatal(err)
	}
	again := f.takeOver(3000, 8, migrationzk.Identity{ControllerID: 3000, ControllerEpoch: 7})
	f.moveLeader(again, 44)
	f.wantIdentity(3000, 8)
}

// Fault: the previous controller's checkpoint lands after B read
// /migration (KAFKA-16171): B's first write is a conflict. B reloads as the
// README's handle says, with GetOrCreate and its own State, and writes
// again: under its own identity, not the one the conflicting write left.
func TestFailoverFirstWriteAfterConflict(t *testing.T) {
	f := newFailover(t)
	ctx := testContext(t)
	if err := quickStart(ctx, f.c.conn, f.root, 3000, 7, znode.NewUuid()); err != nil {
		t.Fatal(err)
	}
	w := must.Get(migrationzk.New(f.c.srv.Connect(t), migrationzk.WithRoot(f.root)))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3001, 8
	s, err := w.ClaimLeadership(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err = w.GetOrCreate(ctx, s); err != nil {
		t.Fatal(err)
	}
	// A's late checkpoint, offset 50, lands between B's read and write.
	late := znode.Migration{KRaftMetadataOffset: 50, KRaftControllerID: 3000, KRaftMetadataEpoch: 7, KRaftControllerEpoch: 7}
	if _, err := f.c.admin.Set(f.at.p("/migration"), late.Encode(), s.MigrationZkVersion); err != nil {
		t.Fatal(err)
	}
	_, err = w.Update(ctx, s)
	var conflict *migrationzk.ConflictError
	if !errors.As(err, &conflict) || conflict.Current == nil || conflict.Current.KRaftControllerID != 3000 {
		t.Fatalf("B's first write: %v, want a conflict naming A's checkpoint", err)
	}
	if handle(err) != err {
		t.Fatal("handle changed the error")
	}
	// Reload with this tenure's State, as handle says, then write.
	s, found, err := w.GetOrCreate(ctx, s)
	if err != nil || found.Stored == nil || *found.Stored != late {
		t.Fatalf("reload: %+v, %v; want A's late checkpoint reported", found, err)
	}
	if s.KRaftMetadataOffset != 50 || migrationzk.IdentityOf(s) != (migrationzk.Identity{ControllerID: 3001, ControllerEpoch: 8}) {
		t.Fatalf("reloaded State %+v: want A's position under B's identity", s)
	}
	if s, err = w.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	b := &tenure{w: w, s: s}
	f.moveLeader(b, 51)
	f.wantIdentity(3001, 8)
}

// Fault: none. A Writer that claimed leadership refuses, before sending
// anything, every write whose State names another controller or epoch
// than its claim's: the State /migration held before the takeover, as
// the old GetOrCreate returned it, and a State of the right controller in
// an older epoch. Nothing moves in ZooKeeper.
func TestClaimedWriterRefusesAnotherIdentity(t *testing.T) {
	f := newFailover(t)
	ctx := testContext(t)
	if err := quickStart(ctx, f.c.conn, f.root, 3000, 7, znode.NewUuid()); err != nil {
		t.Fatal(err)
	}
	b := f.takeOver(3001, 8, migrationzk.Identity{ControllerID: 3000, ControllerEpoch: 7})
	dw := must.Get(dualwrite.New(b.w))
	state := znode.PartitionState{ControllerEpoch: 7, Leader: 1, ISR: []int32{1}}
	calls := map[string]func(migrationzk.State) error{
		"Update": func(s migrationzk.State) error { _, err := b.w.Update(ctx, s); return err },
		"GetOrCreate": func(s migrationzk.State) error {
			_, _, err := b.w.GetOrCreate(ctx, s)
			return err
		},
		"Apply": func(s migrationzk.State) error {
			_, _, err := b.w.Apply(ctx, s, migrationzk.SetData(znode.PartitionStatePath("orders", 0), state.Encode(), -1))
			return err
		},
		"ApplyAtomic": func(s migrationzk.State) error {
			_, _, err := b.w.ApplyAtomic(ctx, s, migrationzk.SetData(znode.PartitionStatePath("orders", 0), state.Encode(), -1))
			return err
		},
		"dualwrite.WriteProducerID": func(s migrationzk.State) error { _, err := dw.WriteProducerID(ctx, s, 6000); return err },
	}
	for name, call := range calls {
		for _, given := range []migrationzk.Identity{{ControllerID: 3000, ControllerEpoch: 7}, {ControllerID: 3001, ControllerEpoch: 7}, {ControllerID: 3000, ControllerEpoch: 8}} {
			s := b.s
			s.KRaftControllerID, s.KRaftControllerEpoch = given.ControllerID, given.ControllerEpoch
			before := b.w.Stats().Attempts
			_, version := f.at.migration()
			err := call(s)
			var ie *migrationzk.IdentityError
			if !errors.As(err, &ie) || !errors.Is(err, migrationzk.ErrInvalidArgument) || ie.Given != given ||
				ie.Claimed != (migrationzk.Identity{ControllerID: 3001, ControllerEpoch: 8}) {
				t.Errorf("%s with %v: %v, want an *IdentityError", name, given, err)
			}
			if b.w.Stats().Attempts != before {
				t.Errorf("%s with %v: a request was sent", name, given)
			}
			if _, now := f.at.migration(); now != version {
				t.Errorf("%s with %v: /migration moved from version %d to %d", name, given, version, now)
			}
		}
	}
	// The Writer goes on under its own identity.
	f.moveLeader(b, 44)
	f.wantIdentity(3001, 8)
}

// Fault: none, then a dropped reply. ConditionalDelete says what it did:
// a delete acknowledged, one whose acknowledgement was lost and that a
// reread proved landed, and one of a znode already gone.
func TestConditionalDeleteResult(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	w := c.writer()
	c.create("/brokers/topics/a", nil)
	c.create("/brokers/topics/b", nil)
	res, err := w.ConditionalDelete(ctx, "/brokers/topics/a", 0)
	if err != nil || res != (migrationzk.DeleteResult{}) {
		t.Fatalf("plain delete: %+v, %v", res, err)
	}
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/brokers/topics/b")})
	res, err = w.ConditionalDelete(ctx, "/brokers/topics/b", 0)
	if err != nil || res != (migrationzk.DeleteResult{Recovered: true}) {
		t.Fatalf("delete whose reply was dropped: %+v, %v", res, err)
	}
	res, err = w.ConditionalDelete(ctx, "/brokers/topics/a", 0)
	if err != nil || res != (migrationzk.DeleteResult{AlreadyGone: true}) {
		t.Fatalf("delete of a znode gone: %+v, %v", res, err)
	}
}

// Fault: none. GetOrCreate says whether it wrote: it creates a missing
// /migration, replaces an empty one, and reports a stored checkpoint
// without writing.
func TestGetOrCreateResult(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	w := c.writer()
	s, res, err := w.GetOrCreate(ctx, kraft())
	if err != nil || res != (migrationzk.GetOrCreateResult{Created: true}) || s.MigrationZkVersion != 0 {
		t.Fatalf("fresh: %+v, %+v, %v", s, res, err)
	}
	if _, err := c.admin.Set(c.p("/migration"), nil, 0); err != nil {
		t.Fatal(err)
	}
	s, res, err = w.GetOrCreate(ctx, kraft())
	if err != nil || res != (migrationzk.GetOrCreateResult{ReplacedEmpty: true}) || s.MigrationZkVersion != 2 {
		t.Fatalf("null data: %+v, %+v, %v", s, res, err)
	}
	other := migrationzk.InitialState()
	other.KRaftControllerID, other.KRaftControllerEpoch = 3001, 9
	s, res, err = w.GetOrCreate(ctx, other)
	stored := kraft()
	if err != nil || res.Wrote() || res.Stored == nil || res.Stored.KRaftControllerID != stored.KRaftControllerID ||
		res.Stored.KRaftMetadataOffset != stored.KRaftMetadataOffset || migrationzk.IdentityOf(s) != migrationzk.IdentityOf(other) {
		t.Fatalf("stored: %+v, %+v, %v", s, res, err)
	}
	if _, v := c.migration(); v != s.MigrationZkVersion {
		t.Fatalf("/migration at version %d, the State says %d", v, s.MigrationZkVersion)
	}
}

// Fault: another controller takes over. Under a chroot, FencedError.Path
// is relative to the Writer's root, as Op.Path and OpResult.Path are, for
// each znode that can fence: /controller_epoch moved under a checkpoint,
// /controller held by a newer KRaft epoch, /migration written by one.
func TestFencedErrorPathIsRelative(t *testing.T) {
	f := newFailover(t)
	ctx := testContext(t)
	if err := quickStart(ctx, f.c.conn, f.root, 3000, 7, znode.NewUuid()); err != nil {
		t.Fatal(err)
	}
	a := f.takeOver(3000, 8, migrationzk.Identity{ControllerID: 3000, ControllerEpoch: 7})
	f.takeOver(3001, 9, migrationzk.Identity{ControllerID: 3000, ControllerEpoch: 8})
	wantFenced := func(what string, err error, path string) {
		t.Helper()
		var fe *migrationzk.FencedError
		if !errors.As(err, &fe) || fe.Path != path {
			t.Fatalf("%s: %v, want a *FencedError with Path %s", what, err, path)
		}
	}
	a.s.KRaftMetadataOffset = 44
	_, err := a.w.Update(ctx, a.s)
	wantFenced("checkpoint after the takeover", err, "/controller_epoch")

	late := must.Get(migrationzk.New(f.c.srv.Connect(t), migrationzk.WithRoot(f.root)))
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3002, 9
	_, err = late.ClaimLeadership(ctx, s)
	wantFenced("claim at an epoch not above /controller's", err, "/controller")

	// An unclaimed Writer holding /migration's version from before the
	// last takeover, in an older epoch.
	old := must.Get(migrationzk.New(f.c.srv.Connect(t), migrationzk.WithRoot(f.root)))
	stale := a.s
	stale.ZkControllerEpochZkVersion = -1
	_, err = old.Update(ctx, stale)
	wantFenced("unfenced checkpoint over a newer epoch's", err, "/migration")
}
