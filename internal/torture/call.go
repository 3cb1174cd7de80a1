package torture

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// call is the driver's call in flight, with its repeats after an unknown
// outcome, as the faults around it see it: they may end it as its caller
// would, have something run once it is over, arm faults as they act, and
// say what they did to it.
type call struct {
	// reload makes the driver reload its State once the call ends in
	// doubt, rather than make it again (FaultReloadInDoubt).
	reload bool
	// tenureEnded is set when a fault ended the caller's tenure before
	// the call's acknowledgement came back.
	tenureEnded atomic.Bool
	// notificationDropped is set when the reply of the call, a batch of
	// changes with notifications, was dropped (FaultNotificationInDoubt).
	notificationDropped atomic.Bool
	// rereadCut is set when the call's context ended as the reread of its
	// own copy in doubt was sent (armInDoubt).
	rereadCut atomic.Bool

	mu       sync.Mutex
	cancelFn context.CancelFunc
	// late are the faults the faults armed as they acted.
	late []*zktest.Armed
	// after runs once the call is over.
	after []func()
}

// context returns the context of the call's next attempt, which cancel
// ends.
func (c *call) context(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	c.mu.Lock()
	c.cancelFn = cancel
	c.mu.Unlock()
	return ctx, cancel
}

// cancel ends the call's attempt in flight, as its caller would.
func (c *call) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelFn != nil {
		c.cancelFn()
	}
}

// armedLate records a fault armed as a fault acted during the call.
func (c *call) armedLate(a *zktest.Armed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.late = append(c.late, a)
}

// afterwards has f run once the call is over.
func (c *call) afterwards(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after = append(c.after, f)
}

// over settles the faults armed around the call, and those they armed
// as they acted, then runs what was to run once it is over.
func (c *call) over(armed []*zktest.Armed) {
	waitArmed(armed)
	c.mu.Lock()
	late := c.late
	c.late = nil
	c.mu.Unlock()
	waitArmed(late)
	c.mu.Lock()
	after := c.after
	c.after = nil
	c.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// waitArmed disarms the faults a call left unmatched and waits, two
// seconds at most each, for those it matched: they act when the reply
// comes, unless the connection died first.
func waitArmed(armed []*zktest.Armed) {
	for _, a := range armed {
		if a.Disarm() {
			continue
		}
		select {
		case <-a.Fired():
		case <-time.After(2 * time.Second):
		}
	}
}
