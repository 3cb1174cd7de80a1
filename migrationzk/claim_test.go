package migrationzk_test

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// checkClaimed fails unless ZooKeeper shows s's claim: /controller_epoch at
// s's epoch and version, /controller naming the KRaft controller.
func (c *cluster) checkClaimed(s migrationzk.State) {
	c.t.Helper()
	data, st := c.get("/controller_epoch")
	epoch, err := znode.DecodeControllerEpoch(data)
	if err != nil || epoch != s.ZkControllerEpoch || st.Version != s.ZkControllerEpochZkVersion {
		c.t.Fatalf("/controller_epoch %d at version %d (%v), state says %d at %d", epoch, st.Version, err, s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
	}
	data, st = c.get("/controller")
	ctl, err := znode.DecodeController(data)
	if err != nil || ctl.BrokerID != s.KRaftControllerID || ctl.KRaftControllerEpoch != s.KRaftControllerEpoch || st.EphemeralOwner != 0 {
		c.t.Fatalf("/controller %+v (ephemeral owner %x, %v)", ctl, st.EphemeralOwner, err)
	}
}

// Fault: connection cut after the server committed (reply lost), and
// before the request was sent, on the leadership claim.
func TestClaimFaults(t *testing.T) {
	for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
		t.Run(action.String(), func(t *testing.T) {
			c := newCluster(t)
			w := c.writer()
			armed := c.faults.Arm(zktest.Fault{Action: action, Op: zktest.OpMulti, Path: c.p("/controller")})
			s, err := w.ClaimLeadership(testContext(t), kraft())
			if err != nil {
				t.Fatal(err)
			}
			if !armed.HasFired() || s.Recovered != (action == zktest.DropReply) {
				t.Fatalf("fired %v recovered %v", armed.HasFired(), s.Recovered)
			}
			if s.ZkControllerEpoch != 2 || s.ZkControllerEpochZkVersion != 1 {
				t.Fatalf("claimed epoch %d version %d, want 2 at 1", s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
			}
			c.checkClaimed(s)
			s, _, err = w.GetOrCreate(testContext(t), s)
			if err != nil {
				t.Fatal(err)
			}
			c.tenMoreWrites(w, s) // fenced writes with the returned epoch version
		})
	}
}

// Fault: none. Kafka's rule: a claim is refused when /controller holds a
// KRaft epoch at least ours. /controller naming this very controller and
// epoch is refused too when /controller_epoch was not raised by the same
// transaction: a matching payload proves no tenure.
func TestClaimEpochRules(t *testing.T) {
	cases := []struct {
		name    string
		holder  znode.Controller
		refused bool
		ours    bool
	}{
		{"zk-broker", znode.Controller{Version: 2, BrokerID: 1, KRaftControllerEpoch: -1}, false, false},
		{"lower-kraft-epoch", znode.Controller{Version: 2, BrokerID: 3001, KRaftControllerEpoch: 4}, false, false},
		{"equal-epoch-other-controller", znode.Controller{Version: 2, BrokerID: 3001, KRaftControllerEpoch: 5}, true, false},
		{"higher-epoch", znode.Controller{Version: 2, BrokerID: 3001, KRaftControllerEpoch: 6}, true, false},
		{"our-id-and-epoch-without-the-epoch-raise", znode.Controller{Version: 2, BrokerID: 3000, KRaftControllerEpoch: 5}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			if err := c.admin.Delete(c.p("/controller"), -1); err != nil {
				t.Fatal(err)
			}
			c.create("/controller", tc.holder.Encode())
			w := c.writer()
			s, err := w.ClaimLeadership(testContext(t), kraft())
			if tc.refused {
				var fe *migrationzk.FencedError
				if !errors.As(err, &fe) || fe.Path != "/controller" {
					t.Fatalf("err = %v, want fenced by /controller", err)
				}
				data, _ := c.get("/controller")
				if string(data) != string(tc.holder.Encode()) {
					t.Fatal("/controller changed by a refused claim")
				}
				if _, v := c.get("/controller_epoch"); v.Version != 0 {
					t.Fatal("/controller_epoch changed by a refused claim")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Recovered != tc.ours {
				t.Fatalf("recovered = %v", s.Recovered)
			}
			c.checkClaimed(s)
		})
	}
}

// Fault: none. A cluster without /controller_epoch gets one; data that does
// not decode is left alone.
func TestClaimMissingAndBadZnodes(t *testing.T) {
	t.Run("no-controller-epoch", func(t *testing.T) {
		c := newCluster(t)
		for _, p := range []string{"/controller", "/controller_epoch"} {
			if err := c.admin.Delete(c.p(p), -1); err != nil {
				t.Fatal(err)
			}
		}
		s, err := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(c.root))).ClaimLeadership(testContext(t), kraft())
		if err != nil {
			t.Fatal(err)
		}
		if s.ZkControllerEpoch != 1 {
			t.Fatalf("epoch %d, want 1", s.ZkControllerEpoch)
		}
		c.checkClaimed(s)
	})
	t.Run("garbage-controller", func(t *testing.T) {
		c := newCluster(t)
		if err := c.admin.Delete(c.p("/controller"), -1); err != nil {
			t.Fatal(err)
		}
		c.create("/controller", []byte("{garbage"))
		_, err := c.writer().ClaimLeadership(testContext(t), kraft())
		var de *migrationzk.DecodeError
		if !errors.As(err, &de) || de.Path != c.p("/controller") {
			t.Fatalf("err = %v, want DecodeError on /controller", err)
		}
		if data, _ := c.get("/controller"); string(data) != "{garbage" {
			t.Fatal("undecodable /controller replaced")
		}
	})
}

// Fault: connection cut after commit on the release; and a rival elected
// meanwhile.
func TestRelease(t *testing.T) {
	t.Run("dropped-reply", func(t *testing.T) {
		c := newCluster(t)
		w := c.writer()
		s := c.start(w)
		c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/controller")})
		s, err := w.ReleaseLeadership(testContext(t), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Recovered || s.ZkControllerEpoch != -1 || c.exists("/controller") {
			t.Fatalf("recovered %v state %+v", s.Recovered, s)
		}
	})
	t.Run("controller-moved", func(t *testing.T) {
		c := newCluster(t)
		w := c.writer()
		s := c.start(w)
		// A ZooKeeper-mode broker is elected: epoch raised, /controller replaced.
		if _, err := c.admin.Multi(
			&zk.SetDataRequest{Path: c.p("/controller_epoch"), Data: znode.EncodeControllerEpoch(3), Version: -1},
			&zk.DeleteRequest{Path: c.p("/controller"), Version: -1},
			&zk.CreateRequest{Path: c.p("/controller"), Data: znode.Controller{Version: 2, BrokerID: 2, KRaftControllerEpoch: -1}.Encode(), Acl: worldACL},
		); err != nil {
			t.Fatal(err)
		}
		s, err := w.ReleaseLeadership(testContext(t), s)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := c.get("/controller")
		if ctl, _ := znode.DecodeController(data); ctl.BrokerID != 2 || s.ZkControllerEpochZkVersion != -1 {
			t.Fatalf("release removed the new controller (%+v) or kept the epoch (%+v)", ctl, s)
		}
	})
}

// Fault: a restart (a new Writer for the same controller and KRaft epoch),
// and /controller_epoch moved by another party after the claim while
// /controller still names the claimant. A claim that stands is resumed as
// it is, not as Recovered (nothing was lost); one whose /controller_epoch
// moved is refused, by the Writer that made it as well.
func TestClaimStandingOrEnded(t *testing.T) {
	c := newCluster(t)
	first, err := c.writer().ClaimLeadership(testContext(t), kraft())
	if err != nil {
		t.Fatal(err)
	}
	restarted := c.writer()
	s, err := restarted.ClaimLeadership(testContext(t), kraft())
	if err != nil {
		t.Fatalf("claim after a restart: %v", err)
	}
	if s.Recovered || restarted.Stats().LostAcks != 0 || s.ZkControllerEpochZkVersion != first.ZkControllerEpochZkVersion || s.ZkControllerEpoch != first.ZkControllerEpoch {
		t.Fatalf("restart: %+v (lost acks %d), first claim %+v", s, restarted.Stats().LostAcks, first)
	}
	c.checkClaimed(s)

	// An operator raises /controller_epoch (as rollback-fix does before it
	// deletes /controller): the tenure ended although /controller still
	// names us.
	if _, err := c.admin.Set(c.p("/controller_epoch"), znode.EncodeControllerEpoch(first.ZkControllerEpoch+10), first.ZkControllerEpochZkVersion); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*migrationzk.Writer{"same-writer": restarted, "new-writer": c.writer()} {
		_, err := w.ClaimLeadership(testContext(t), kraft())
		var fe *migrationzk.FencedError
		if !errors.As(err, &fe) || fe.Path != "/controller" {
			t.Fatalf("%s: err = %v, want fenced by /controller", name, err)
		}
	}
}
