package migrationzk_test

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none. The happy path: claim, create, checkpoint, batch, release.
func TestHappyPath(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	ctx := testContext(t)

	s, err := w.ClaimLeadership(ctx, kraft())
	if err != nil {
		t.Fatal(err)
	}
	if s.ZkControllerEpoch != 2 || s.ZkControllerEpochZkVersion != 1 || s.Recovered {
		t.Fatalf("claim: epoch %d version %d recovered %v", s.ZkControllerEpoch, s.ZkControllerEpochZkVersion, s.Recovered)
	}
	data, _ := c.get("/controller")
	ctl, err := znode.DecodeController(data)
	if err != nil || ctl.BrokerID != 3000 || ctl.KRaftControllerEpoch != 5 {
		t.Fatalf("/controller = %+v, %v", ctl, err)
	}

	s, _, err = w.GetOrCreate(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if s.MigrationZkVersion != 0 {
		t.Fatalf("created /migration at version %d", s.MigrationZkVersion)
	}
	c.checkMatches(s)

	s.KRaftMetadataOffset = 200
	s, err = w.Update(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	c.checkMatches(s)
	if w.ConfirmedOffset() != 200 {
		t.Fatalf("ConfirmedOffset = %d", w.ConfirmedOffset())
	}

	s.KRaftMetadataOffset = 300
	s, res, err := w.Apply(ctx, s, topicOps("foo", 3)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil || r.Recovered {
			t.Fatalf("op %d: %+v", i, r)
		}
	}
	c.checkMatches(s)
	if !c.exists(znode.PartitionStatePath("foo", 2)) {
		t.Fatal("partition state not created")
	}

	// GetOrCreate on an existing /migration reads it.
	again, _, err := w.GetOrCreate(ctx, s)
	if err != nil || again.MigrationZkVersion != s.MigrationZkVersion || again.KRaftMetadataOffset != 300 {
		t.Fatalf("GetOrCreate existing: %+v, %v", again, err)
	}

	s, err = w.ReleaseLeadership(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if c.exists("/controller") || s.ZkControllerEpochZkVersion != -1 {
		t.Fatalf("release left /controller (exists=%v) or state %+v", c.exists("/controller"), s)
	}
	st := w.Stats()
	if st.OK != 6 || st.Recovered != 0 || st.Conflicts != 0 || st.Latency.Count != 6 {
		t.Fatalf("stats %+v", st)
	}
}

// Fault: connection cut after the server committed (reply lost), on the
// checkpoint write, unfenced and fenced.
func TestUpdateDroppedReply(t *testing.T) {
	for _, fenced := range []bool{false, true} {
		t.Run(map[bool]string{false: "unfenced", true: "fenced"}[fenced], func(t *testing.T) {
			c := newCluster(t)
			w := c.writer()
			s := c.start(w)
			if !fenced {
				s.ZkControllerEpochZkVersion = -1
			}
			// A plain setData unfenced, a multi holding it fenced; under
			// the test's root either way.
			armed := c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
			s.KRaftMetadataOffset = 500
			next, err := w.Update(testContext(t), s)
			if err != nil {
				t.Fatalf("Update after dropped reply: %v", err)
			}
			if !armed.HasFired() {
				t.Fatal("fault did not fire")
			}
			if !next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
				t.Fatalf("recovered %v version %d, want recovered at %d", next.Recovered, next.MigrationZkVersion, s.MigrationZkVersion+1)
			}
			c.checkMatches(next)
			if st := w.Stats(); st.Recovered != 1 || st.LostAcks != 1 || w.ConfirmedOffset() != 500 {
				t.Fatalf("stats %+v confirmed %d", st, w.ConfirmedOffset())
			}
			c.tenMoreWrites(w, next)
		})
	}
}

// Fault: connection cut before the request was sent.
func TestUpdateDroppedRequest(t *testing.T) {
	for _, action := range []zktest.Action{zktest.DropRequest, zktest.CutRequest} {
		t.Run(action.String(), func(t *testing.T) {
			c := newCluster(t)
			w := c.writer()
			s := c.start(w)
			c.faults.Arm(zktest.Fault{Action: action, Op: zktest.OpMulti, Path: c.p("/migration")})
			s.KRaftMetadataOffset = 500
			next, err := w.Update(testContext(t), s)
			if err != nil {
				t.Fatal(err)
			}
			if next.Recovered || next.MigrationZkVersion != s.MigrationZkVersion+1 {
				t.Fatalf("recovered %v version %d", next.Recovered, next.MigrationZkVersion)
			}
			if st := w.Stats(); st.Recovered != 0 || st.OK != 3 || st.Retries != 1 {
				t.Fatalf("stats %+v", st)
			}
			c.checkMatches(next)
			c.tenMoreWrites(w, next)
		})
	}
}

// Fault: a rival writer bumps /migration with other content, or writes
// our exact content twice (version expected+2).
func TestUpdateRealConflict(t *testing.T) {
	for _, identical := range []bool{false, true} {
		name := map[bool]string{false: "other-content", true: "identical-content-twice"}[identical]
		t.Run(name, func(t *testing.T) {
			c := newCluster(t)
			w := c.writer()
			s := c.start(w)
			s.KRaftMetadataOffset = 700
			rival := s
			if !identical {
				rival.KRaftMetadataOffset = 650
			}
			data := znode.Migration{KRaftMetadataOffset: rival.KRaftMetadataOffset, KRaftControllerID: 3000, KRaftMetadataEpoch: 5, KRaftControllerEpoch: 5}.Encode()
			writes := 1
			if identical {
				writes = 2
			}
			for i := 0; i < writes; i++ {
				if _, err := c.admin.Set(c.p("/migration"), data, -1); err != nil {
					t.Fatal(err)
				}
			}
			_, err := w.Update(testContext(t), s)
			var ce *migrationzk.ConflictError
			if !errors.Is(err, migrationzk.ErrConflict) || !errors.As(err, &ce) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			_, st := c.get("/migration")
			if ce.CurrentVersion != st.Version || ce.ExpectedVersion != s.MigrationZkVersion || ce.Current == nil ||
				ce.Current.KRaftMetadataOffset != rival.KRaftMetadataOffset {
				t.Fatalf("conflict %+v, ZooKeeper at version %d", ce, st.Version)
			}
			if got, _ := c.get("/migration"); string(got) != string(data) {
				t.Fatalf("/migration overwritten: %s", got)
			}
			if w.Stats().Conflicts != 1 {
				t.Fatalf("stats %+v", w.Stats())
			}
			// A conflict does not retire the writer.
			s.MigrationZkVersion = st.Version
			if _, err := w.Update(testContext(t), s); err != nil {
				t.Fatalf("write at the current version: %v", err)
			}
		})
	}
}

// Fault: a rival controller bumps /controller_epoch.
func TestUpdateFencedThenRetired(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	if _, err := c.admin.Set(c.p("/controller_epoch"), znode.EncodeControllerEpoch(9), -1); err != nil {
		t.Fatal(err)
	}
	before, beforeStat := c.get("/migration")
	s.KRaftMetadataOffset = 800
	_, err := w.Update(testContext(t), s)
	var fe *migrationzk.FencedError
	if !errors.Is(err, migrationzk.ErrFenced) || !errors.As(err, &fe) || fe.Path != "/controller_epoch" {
		t.Fatalf("err = %v, want ErrFenced by /controller_epoch", err)
	}
	c.faults.ResetCounts()
	for name, call := range map[string]func() error{
		"Update":      func() error { _, err := w.Update(testContext(t), s); return err },
		"Apply":       func() error { _, _, err := w.Apply(testContext(t), s, topicOps("x", 1)...); return err },
		"GetOrCreate": func() error { _, _, err := w.GetOrCreate(testContext(t), s); return err },
		"Claim":       func() error { _, err := w.ClaimLeadership(testContext(t), s); return err },
		"Release":     func() error { _, err := w.ReleaseLeadership(testContext(t), s); return err },
		"ConditionalUpdate": func() error {
			_, err := w.ConditionalUpdate(testContext(t), "/brokers/topics", []byte("x"), 0, nil)
			return err
		},
		"ConditionalDelete": func() error { _, err := w.ConditionalDelete(testContext(t), "/brokers/topics", 0); return err },
	} {
		if err := call(); !errors.Is(err, migrationzk.ErrRetired) {
			t.Errorf("%s after fencing: err = %v, want ErrRetired", name, err)
		}
	}
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("retired writer sent %d requests", n)
	}
	after, afterStat := c.get("/migration")
	if string(after) != string(before) || afterStat.Version != beforeStat.Version {
		t.Fatal("/migration changed")
	}
	if retired, why := w.Retired(); !retired || why == nil {
		t.Fatal("Retired() = false")
	}
}

// Fault: a rival KRaft controller with a newer epoch wrote /migration.
func TestUpdateFencedByNewerMigration(t *testing.T) {
	c := newCluster(t)
	w := c.writer()
	s := c.start(w)
	newer := znode.Migration{KRaftMetadataOffset: 900, KRaftControllerID: 3001, KRaftMetadataEpoch: 6, KRaftControllerEpoch: 6}
	if _, err := c.admin.Set(c.p("/migration"), newer.Encode(), -1); err != nil {
		t.Fatal(err)
	}
	s.ZkControllerEpochZkVersion = -1 // unfenced: only /migration can tell
	_, err := w.Update(testContext(t), s)
	var fe *migrationzk.FencedError
	if !errors.As(err, &fe) || fe.Path != "/migration" {
		t.Fatalf("err = %v, want fenced by /migration", err)
	}
}

// Fault: connection cut after commit, on GetOrCreate's create; and before
// the request was sent.
func TestGetOrCreateFaults(t *testing.T) {
	for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
		t.Run(action.String(), func(t *testing.T) {
			c := newCluster(t)
			w := c.writer()
			ctx := testContext(t)
			s, err := w.ClaimLeadership(ctx, kraft())
			if err != nil {
				t.Fatal(err)
			}
			c.faults.Arm(zktest.Fault{Action: action, Op: zktest.OpCreate, Path: c.p("/migration")})
			s, _, err = w.GetOrCreate(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if s.Recovered != (action == zktest.DropReply) || s.MigrationZkVersion != 0 {
				t.Fatalf("recovered %v version %d", s.Recovered, s.MigrationZkVersion)
			}
			c.checkMatches(s)
			c.tenMoreWrites(w, s)
		})
	}
}

var _ = zk.ErrNoNode
