package torture

import (
	"slices"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// netFault drops the reply of the coming call's transaction, drops its
// request, or cuts the connection in the middle of it, and now and then a
// second network fault on what follows it about /migration.
type netFault struct {
	kind   string
	action zktest.Action
}

func (f netFault) name() string { return f.kind }

func (netFault) available(*cluster, coming) bool { return true }

func (f netFault) inject(cl *cluster, c coming) []*zktest.Armed {
	w := callWrite()
	w.Action = f.action
	if cl.rng.Float64() < 0.2 && len(c.wk.ops) > 0 {
		// Aim at a payload path instead; the same transaction.
		w.Path = p(c.wk.ops[cl.rng.Intn(len(c.wk.ops))].Path())
	}
	armed := []*zktest.Armed{cl.arm(c.g, w)}
	if cl.rng.Float64() < 0.3 {
		// A second fault on whatever comes next about /migration: the
		// resend, or the sync and read that settle it.
		armed = append(armed, cl.arm(c.g, zktest.Fault{Action: cl.randomNetAction(), Op: zktest.OpAny, Path: p("/migration")}))
	}
	return armed
}

// deadlineInDoubt leaves the coming call's transaction in doubt
// (armInDoubt): its caller's deadline ends as the reread that would
// settle it is sent.
type deadlineInDoubt struct{ always }

func (deadlineInDoubt) name() string { return FaultDeadlineInDoubt }

func (deadlineInDoubt) inject(cl *cluster, c coming) []*zktest.Armed {
	return armInDoubt(cl, c, func() { cl.tally.count(FaultDeadlineInDoubt) })
}

// reloadInDoubt leaves a delta in doubt (armInDoubt), and has the driver
// reload its State rather than make the call again (reloadAfterDoubt),
// which counts the fault once the delta is found landed.
type reloadInDoubt struct{ always }

func (reloadInDoubt) name() string { return FaultReloadInDoubt }

func (reloadInDoubt) inject(cl *cluster, c coming) []*zktest.Armed {
	if c.wk.delta == nil {
		return nil
	}
	c.call.reload = true
	return armInDoubt(cl, c, nil)
}

// armInDoubt drops the reply of the coming call's transaction, its copy
// landed, and ends the call's context when the sync of the reread that
// would settle the resend's refusal reaches the server (its request
// dropped), running then first if set. The fault on the reread is armed
// once the reply is dropped, so that the sync of a call that reads before
// it writes passes.
func armInDoubt(cl *cluster, c coming, then func()) []*zktest.Armed {
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = func() {
		calls := cl.calls.Load()
		reread := cl.arm(c.g, zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSync, Path: p("/migration"), Then: func() {
			if then != nil {
				then()
			}
			// The reread of the very call whose reply was dropped.
			c.call.rereadCut.Store(cl.calls.Load() == calls)
			c.call.cancel()
		}})
		c.call.armedLate(reread)
	}
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// notificationInDoubt drops the reply of the coming call's transaction, a
// batch of changes with notifications, its copy landed; it is counted if
// the batch reports a notification written (a batch whose changes
// ZooKeeper held already writes none).
type notificationInDoubt struct{}

func (notificationInDoubt) name() string { return FaultNotificationInDoubt }

func (notificationInDoubt) available(_ *cluster, c coming) bool { return notifies(*c.wk) }

func (notificationInDoubt) inject(cl *cluster, c coming) []*zktest.Armed {
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = func() { c.call.notificationDropped.Store(true) }
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// notifies reports whether wk is a batch of changes with notifications.
func notifies(wk work) bool {
	return slices.ContainsFunc(wk.vocab, func(ch vocabChange) bool { return ch.notification != "" })
}
