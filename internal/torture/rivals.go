package torture

import (
	"errors"
	"fmt"
	"sync"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// otherControllerBase numbers the controller ids of the losing rivals
// that do not share the holder's id.
const otherControllerBase = 5000

// spawnLoser connects a controller whose claim must lose to holder's
// standing claim: holder's controller id or another, with a KRaft epoch
// one or two below holder's, or, with another id, equal to it.
func (d *driver) spawnLoser(holder *generation) *generation {
	id, epoch := holder.id, holder.epoch-1-int32(d.rng.Intn(2))
	if d.rng.Intn(2) == 0 {
		id = otherControllerBase + int32(len(d.gens))
		if d.rng.Intn(2) == 0 {
			epoch = holder.epoch
		}
	}
	l := d.spawnAs(id, epoch, d.rng.Float64() < rollbackSafeShare)
	l.loser, l.why = true, fmt.Sprintf("the standing claim of controller %d epoch %d", holder.id, holder.epoch)
	l.mustBeRefused.Store(true)
	return l
}

// loserClaims runs l's claim, which must be refused, if /controller still
// names holder (a ZooKeeper-mode broker that won it is no standing claim
// for l to lose to), and then closes l.
func (d *driver) loserClaims(l, holder *generation) {
	defer l.conn.Close()
	if !d.controllerNames(holder) {
		close(l.claimed)
		return
	}
	d.count(FaultLoser)
	d.calls.Add(1)
	d.claim(l)
}

// controllerNames reports whether /controller names g's controller and
// KRaft epoch.
func (d *driver) controllerNames(g *generation) bool {
	_, datas, _, err := d.adminGet(d.p("/controller"))
	if err != nil {
		return false
	}
	c, err := znode.DecodeController(datas[0])
	return err == nil && c.BrokerID == g.id && c.KRaftControllerEpoch == g.epoch
}

// injectLoser has a controller whose claim must lose to g's arrive at once
// (before the call) or while the call's batch is in doubt (its reply
// dropped after the commit).
func (d *driver) injectLoser(g *generation) []*zktest.Armed {
	l := d.spawnLoser(g)
	if d.rng.Float64() < 0.5 {
		d.loserClaims(l, g)
		return nil
	}
	claim := onlyOnce(func() { d.loserClaims(l, g) })
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = claim
	d.afterCall = append(d.afterCall, claim)
	return []*zktest.Armed{d.arm(g, f)}
}

// armLoserInDoubt arms, on rival's dialer, a controller whose claim must
// lose to holder's (and so to rival's) arriving while rival's claim is in
// doubt: its reply dropped after the commit.
func (d *driver) armLoserInDoubt(rival, holder *generation) {
	l := d.spawnLoser(holder)
	claim := onlyOnce(func() { d.loserClaims(l, holder) })
	rival.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: d.p("/controller"), Then: claim})
	rival.afterClaim = append(rival.afterClaim, claim)
}

// injectResume has a controller with g's very identity claim at once, as a
// restarted controller would: it must resume g's standing claim, told the
// same /controller_epoch version, or, claiming with rollback-safe epochs
// over a claim Kafka's rule left below the KRaft epoch, claim again and
// take over from g.
func (d *driver) injectResume(g *generation) []*zktest.Armed {
	twin := d.spawnAs(g.id, g.epoch, g.rollbackSafe || d.rng.Float64() < 0.5)
	d.rival = twin
	d.count(FaultResume)
	d.calls.Add(1)
	d.claim(twin)
	if twin.claimErr != nil || twin.s.ZkControllerEpochZkVersion == g.s.ZkControllerEpochZkVersion {
		// Resumed (or refused, judged already): g's tenure goes on.
		d.rival = nil
		twin.conn.Close()
	}
	return nil
}

// loserAfterClaim has, now and then, a controller whose claim must lose to
// holder's arrive between holder's claim and its first write.
func (d *driver) loserAfterClaim(holder *generation) {
	if d.quiet || d.rng.Float64() >= 0.2 {
		return
	}
	d.loserClaims(d.spawnLoser(holder), holder)
}

// judgeLoser checks the claim of a controller that had to lose: refused
// with ErrFenced. It reports whether g is a loser.
func (d *driver) judgeLoser(g *generation, s migrationzk.State, err error) bool {
	if !g.loser {
		return false
	}
	if !errors.Is(err, migrationzk.ErrFenced) {
		d.anomaly(CheckClaim, "controller %d epoch %d had to lose to %s: %v (/controller_epoch %d at version %d)",
			g.id, g.epoch, g.why, err, s.ZkControllerEpoch, s.ZkControllerEpochZkVersion)
	}
	return true
}

// onlyOnce returns a function that runs f the first time it is called.
func onlyOnce(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

// injectEpochBoundary has another KRaft controller claim (a lower KRaft
// epoch than the rival's to come) so that /controller_epoch, its claim
// standing, holds exactly one below, the very, or one above the KRaft
// epoch of a rival that then claims with rollback-safe epochs: the
// rival's claim must leave /controller_epoch at least at its KRaft epoch
// and above what it found. The holder, fenced by the election, hands over
// to the rival.
func (d *driver) injectEpochBoundary() []*zktest.Armed {
	_, value, ok := d.readEpoch()
	if !ok {
		return nil
	}
	rival := d.spawn(true)
	// /controller_epoch minus the KRaft epoch: -1, 0 or 1, each in every
	// run that covers the kind.
	v := d.variant(FaultEpochBoundary, 3)
	offset := int32(v) - 1
	rival.epoch = max(rival.epoch, value+1-offset)
	d.rival = rival
	ctl := znode.Controller{Version: 2, BrokerID: foreignController + 1, Timestamp: 1, KRaftControllerEpoch: rival.epoch - 1}
	if d.foreignEpochTo(FaultEpochBoundary, &ctl, func(int32) int32 { return rival.epoch + offset }) {
		d.heldVariant(FaultEpochBoundary, v)
	}
	d.calls.Add(1)
	d.claim(rival)
	return nil
}
