package migrationzk_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// farKRaftEpoch is a KRaft controller epoch far above the seeded
// /controller_epoch (1).
const farKRaftEpoch = 50

// farKRaft is the state of KRaft controller 3000 with epoch farKRaftEpoch
// about to take over.
func farKRaft() migrationzk.State {
	s := kraft()
	s.KRaftControllerEpoch, s.KRaftMetadataEpoch = farKRaftEpoch, farKRaftEpoch
	return s
}

// epochAt fails unless /controller_epoch holds value at version.
func (c *cluster) epochAt(value, version int32) {
	c.t.Helper()
	data, st := c.get("/controller_epoch")
	got, err := znode.DecodeControllerEpoch(data)
	if err != nil || got != value || st.Version != version {
		c.t.Fatalf("/controller_epoch %d at version %d (%v), want %d at %d", got, st.Version, err, value, version)
	}
}

// twinClaim claims as KRaft controller 3000 with epoch farKRaftEpoch by
// Kafka's rule, through the second session: /controller_epoch raised by
// one and /controller replaced, in one transaction. It runs in a fault's
// Then hook, so it reports with t.Error.
func (c *cluster) twinClaim() {
	data, st, err := c.admin.Get(c.p("/controller_epoch"))
	if err != nil {
		c.t.Error(err)
		return
	}
	epoch, err := znode.DecodeControllerEpoch(data)
	if err != nil {
		c.t.Error(err)
		return
	}
	ctl := znode.Controller{Version: 2, BrokerID: 3000, Timestamp: 1, KRaftControllerEpoch: farKRaftEpoch}
	if _, err := c.admin.Multi(
		&zk.SetDataRequest{Path: c.p("/controller_epoch"), Data: znode.EncodeControllerEpoch(epoch + 1), Version: st.Version},
		&zk.DeleteRequest{Path: c.p("/controller"), Version: -1},
		&zk.CreateRequest{Path: c.p("/controller"), Data: ctl.Encode(), Acl: worldACL},
	); err != nil {
		c.t.Error(err)
	}
}

// Fault: none. A KRaft controller whose epoch (50) is far above
// /controller_epoch (1) claims leadership: with WithRollbackSafeEpochs
// /controller_epoch jumps to 50, without it becomes 2 as Kafka writes it;
// the znode version moves by one either way. A KRaft epoch below
// /controller_epoch + 1 never lowers it: the claim writes current+1.
func TestRollbackSafeClaim(t *testing.T) {
	for _, tc := range []struct {
		name        string
		opts        []migrationzk.Option
		kraftEpoch  int32
		seedEpoch   int32 // /controller_epoch before the claim, at version 0 or 1
		wantEpoch   int32
		seedVersion int32
	}{
		{"option", []migrationzk.Option{migrationzk.WithRollbackSafeEpochs()}, farKRaftEpoch, 1, farKRaftEpoch, 0},
		{"no-option", nil, farKRaftEpoch, 1, 2, 0},
		{"option-epoch-already-above", []migrationzk.Option{migrationzk.WithRollbackSafeEpochs()}, farKRaftEpoch, 80, 81, 1},
		{"option-epoch-one-below", []migrationzk.Option{migrationzk.WithRollbackSafeEpochs()}, farKRaftEpoch, farKRaftEpoch - 1, farKRaftEpoch, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			if tc.seedVersion == 1 {
				if _, err := c.admin.Set(c.p("/controller_epoch"), znode.EncodeControllerEpoch(tc.seedEpoch), 0); err != nil {
					t.Fatal(err)
				}
			}
			w := c.writer(tc.opts...)
			st := kraft()
			st.KRaftControllerEpoch = tc.kraftEpoch
			s, err := w.ClaimLeadership(testContext(t), st)
			if err != nil {
				t.Fatal(err)
			}
			if s.ZkControllerEpoch != tc.wantEpoch || s.ZkControllerEpochZkVersion != tc.seedVersion+1 || s.Recovered {
				t.Fatalf("claimed %+v, want epoch %d at version %d", s, tc.wantEpoch, tc.seedVersion+1)
			}
			c.epochAt(tc.wantEpoch, tc.seedVersion+1)
			c.checkClaimed(s)
			s, _, err = w.GetOrCreate(testContext(t), s)
			if err != nil {
				t.Fatal(err)
			}
			c.tenMoreWrites(w, s) // fenced by the version the claim returned
		})
	}
}

// Fault: connection cut after the server committed the claim (reply
// lost), and before the request reached the server, with
// WithRollbackSafeEpochs under KRaft epoch 50 over /controller_epoch 1. The
// lost reply is recovered with the jumped epoch (50 at version 1), the
// dropped request sent again; neither raises /controller_epoch twice.
func TestRollbackSafeClaimFaults(t *testing.T) {
	for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
		t.Run(action.String(), func(t *testing.T) {
			c := newCluster(t)
			w := c.writer(migrationzk.WithRollbackSafeEpochs())
			armed := c.faults.Arm(zktest.Fault{Action: action, Op: zktest.OpMulti, Path: c.p("/controller")})
			s, err := w.ClaimLeadership(testContext(t), farKRaft())
			if err != nil {
				t.Fatal(err)
			}
			if !armed.HasFired() || s.Recovered != (action == zktest.DropReply) {
				t.Fatalf("fired %v recovered %v", armed.HasFired(), s.Recovered)
			}
			if s.ZkControllerEpoch != farKRaftEpoch || s.ZkControllerEpochZkVersion != 1 {
				t.Fatalf("claimed epoch %d version %d, want %d at 1", s.ZkControllerEpoch, s.ZkControllerEpochZkVersion, farKRaftEpoch)
			}
			c.epochAt(farKRaftEpoch, 1)
			c.checkClaimed(s)
			s, _, err = w.GetOrCreate(testContext(t), s)
			if err != nil {
				t.Fatal(err)
			}
			c.tenMoreWrites(w, s)
		})
	}
}

// Fault: reply to the claim lost after the server committed it, then the
// server stops, so the claim ends with ErrOutcomeUnknown; after a restart
// the caller calls again, as documented. With WithRollbackSafeEpochs the
// claim in doubt is found landed by its jumped epoch: Recovered, 50 at
// version 1.
func TestRollbackSafeClaimOutcomeUnknownThenRetry(t *testing.T) {
	c := newCluster(t)
	if c.srv.Pid() == 0 {
		t.Skip("needs a server of its own")
	}
	w := c.writer(migrationzk.WithRollbackSafeEpochs())
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/controller"), Then: c.stopServer})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := w.ClaimLeadership(ctx, farKRaft()); !errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	c.restartServer()
	waitSession(t, c.conn)
	waitSession(t, c.admin)
	s, err := w.ClaimLeadership(testContext(t), farKRaft())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Recovered || s.ZkControllerEpoch != farKRaftEpoch || s.ZkControllerEpochZkVersion != 1 {
		t.Fatalf("claim after the restart: %+v, want Recovered, epoch %d at version 1", s, farKRaftEpoch)
	}
	c.epochAt(farKRaftEpoch, 1)
	c.checkClaimed(s)
}

// rivalClaim claims for KRaft controller id with epoch through the second
// session, with WithRollbackSafeEpochs. It runs in a fault's Then hook, so
// it reports with t.Error.
func (c *cluster) rivalClaim(id, epoch int32) {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = id, epoch
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := must.Get(migrationzk.New(c.admin, migrationzk.WithRoot(c.root), migrationzk.WithRollbackSafeEpochs()))
	if _, err := w.ClaimLeadership(ctx, s); err != nil {
		c.t.Errorf("rival claim by %d epoch %d: %v", id, epoch, err)
	}
}

// electBroker elects ZooKeeper-mode broker 2 as a broker does: an
// ephemeral /controller and /controller_epoch raised by one, conditioned
// on the version read. It runs in a fault's Then hook.
func (c *cluster) electBroker() {
	data, st, err := c.admin.Get(c.p("/controller_epoch"))
	if err != nil {
		c.t.Error(err)
		return
	}
	epoch, err := znode.DecodeControllerEpoch(data)
	if err != nil {
		c.t.Error(err)
		return
	}
	ctl := znode.Controller{Version: 2, BrokerID: 2, Timestamp: 1, KRaftControllerEpoch: -1}
	if _, err := c.admin.Multi(
		&zk.DeleteRequest{Path: c.p("/controller"), Version: -1},
		&zk.CreateRequest{Path: c.p("/controller"), Data: ctl.Encode(), Acl: worldACL, Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: c.p("/controller_epoch"), Data: znode.EncodeControllerEpoch(epoch + 1), Version: st.Version},
	); err != nil {
		c.t.Error(err)
	}
}

// Fault: the claim's request dropped before it reached the server (so the
// client holds a copy in doubt), and meanwhile another party claims, with
// WithRollbackSafeEpochs under KRaft epoch 50 over /controller_epoch 1:
//   - the same controller and KRaft epoch by Kafka's rule (/controller_epoch
//     2, /controller naming 3000 with epoch 50): a matching /controller is
//     no proof, the epoch is; the claim is not ours, so it is claimed again
//     with the jump (50 at version 2), neither Recovered nor refused;
//   - another controller with the same KRaft epoch and the option
//     (/controller_epoch 50 at version 1, the value ours would have
//     written): refused, fenced by /controller;
//   - a newer KRaft controller (epoch 60): refused;
//   - a ZooKeeper-mode broker elected (/controller_epoch 2): claimed over,
//     50 at version 2.
func TestRollbackSafeClaimRace(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rival       func(c *cluster)
		refused     bool
		wantEpoch   int32
		wantVersion int32
	}{
		{"same-controller-by-kafkas-rule", (*cluster).twinClaim, false, farKRaftEpoch, 2},
		{"other-controller-same-epoch", func(c *cluster) { c.rivalClaim(3001, farKRaftEpoch) }, true, farKRaftEpoch, 1},
		{"newer-kraft-controller", func(c *cluster) { c.rivalClaim(3001, farKRaftEpoch+10) }, true, farKRaftEpoch + 10, 1},
		{"broker-elected", (*cluster).electBroker, false, farKRaftEpoch, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			w := c.writer(migrationzk.WithRollbackSafeEpochs())
			armed := c.faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p("/controller"),
				Then: func() { tc.rival(c) }})
			s, err := w.ClaimLeadership(testContext(t), farKRaft())
			if !armed.HasFired() {
				t.Fatal("fault did not fire")
			}
			c.epochAt(tc.wantEpoch, tc.wantVersion)
			if tc.refused {
				var fe *migrationzk.FencedError
				if !errors.As(err, &fe) || fe.Path != "/controller" {
					t.Fatalf("err = %v, want fenced by /controller", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Recovered || w.Stats().LostAcks != 0 || s.ZkControllerEpoch != tc.wantEpoch || s.ZkControllerEpochZkVersion != tc.wantVersion {
				t.Fatalf("claimed %+v (lost acks %d), want epoch %d at version %d, not recovered",
					s, w.Stats().LostAcks, tc.wantEpoch, tc.wantVersion)
			}
			c.checkClaimed(s)
		})
	}
}
