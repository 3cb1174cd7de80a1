package migrationzk

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// retrier paces the attempts of one call.
type retrier struct {
	conn Conn
	// newBackOff makes the retry policy, at the first wait: most calls
	// never wait.
	newBackOff func() BackOff
	// policy paces a streak of failed attempts, counted by streak, and
	// restarts when ZooKeeper answers.
	policy BackOff
	streak int
	// expired counts consecutive replies saying the session expired.
	expired int
	// disconnectedSince is when the client was first seen disconnected in
	// the current wait; lastProbe when it was last probed for being closed.
	disconnectedSince time.Time
	lastProbe         time.Time
	// direct runs the call's requests on its own goroutine rather than
	// the waiter's: set for a call that something else lets go when its
	// context ends (executor.inParallel).
	direct bool
}

func (e *executor) retrier() *retrier {
	return &retrier{conn: e.conn, newBackOff: e.opts.newBackOff}
}

// probeAfter is how long a client must look disconnected before it is
// probed for having been closed.
const probeAfter = 100 * time.Millisecond

// Polling of the client's state while waiting for a session: the first
// poll comes after minPoll, and the interval doubles up to maxPoll. A
// client that reconnects at once (zkconn.HostProvider) holds a session
// again within a millisecond or two on a local network.
const (
	minPoll = 100 * time.Microsecond
	maxPoll = 20 * time.Millisecond
)

// staleSessionReplies is how many replies in a row may say the session
// expired, while the client goes on using it, before a call gives up.
const staleSessionReplies = 5

var errGaveUp = errors.New("retry policy gave up")

// answered records that ZooKeeper answered a request, which ends a streak
// of failed attempts.
func (r *retrier) answered() { r.streak = 0 }

// wait pauses after an attempt that failed with err, then waits until the
// client holds a session again. The first retry of a streak waits for the
// session only, without the policy's pause, since a lost connection is most
// often back at once; the policy paces the retries after it. It fails when
// ctx ends, the policy gives up, the client was closed, or the client is
// stuck on a session the server has expired.
func (r *retrier) wait(ctx context.Context, err error) error {
	if errors.Is(err, zk.ErrSessionExpired) {
		r.expired++
	} else {
		r.expired = 0
	}
	if r.expired >= staleSessionReplies && r.conn.State() == zk.StateHasSession {
		return ErrStaleSession
	}
	if err := r.pause(ctx); err != nil {
		return err
	}
	if !errors.Is(err, zk.ErrSessionExpired) {
		r.awaitDisconnect(ctx)
	}
	return r.waitSession(ctx)
}

// maxStaleSession bounds how long a failed attempt waits for the client to
// stop reporting the session of the connection that failed.
const maxStaleSession = 2 * time.Millisecond

// awaitDisconnect gives the client up to maxStaleSession to stop reporting
// a session after an attempt failed for the loss of its connection:
// go-zookeeper fails the request before it marks itself disconnected, and
// a request sent in between is queued for the next connection, where it
// goes whether or not its call still waits for it. A client that keeps its
// session (the error was of another kind) is waited for no longer.
func (r *retrier) awaitDisconnect(ctx context.Context) {
	deadline := time.Now().Add(maxStaleSession)
	for poll := minPoll; r.conn.State() == zk.StateHasSession && time.Now().Before(deadline); poll = min(2*poll, maxPoll) {
		if sleep(ctx, poll) != nil {
			return
		}
	}
}

// pause sleeps as long as the retry policy says, except before the first
// retry of a streak.
func (r *retrier) pause(ctx context.Context) error {
	r.streak++
	if r.policy == nil {
		if r.policy = r.newBackOff(); r.policy == nil {
			return errGaveUp
		}
	}
	if r.streak == 1 {
		r.policy.Reset()
	}
	d := r.policy.NextBackOff()
	if d < 0 { // backoff.Stop
		return errGaveUp
	}
	if r.streak > 1 {
		return sleep(ctx, d)
	}
	return nil
}

// waitSession polls until the client holds a session, probing now and then
// whether it was closed.
func (r *retrier) waitSession(ctx context.Context) error {
	poll := minPoll
	r.disconnectedSince = time.Time{}
	for {
		state := r.conn.State()
		if state == zk.StateHasSession {
			return nil
		}
		if state == zk.StateDisconnected {
			if r.probeClosed(time.Now()) {
				return ErrConnClosed
			}
		} else {
			r.disconnectedSince = time.Time{}
		}
		if err := sleep(ctx, poll); err != nil {
			return err
		}
		poll = min(2*poll, maxPoll)
	}
}

// probeClosed reports whether a client seen disconnected at now turns out
// to be closed; it probes at most once a second, once the client has
// looked disconnected for probeAfter.
func (r *retrier) probeClosed(now time.Time) bool {
	if r.disconnectedSince.IsZero() {
		r.disconnectedSince = now
		return false
	}
	if now.Sub(r.disconnectedSince) < probeAfter || now.Sub(r.lastProbe) < time.Second {
		return false
	}
	r.lastProbe = now
	return closed(r.conn)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
