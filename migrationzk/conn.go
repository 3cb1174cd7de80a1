package migrationzk

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
)

// Conn is the part of a ZooKeeper client the package uses. *zk.Conn from
// github.com/go-zookeeper/zk satisfies it.
type Conn interface {
	Get(path string) ([]byte, *zk.Stat, error)
	Set(path string, data []byte, version int32) (*zk.Stat, error)
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	Multi(ops ...interface{}) ([]zk.MultiResponse, error)
	Sync(path string) (string, error)
	State() zk.State
}

var _ Conn = (*zk.Conn)(nil)

// class is what an error from a request says about the request's fate.
type class int

const (
	classOK       class = iota
	classUnknown        // sent, fate unknown: the connection or session was lost
	classNotSent        // never sent: no server, or it could not be encoded
	classRejected       // ZooKeeper refused it: a version, existence or multi failure
	classFatal          // refused for a reason retrying cannot mend
)

func classify(err error) class {
	switch {
	case err == nil:
		return classOK
	case errors.Is(err, zk.ErrNoServer), errors.Is(err, zk.ErrShortBuffer):
		return classNotSent
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists),
		errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNotEmpty):
		return classRejected
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrInvalidACL),
		errors.Is(err, zk.ErrAuthFailed), errors.Is(err, zk.ErrBadArguments),
		errors.Is(err, zk.ErrAPIError), errors.Is(err, zk.ErrNoChildrenForEphemerals),
		errors.Is(err, zk.ErrInvalidFlags), errors.Is(err, zk.ErrInvalidPath),
		errors.Is(err, zk.ErrReconfigDisabled):
		return classFatal
	}
	// zk.ErrConnectionClosed, zk.ErrSessionExpired, zk.ErrSessionMoved,
	// zk.ErrClosing, raw network errors and anything unrecognised: the
	// request may or may not have been applied.
	return classUnknown
}

// errAbandoned: the context ended while a request was in flight.
var errAbandoned = errors.New("request abandoned")

// executor performs requests for a Writer or a ConditionalUpdate call.
type executor struct {
	conn  Conn
	opts  options
	stats *counters
}

// call runs one blocking request, giving up waiting when ctx ends (the
// request may still be sent and applied: go-zookeeper has no cancellation).
func (x *executor) call(ctx context.Context, fn func() error) error {
	if ctx.Done() == nil {
		return fn()
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errAbandoned
	}
}

// retrier paces the attempts of one call.
type retrier struct {
	x *executor
	// bo is the retry policy, made at the first wait: most calls never
	// wait. It paces a streak of failed attempts, counted by streak, and
	// restarts when ZooKeeper answers.
	bo     backoff.BackOff
	streak int
	// expired counts consecutive replies saying the session expired.
	expired int
	// disconnectedSince is when the client was first seen disconnected in
	// the current wait; lastProbe when it was last probed for being closed.
	disconnectedSince time.Time
	lastProbe         time.Time
}

func (x *executor) retrier() *retrier {
	return &retrier{x: x}
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

// answered records that ZooKeeper answered a request, which ends a streak
// of failed attempts.
func (r *retrier) answered() { r.streak = 0 }

// staleSessionReplies is how many replies in a row may say the session
// expired, while the client goes on using it, before a call gives up.
const staleSessionReplies = 5

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
	if r.expired >= staleSessionReplies && r.x.conn.State() == zk.StateHasSession {
		return ErrStaleSession
	}
	r.streak++
	if r.bo == nil {
		r.bo = r.x.opts.newBackOff()
	}
	if r.streak == 1 {
		r.bo.Reset()
	}
	d := r.bo.NextBackOff()
	if d == backoff.Stop {
		return errGaveUp
	}
	if r.streak > 1 {
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
	poll := minPoll
	r.disconnectedSince = time.Time{}
	for {
		state := r.x.conn.State()
		if state == zk.StateHasSession {
			return nil
		}
		if state == zk.StateDisconnected {
			now := time.Now()
			if r.disconnectedSince.IsZero() {
				r.disconnectedSince = now
			} else if now.Sub(r.disconnectedSince) >= probeAfter && now.Sub(r.lastProbe) >= time.Second {
				r.lastProbe = now
				if r.x.closed() {
					return ErrConnClosed
				}
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

// closed reports whether the client was closed. go-zookeeper fails every
// request of a closed client at once with ErrConnectionClosed, while a live
// client that is reconnecting holds requests until it is connected again;
// a probe that fails at once therefore means closed. A probe that waits is
// left to finish whenever the client reconnects (it only syncs).
func (x *executor) closed() bool {
	done := make(chan error, 1)
	go func() {
		_, err := x.conn.Sync("/")
		done <- err
	}()
	t := time.NewTimer(20 * time.Millisecond)
	defer t.Stop()
	select {
	case err := <-done:
		return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrClosing)
	case <-t.C:
		return false
	}
}

var errGaveUp = errors.New("retry policy gave up")

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

// read runs a read-only request until it gets an answer from ZooKeeper,
// retrying over lost connections. Reads are safe to repeat.
func (x *executor) read(ctx context.Context, r *retrier, fn func() error) error {
	for {
		err := x.call(ctx, fn)
		if err == errAbandoned {
			return ctx.Err()
		}
		switch classify(err) {
		case classUnknown, classNotSent:
			if werr := r.wait(ctx, err); werr != nil {
				return fmt.Errorf("%w (last error: %v)", werr, err)
			}
			continue
		}
		r.answered()
		return err
	}
}

// znodeState is a reread of one znode.
type znodeState struct {
	exists  bool
	data    []byte
	version int32
	mtime   int64
}

// get rereads a znode; a missing znode is not an error.
func (x *executor) get(ctx context.Context, r *retrier, path string) (znodeState, error) {
	var cur znodeState
	err := x.read(ctx, r, func() error {
		data, st, err := x.conn.Get(path)
		if err != nil {
			return err
		}
		cur = znodeState{exists: true, data: data, version: st.Version, mtime: st.Mtime}
		return nil
	})
	if errors.Is(err, zk.ErrNoNode) {
		return znodeState{version: -1}, nil
	}
	return cur, err
}

// sync makes the server this client talks to catch up with the leader, so
// that the reads after it see every write committed before it.
func (x *executor) sync(ctx context.Context, r *retrier, path string) error {
	err := x.read(ctx, r, func() error {
		_, err := x.conn.Sync(path)
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// reread syncs, then reads each path: what ZooKeeper holds after every
// write committed before the sync, even through a member that lags.
func (x *executor) reread(ctx context.Context, r *retrier, paths ...string) ([]znodeState, error) {
	if err := x.sync(ctx, r, paths[0]); err != nil {
		return nil, err
	}
	cur := make([]znodeState, len(paths))
	for i, p := range paths {
		var err error
		if cur[i], err = x.get(ctx, r, p); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// write is one request that changes ZooKeeper, with what is needed to tell
// after a rejection whether an earlier copy of it landed.
type write struct {
	// path names the write in logs and errors.
	path     string
	expected int32
	// prepare, if set, readies the request before each attempt. It runs on
	// the caller's goroutine; send may run on one that a cancelled context
	// abandons, so only send may touch what the request returns.
	prepare func()
	// send performs the request once.
	send func() error
	// verify rereads ZooKeeper after a rejection of send and decides
	// whether the write landed (see landed.go). resent says whether an
	// earlier attempt of this call had an unknown outcome. A nil error
	// with landed false means: not landed, and nothing stands in the way
	// of sending again. Otherwise a non-nil error is the call's result.
	verify func(ctx context.Context, r *retrier, rejection error, resent bool) (landed bool, err error)
}

// outcome of a write.
type outcome int

const (
	outcomeOK outcome = iota
	outcomeRecovered
	outcomeConflict
	outcomeFenced
	outcomeError
)

func (o outcome) String() string {
	switch o {
	case outcomeOK:
		return "ok"
	case outcomeRecovered:
		return "recovered"
	case outcomeConflict:
		return "conflict"
	case outcomeFenced:
		return "fenced"
	}
	return "error"
}

func outcomeOf(err error) outcome {
	switch {
	case err == nil:
		return outcomeOK
	case errors.Is(err, ErrFenced):
		return outcomeFenced
	case errors.Is(err, ErrConflict):
		return outcomeConflict
	}
	return outcomeError
}

// run sends w until ZooKeeper answers, then settles its fate: acknowledged,
// landed per the reread (recovered), or refused. It never reports success
// for a write that did not land.
func (x *executor) run(ctx context.Context, r *retrier, w write) (outcome, error) {
	resent := false // an earlier attempt's fate is unknown
	var last error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			if resent {
				return outcomeError, x.unknown(w, err, last)
			}
			return outcomeError, fmt.Errorf("migrationzk: write %s not sent: %w", w.path, err)
		}
		x.stats.attempts.Add(1)
		if attempt > 1 {
			x.stats.retries.Add(1)
		}
		if w.prepare != nil {
			w.prepare()
		}
		err := x.call(ctx, w.send)
		if err == errAbandoned {
			return outcomeError, x.unknown(w, ctx.Err(), last)
		}
		c := classify(err)
		if c != classUnknown && c != classNotSent {
			r.answered()
		}
		switch c {
		case classOK:
			return outcomeOK, nil
		case classRejected:
			landed, verr := w.verify(ctx, r, err, resent)
			if verr == nil && landed {
				x.stats.lostAcks.Add(1)
				x.opts.logger.Info("write landed although its acknowledgement was lost",
					"path", w.path, "expected_version", w.expected, "attempt", attempt, "outcome", "recovered")
				return outcomeRecovered, nil
			}
			if verr == nil {
				// Not landed and free to go again (a transaction that lost
				// an op, for instance): send the amended request.
				resent = false
				continue
			}
			if resent && isInterrupted(verr) {
				return outcomeError, x.unknown(w, verr, err)
			}
			return outcomeOf(verr), verr
		case classFatal:
			return outcomeError, fmt.Errorf("migrationzk: write %s: %w", w.path, err)
		case classUnknown:
			resent = true
			x.opts.logger.Debug("write outcome unknown; resending once connected",
				"path", w.path, "expected_version", w.expected, "attempt", attempt, "error", err)
		case classNotSent:
			x.opts.logger.Debug("write not sent; retrying once connected",
				"path", w.path, "expected_version", w.expected, "attempt", attempt, "error", err)
		}
		last = err
		if werr := r.wait(ctx, err); werr != nil {
			if resent {
				return outcomeError, x.unknown(w, werr, err)
			}
			return outcomeError, fmt.Errorf("migrationzk: write %s not sent: %w (last error: %v)", w.path, werr, err)
		}
	}
}

// isInterrupted reports whether err means the reread could not be made.
func isInterrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrConnClosed) || errors.Is(err, ErrStaleSession) || errors.Is(err, errGaveUp)
}

func (x *executor) unknown(w write, cause, last error) error {
	if last != nil {
		return fmt.Errorf("%w: write %s (expected version %d): %w (last error: %v)", ErrOutcomeUnknown, w.path, w.expected, cause, last)
	}
	return fmt.Errorf("%w: write %s (expected version %d): %w", ErrOutcomeUnknown, w.path, w.expected, cause)
}

// firstFailure returns the index and error of the op that failed a multi:
// ops before it report no error (they were rolled back), the ones after it
// a runtime-inconsistency code.
func firstFailure(res []zk.MultiResponse) (int, error) {
	for i, r := range res {
		if r.Error != nil {
			return i, r.Error
		}
	}
	return -1, nil
}
