package torture

import (
	"sync"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// rivalClaims connects a rival controller, with a higher KRaft epoch,
// that claims leadership a few milliseconds into the coming call, or when
// the call's transaction reaches the server or its reply comes back
// (then dropped), or once the call is over if it never sent it; now and
// then a controller whose claim must lose arrives while the rival's claim
// is in doubt.
type rivalClaims struct{ whenNoRival }

func (rivalClaims) name() string { return FaultRival }

func (rivalClaims) inject(cl *cluster, c coming) []*zktest.Armed {
	return injectRival(cl, c, "", nil)
}

// claimRaces is the number of claim races (FaultClaimRace), one of each
// in every run that covers the kind (raceOf).
const claimRaces = 4

// raceOf says who claims first in claim race v: another controller with
// the rival's KRaft epoch, or, with sameID, the rival's own controller id
// with a lower KRaft epoch (the rival claims over it); and whether the
// rival claims with rollback-safe epochs. Without them, both claims write
// the same /controller_epoch at the same version: only /controller tells
// them apart.
func raceOf(v int) (sameID, rollbackSafe bool) {
	return v/2 == 1, v%2 == 1
}

// claimRace is a rival's claim raced by another claim (raceOf), each
// variant in every run that covers the kind.
type claimRace struct{ whenNoRival }

func (claimRace) name() string { return FaultClaimRace }

func (claimRace) inject(cl *cluster, c coming) []*zktest.Armed {
	return injectRival(cl, c, FaultClaimRace, func(rival *generation, race int) claimFault {
		interfere := func(ctl *znode.Controller) func() bool {
			return func() bool {
				landed := cl.others.epoch(FaultClaimRace, ctl, false)
				if landed {
					cl.tally.held(FaultClaimRace, race)
				}
				return landed
			}
		}
		if sameID, _ := raceOf(race); !sameID {
			ctl := znode.Controller{Version: 2, BrokerID: foreignController, Timestamp: 1, KRaftControllerEpoch: rival.epoch}
			return claimFault{action: zktest.DropRequest, refused: true, interfere: interfere(&ctl)}
		}
		// The rival claims over its own controller's earlier claim.
		ctl := znode.Controller{Version: 2, BrokerID: rival.id, Timestamp: 1, KRaftControllerEpoch: rival.epoch - 1}
		return claimFault{action: zktest.DropRequest, interfere: interfere(&ctl)}
	})
}

// claimTwin: while a rival's claim with rollback-safe epochs is in doubt
// (its request dropped), the same controller and KRaft epoch claims by
// Kafka's rule (twinClaim).
type claimTwin struct{ whenNoRival }

func (claimTwin) name() string { return FaultClaimTwin }

func (claimTwin) inject(cl *cluster, c coming) []*zktest.Armed {
	return injectRival(cl, c, FaultClaimTwin, func(rival *generation, _ int) claimFault {
		twin := znode.Controller{Version: 2, BrokerID: rival.id, Timestamp: 1, KRaftControllerEpoch: rival.epoch}
		return claimFault{action: zktest.DropRequest, interfere: func() bool { return twinClaim(cl, rival, &twin) }}
	})
}

// twinClaim claims as rival's own controller and KRaft epoch by Kafka's
// rule, with twin, while rival's claim with rollback-safe epochs is in
// doubt, when that claim would jump /controller_epoch: its value+1 is
// below the rival's KRaft epoch. Otherwise the twin's write would be the
// very one the rival sent, which no reader can tell apart, and it does
// nothing. It reports whether the write landed.
func twinClaim(cl *cluster, rival *generation, twin *znode.Controller) bool {
	_, value, ok := cl.admin.epoch()
	if !ok || !rival.rollbackSafe || rival.claimedEpoch(value) == value+1 {
		return false
	}
	return cl.others.epoch(FaultClaimTwin, twin, false)
}

// brokerWins: a ZooKeeper-mode broker wins /controller between a rival's
// claim and its resend.
type brokerWins struct{ whenNoRival }

func (brokerWins) name() string { return FaultBrokerWins }

func (brokerWins) inject(cl *cluster, c coming) []*zktest.Armed {
	return injectRival(cl, c, FaultBrokerWins, func(*generation, int) claimFault {
		broker := znode.Controller{Version: 2, BrokerID: 1 + int32(cl.rng.Intn(3)), Timestamp: 1, KRaftControllerEpoch: -1}
		action := cl.randomDrop()
		return claimFault{action: action, cancel: action == zktest.DropReply && cl.rng.Float64() < 0.5,
			interfere: func() bool { return cl.others.epoch(FaultBrokerWins, &broker, false) }}
	})
}

// claimTenureEnds: right after a rival's claim committed, before its
// reply, another party raises /controller_epoch (or rewrites the same
// value).
type claimTenureEnds struct{ whenNoRival }

func (claimTenureEnds) name() string { return FaultClaimTenureEnds }

func (claimTenureEnds) inject(cl *cluster, c coming) []*zktest.Armed {
	return injectRival(cl, c, FaultClaimTenureEnds, func(*generation, int) claimFault {
		same := cl.rng.Float64() < 0.5
		return claimFault{action: zktest.DropReply, refused: true, cancel: cl.rng.Float64() < 0.5,
			interfere: func() bool { return cl.others.epoch(FaultClaimTenureEnds, nil, same) }}
	})
}

// claimFault disturbs a rival's claim: armed on the rival's dialer before
// it claims, it acts on the claim's transaction.
type claimFault struct {
	action zktest.Action
	// interfere is what another party does when the fault acts; it
	// reports whether its write landed.
	interfere func() bool
	// cancel ends the claim call once the fault acted, so that the next
	// call judges the claim in doubt.
	cancel bool
	// refused says the claim must then fail with ErrFenced.
	refused bool
}

// arm arms cf on rival's dialer.
func (cf claimFault) arm(rival *generation) {
	rival.faults.Arm(zktest.Fault{Action: cf.action, Op: zktest.OpMulti, Path: p("/controller"), Then: func() {
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

// injectRival connects a rival controller, unless one is already waiting
// to take over, that claims leadership a few milliseconds into the coming
// call, or when the call's transaction reaches the server or its reply
// comes back (then dropped), or once the call is over if it never sent
// it. With claimKind set, disturb draws a fault of that kind that
// disturbs the rival's claim (race is the variant of a claim race).
func injectRival(cl *cluster, c coming, claimKind string, disturb func(rival *generation, race int) claimFault) []*zktest.Armed {
	if cl.ctl.rival != nil {
		return nil
	}
	rollbackSafe := claimKind == FaultClaimTwin || cl.rng.Float64() < rollbackSafeShare
	race := 0
	if claimKind == FaultClaimRace {
		race = cl.tally.variant(cl.rng, FaultClaimRace, claimRaces)
		_, rollbackSafe = raceOf(race)
	}
	rival := cl.ctl.spawn(rollbackSafe)
	cl.ctl.rival = rival
	if cl.rng.Float64() < sameIDShare {
		// The same controller, restarted with a higher KRaft epoch.
		rival.id = c.g.id
	}
	switch {
	case claimKind != "":
		disturb(rival, race).arm(rival)
	case cl.rng.Float64() < 0.3:
		armLoserInDoubt(cl, rival, c.g)
	}
	claim := claimOnce(cl, rival, FaultRival)
	if cl.rng.Float64() < 0.5 {
		delay := time.Duration(cl.rng.Intn(20)) * time.Millisecond
		go func() {
			time.Sleep(delay)
			claim()
		}()
		return nil
	}
	w := callWrite()
	w.Action = cl.randomDrop()
	w.Then = claim
	// If the call never sent the request (it failed first), claim
	// once the call is over.
	c.call.afterwards(func() { go claim() })
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// claimOnce returns a function that counts a fault of kind and runs
// rival's claim, the first time it is called.
func claimOnce(cl *cluster, rival *generation, kind string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			cl.tally.count(kind)
			rival.claim()
		})
	}
}

// onlyOnce returns a function that runs f the first time it is called.
func onlyOnce(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

// armLoserInDoubt arms, on rival's dialer, a controller whose claim must
// lose to holder's (and so to rival's) arriving while rival's claim is in
// doubt: its reply dropped after the commit.
func armLoserInDoubt(cl *cluster, rival, holder *generation) {
	l := cl.ctl.spawnLoser(holder)
	claim := onlyOnce(func() { cl.ctl.loserClaims(l, holder) })
	rival.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: p("/controller"), Then: claim})
	rival.afterClaim = append(rival.afterClaim, claim)
}

// tenureEnds connects a rival controller, unless one is already waiting,
// that claims leadership right after the coming call's transaction
// committed and before its reply (then dropped) comes back: the call's
// tenure ends while its acknowledgement is lost, and the call must not
// report success.
type tenureEnds struct{ whenNoRival }

func (tenureEnds) name() string { return FaultTenureEnds }

func (tenureEnds) inject(cl *cluster, c coming) []*zktest.Armed {
	if cl.ctl.rival != nil {
		return nil
	}
	rival := cl.ctl.newGeneration()
	cl.ctl.rival = rival
	claim := claimOnce(cl, rival, FaultTenureEnds)
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = func() {
		c.call.tenureEnded.Store(true)
		claim()
	}
	c.call.afterwards(func() { go claim() })
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// loserArrives has a controller whose claim must lose to the caller's
// arrive at once (before the coming call) or while the call's batch is in
// doubt (its reply dropped after the commit).
type loserArrives struct{ whenNoRival }

func (loserArrives) name() string { return FaultLoser }

func (loserArrives) inject(cl *cluster, c coming) []*zktest.Armed {
	l := cl.ctl.spawnLoser(c.g)
	if cl.rng.Float64() < 0.5 {
		cl.ctl.loserClaims(l, c.g)
		return nil
	}
	claim := onlyOnce(func() { cl.ctl.loserClaims(l, c.g) })
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = claim
	c.call.afterwards(claim)
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// resumes has a controller with the caller's very identity claim at once,
// as a restarted controller would: it must resume the caller's standing
// claim, told the same /controller_epoch version, or, claiming with
// rollback-safe epochs over a claim Kafka's rule left below the KRaft
// epoch, claim again and take over from the caller.
type resumes struct{ whenNoRival }

func (resumes) name() string { return FaultResume }

func (resumes) inject(cl *cluster, c coming) []*zktest.Armed {
	g := c.g
	twin := cl.ctl.spawnAs(g.id, g.epoch, g.rollbackSafe || cl.rng.Float64() < 0.5)
	cl.ctl.rival = twin
	cl.tally.count(FaultResume)
	cl.ctl.claim(twin)
	if twin.claimErr != nil || twin.s.ZkControllerEpochZkVersion == g.s.ZkControllerEpochZkVersion {
		// Resumed (or refused, judged already): the caller's tenure goes
		// on.
		cl.ctl.rival = nil
		twin.conn.Close()
	}
	return nil
}

// epochBoundary has another KRaft controller claim (a lower KRaft epoch
// than the rival's to come) so that /controller_epoch, its claim
// standing, holds exactly one below, the very, or one above the KRaft
// epoch of a rival that then claims with rollback-safe epochs: the
// rival's claim must leave /controller_epoch at least at its KRaft epoch
// and above what it found. The holder, fenced by the election, hands over
// to the rival.
type epochBoundary struct{ whenNoRival }

func (epochBoundary) name() string { return FaultEpochBoundary }

func (epochBoundary) inject(cl *cluster, _ coming) []*zktest.Armed {
	_, value, ok := cl.admin.epoch()
	if !ok {
		return nil
	}
	rival := cl.ctl.spawn(true)
	// /controller_epoch minus the KRaft epoch: -1, 0 or 1, each in every
	// run that covers the kind.
	v := cl.tally.variant(cl.rng, FaultEpochBoundary, 3)
	offset := int32(v) - 1
	rival.epoch = max(rival.epoch, value+1-offset)
	cl.ctl.rival = rival
	ctl := znode.Controller{Version: 2, BrokerID: foreignController + 1, Timestamp: 1, KRaftControllerEpoch: rival.epoch - 1}
	if cl.others.epochTo(FaultEpochBoundary, &ctl, func(int32) int32 { return rival.epoch + offset }) {
		cl.tally.held(FaultEpochBoundary, v)
	}
	cl.ctl.claim(rival)
	return nil
}
