package torture

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// claimFault disturbs a rival's claim: armed on the rival's dialer before
// it claims, it acts on the claim's transaction.
type claimFault struct {
	kind   string
	action zktest.Action
	// interfere is what another party does when the fault acts.
	interfere func() bool
	// cancel ends the claim call once the fault acted, so that the next
	// call judges the claim in doubt.
	cancel bool
	// refused says the claim must then fail with ErrFenced.
	refused bool
}

// claimRaces is the number of claim races (FaultClaimRace), one of each
// in every run that covers the kind (claimRace).
const claimRaces = 4

// claimRace says who claims first in claim race v: another controller
// with the rival's KRaft epoch, or, with sameID, the rival's own
// controller id with a lower KRaft epoch (the rival claims over it); and
// whether the rival claims with rollback-safe epochs. Without them, both
// claims write the same /controller_epoch at the same version: only
// /controller tells them apart.
func claimRace(v int) (sameID, rollbackSafe bool) {
	return v/2 == 1, v%2 == 1
}

// pickClaimFault draws the disturbance of kind for rival's claim; race
// is the claim race when kind is FaultClaimRace.
func (d *driver) pickClaimFault(kind string, rival *generation, race int) claimFault {
	switch kind {
	case FaultClaimRace:
		interfere := func(ctl *znode.Controller) func() bool {
			return func() bool {
				landed := d.foreignEpoch(kind, ctl, false)
				if landed {
					d.heldVariant(kind, race)
				}
				return landed
			}
		}
		if sameID, _ := claimRace(race); !sameID {
			ctl := znode.Controller{Version: 2, BrokerID: foreignController, Timestamp: 1, KRaftControllerEpoch: rival.epoch}
			return claimFault{kind: kind, action: zktest.DropRequest, refused: true, interfere: interfere(&ctl)}
		}
		// The rival claims over its own controller's earlier claim.
		ctl := znode.Controller{Version: 2, BrokerID: rival.id, Timestamp: 1, KRaftControllerEpoch: rival.epoch - 1}
		return claimFault{kind: kind, action: zktest.DropRequest, interfere: interfere(&ctl)}
	case FaultClaimTwin:
		twin := znode.Controller{Version: 2, BrokerID: rival.id, Timestamp: 1, KRaftControllerEpoch: rival.epoch}
		return claimFault{kind: kind, action: zktest.DropRequest,
			interfere: func() bool { return d.twinClaim(rival, &twin) }}
	case FaultBrokerWins:
		broker := znode.Controller{Version: 2, BrokerID: 1 + int32(d.rng.Intn(3)), Timestamp: 1, KRaftControllerEpoch: -1}
		action := d.randomDrop()
		return claimFault{kind: kind, action: action, cancel: action == zktest.DropReply && d.rng.Float64() < 0.5,
			interfere: func() bool { return d.foreignEpoch(kind, &broker, false) }}
	}
	same := d.rng.Float64() < 0.5
	return claimFault{kind: FaultClaimTenureEnds, action: zktest.DropReply, refused: true, cancel: d.rng.Float64() < 0.5,
		interfere: func() bool { return d.foreignEpoch(FaultClaimTenureEnds, nil, same) }}
}

// armClaimFault arms cf on rival's dialer.
func (d *driver) armClaimFault(rival *generation, cf claimFault) {
	rival.faults.Arm(zktest.Fault{Action: cf.action, Op: zktest.OpMulti, Path: d.p("/controller"), Then: func() {
		if !cf.interfere() {
			return
		}
		if cf.refused {
			rival.mustBeRefused.Store(true)
		}
		if cf.cancel {
			rival.cancelClaim()
		}
	}})
}

// twinClaim claims as rival's own controller and KRaft epoch by Kafka's
// rule, with twin, while rival's claim with rollback-safe epochs is in
// doubt, when that claim would jump /controller_epoch: its value+1 is
// below the rival's KRaft epoch. Otherwise the twin's write would be the
// very one the rival sent, which no reader can tell apart, and it does
// nothing. It reports whether the write landed.
func (d *driver) twinClaim(rival *generation, twin *znode.Controller) bool {
	_, value, ok := d.readEpoch()
	if !ok || !rival.rollbackSafe || rival.claimedEpoch(value) == value+1 {
		return false
	}
	return d.foreignEpoch(FaultClaimTwin, twin, false)
}

// foreignEpoch moves /controller_epoch as another party would: with ctl,
// in one transaction that also replaces /controller with ctl (an election,
// a KRaft controller's or a ZooKeeper-mode broker's); without, alone, to
// the next value, or with same to the value it holds (a write that moves
// only the version). It reports whether the write landed.
func (d *driver) foreignEpoch(kind string, ctl *znode.Controller, same bool) bool {
	return d.foreignEpochTo(kind, ctl, func(value int32) int32 {
		if same {
			return value
		}
		return value + 1
	})
}

// foreignEpochTo moves /controller_epoch, holding value, to to(value), as
// another party would: with ctl, in one transaction that also replaces
// /controller with ctl. It reports whether the write landed.
func (d *driver) foreignEpochTo(kind string, ctl *znode.Controller, to func(value int32) int32) bool {
	epochPath := d.p("/controller_epoch")
	cur, ok := d.adminRead(epochPath, history.SlotEpoch, history.MigrationGroup)
	if !ok || !cur.Exists {
		return false
	}
	value, err := znode.DecodeControllerEpoch([]byte(cur.Data))
	if err != nil {
		d.anomaly(CheckHarness, "harness: %s: /controller_epoch holds %q: %v", kind, cur.Data, err)
		return false
	}
	value = to(value)
	data := znode.EncodeControllerEpoch(value)
	rc, err := d.foreign(kind, epochPath, history.MigrationGroup, history.SlotEpoch, history.Cond{Kind: history.CondVersion, Version: cur.Version},
		history.Effect{Data: string(data)}, func() (int32, error) { return cur.Version + 1, d.electOrRaise(epochPath, data, cur.Version, ctl) })
	if err == nil {
		who := history.Identity{Anonymous: true}
		if ctl != nil {
			who = history.Identity{ID: ctl.BrokerID, Epoch: ctl.KRaftControllerEpoch}
		}
		d.h.AddClaim(history.ClaimRecord{Who: who, Version: cur.Version + 1, Value: value, At: rc.Span})
	}
	return err == nil
}

// electOrRaise sets /controller_epoch to data if at version, replacing
// /controller with ctl in the same transaction when ctl is set.
func (d *driver) electOrRaise(epochPath string, data []byte, version int32, ctl *znode.Controller) error {
	set := &zk.SetDataRequest{Path: epochPath, Data: data, Version: version}
	if ctl == nil {
		_, err := d.admin.Multi(set)
		return err
	}
	create := &zk.CreateRequest{Path: d.p("/controller"), Data: ctl.Encode(), Acl: zk.WorldACL(zk.PermAll)}
	_, err := d.admin.Multi(set, &zk.DeleteRequest{Path: d.p("/controller"), Version: -1}, create)
	if errors.Is(err, zk.ErrNoNode) {
		// No /controller to replace; nothing of the transaction landed.
		_, err = d.admin.Multi(set, create)
	}
	return err
}
