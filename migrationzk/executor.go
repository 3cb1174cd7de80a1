package migrationzk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
)

// executor performs the requests of a Writer.
type executor struct {
	conn  Conn
	opts  options
	stats *counters
	// waiter runs the requests of calls whose context can end.
	waiter *waiter
}

// read runs a read-only request until it gets an answer from ZooKeeper,
// retrying over lost connections. Reads are safe to repeat. When it
// returns an error, fn may still be running (ctx ended while it waited):
// the caller must not read what fn sets.
func (e *executor) read(ctx context.Context, r *retrier, fn func() error) error {
	for {
		returned, err := e.send(ctx, r, fn)
		if !returned {
			return ctx.Err()
		}
		if zkerr.Retryable(err) {
			if werr := r.wait(ctx, err); werr != nil {
				return fmt.Errorf("%w (last error: %v)", werr, err)
			}
			continue
		}
		r.answered()
		if aerr := authError(err, "", "read"); aerr != nil {
			return aerr
		}
		return err
	}
}

// send runs fn once and reports whether it returned: on the caller's
// goroutine when ctx cannot end or r is direct, otherwise on the waiter's,
// so that the caller can leave when ctx ends. Nothing is sent once ctx
// has ended.
func (e *executor) send(ctx context.Context, r *retrier, fn func() error) (returned bool, err error) {
	if !r.direct {
		return call(ctx, e.waiter, fn)
	}
	if ctx.Err() != nil {
		return false, nil
	}
	return true, fn()
}

// znodeState is a reread of one znode.
type znodeState struct {
	exists  bool
	data    []byte
	version int32
	mtime   int64
	// ephemeralOwner is the session that owns an ephemeral znode, 0 for a
	// persistent one.
	ephemeralOwner int64
	// czxid and mzxid are the zxids of the transactions that created and
	// last modified the znode. All ops of a multi share one zxid.
	czxid, mzxid int64
}

// absent is the znodeState of a znode that does not exist.
var absent = znodeState{version: -1}

// get rereads a znode; a missing znode is not an error.
func (e *executor) get(ctx context.Context, r *retrier, path string) (znodeState, error) {
	var cur znodeState
	err := e.read(ctx, r, func() error {
		data, st, err := e.conn.Get(path)
		if err != nil {
			return err
		}
		cur = znodeState{exists: true, data: data, version: st.Version, mtime: st.Mtime, ephemeralOwner: st.EphemeralOwner, czxid: st.Czxid, mzxid: st.Mzxid}
		return nil
	})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return absent, nil
	case err != nil:
		// cur is not read: a request ctx abandoned may still set it.
		return znodeState{}, withAuthPath(err, path)
	}
	return cur, nil
}

// withAuthPath puts path into a *NotAuthorizedError that lacks one.
func withAuthPath(err error, path string) error {
	var nae *NotAuthorizedError
	if errors.As(err, &nae) && nae.Path == "" {
		nae.Path = path
	}
	return err
}

// multiRefused names the op of a multi that ZooKeeper refused, from its
// results: paths and ops name the multi's ops in order.
func multiRefused(res []zk.MultiResponse, paths, ops []string) (string, string) {
	for i, r := range res {
		if r.Error != nil && i < len(paths) {
			return paths[i], ops[i]
		}
	}
	return paths[len(paths)-1], "multi"
}

// maxReadsInFlight bounds the reads getAll keeps in flight on the session.
const maxReadsInFlight = 64

// getAll reads every path, several in flight at once on the session; a
// missing znode is not an error.
func (e *executor) getAll(ctx context.Context, paths []string) ([]znodeState, error) {
	cur := make([]znodeState, len(paths))
	err := e.inParallel(ctx, len(paths), func(r *retrier, i int) error {
		var err error
		cur[i], err = e.get(ctx, r, paths[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	return cur, nil
}

// inParallel runs fn(r, i) for each i from 0 to n-1 on up to
// maxReadsInFlight goroutines, each taking the next index until none is
// left, and returns their errors joined. Each i gets a fresh retrier r
// (a retrier paces one call), direct: its requests run on the goroutine
// that took it, not handed to the waiter one by one. The goroutine makes
// its next index's retrier in the same memory once fn returns, so fn
// must not keep r. When ctx ends, inParallel returns ctx's error at once, the
// goroutines take no further index, and the requests in flight finish
// alone: the caller must then not read what fn sets.
func (e *executor) inParallel(ctx context.Context, n int, fn func(r *retrier, i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(n, maxReadsInFlight); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fresh, r := e.retrier(), new(retrier)
			fresh.direct = true
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				*r = *fresh
				errs[i] = fn(r, i)
			}
		}()
	}
	if ctx.Done() == nil {
		wg.Wait()
		return errors.Join(errs...)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// sync makes the server this client talks to catch up with the leader, so
// that the reads after it see every write committed before it.
func (e *executor) sync(ctx context.Context, r *retrier, path string) error {
	err := e.read(ctx, r, func() error {
		_, err := e.conn.Sync(path)
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return withAuthPath(err, path)
}

// reread syncs, then reads each path: what ZooKeeper holds after every
// write committed before the sync, even through a member that lags.
func (e *executor) reread(ctx context.Context, r *retrier, paths ...string) ([]znodeState, error) {
	if err := e.sync(ctx, r, paths[0]); err != nil {
		return nil, err
	}
	cur := make([]znodeState, len(paths))
	for i, p := range paths {
		var err error
		if cur[i], err = e.get(ctx, r, p); err != nil {
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
	// refused, if set, names the znode and operation ZooKeeper refused
	// when it refused send for a reason retrying cannot mend (for a
	// transaction, the op it refused); by default path and "write".
	refused func(err error) (path, op string)
	// verify rereads ZooKeeper after ZooKeeper rejected send and returns
	// the verdict of the rules in landed.go. resent says whether an
	// earlier attempt of this call had an unknown outcome. The error is
	// set exactly when the verdict is verdictNotLanded: why the write did
	// not land, or why the reread could not be made.
	verify func(ctx context.Context, r *retrier, rejection error, resent bool) (verdict, error)
}

// run sends w until ZooKeeper answers, then settles its fate: acknowledged,
// landed per the reread although its acknowledgement was lost, or not
// landed (the error says why). It returns verdictAcked, verdictLanded,
// verdictReread or verdictMoot with a nil error, or verdictNotLanded with
// the call's error; it never reports a write that did not land as landed.
func (e *executor) run(ctx context.Context, r *retrier, w write) (verdict, error) {
	resent := false // an earlier attempt's fate is unknown
	var last error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return verdictNotLanded, e.stopped(w, resent, err, last)
		}
		returned, err := e.attempt(ctx, w, attempt)
		if !returned {
			return verdictNotLanded, e.unknown(w, ctx.Err(), last)
		}
		switch c := classify(err); c {
		case zkerr.OK:
			r.answered()
			return verdictAcked, nil
		case zkerr.Rejected:
			r.answered()
			v, verr := e.settle(ctx, r, w, err, resent, attempt)
			if v != verdictResend {
				return v, verr
			}
			resent = false
			continue
		case zkerr.Fatal:
			r.answered()
			return verdictNotLanded, w.refusedFor(err)
		default:
			resent = resent || c == zkerr.Unknown
			e.opts.logger.Debug("write not acknowledged; sending again once connected",
				"path", w.path, "expected_version", w.expected, "attempt", attempt, "error", err, "reason", c.String())
		}
		last = err
		if werr := r.wait(ctx, err); werr != nil {
			return verdictNotLanded, e.stopped(w, resent, werr, err)
		}
	}
}

// refusedFor is the error of w refused for a reason retrying cannot mend:
// typed when it is a matter of permission or credentials.
func (w write) refusedFor(err error) error {
	path, op := w.path, "write"
	if w.refused != nil {
		path, op = w.refused(err)
	}
	if aerr := authError(err, path, op); aerr != nil {
		return aerr
	}
	return fmt.Errorf("migrationzk: %s %s: %w", op, path, err)
}

// attempt sends w once and counts it; returned is false when ctx ended
// first.
func (e *executor) attempt(ctx context.Context, w write, attempt int) (returned bool, err error) {
	e.stats.attempts.Add(1)
	if attempt > 1 {
		e.stats.retries.Add(1)
	}
	if w.prepare != nil {
		w.prepare()
	}
	return call(ctx, e.waiter, w.send)
}

// settle asks w's verify step for the verdict on a rejected attempt.
func (e *executor) settle(ctx context.Context, r *retrier, w write, rejection error, resent bool, attempt int) (verdict, error) {
	v, err := w.verify(ctx, r, rejection, resent)
	switch v {
	case verdictLanded:
		e.recovered(w.path, w.expected, attempt)
	case verdictNotLanded:
		// A copy in doubt that the reread cannot judge, for want of a
		// reread or because the fence that would prove it has moved:
		// unknown, fenced or not.
		if resent && (isInterrupted(err) || errors.Is(err, ErrFenced)) {
			return verdictNotLanded, e.unknown(w, err, rejection)
		}
	}
	return v, err
}

// recovered counts and logs a write to path whose acknowledgement was lost
// and which a reread proved had landed; attempt is 0 when the write was
// sent by an earlier call.
func (e *executor) recovered(path string, expected int32, attempt int) {
	e.stats.lostAcks.Add(1)
	e.opts.logger.Info("write landed although its acknowledgement was lost",
		"path", path, "expected_version", expected, "attempt", attempt, "outcome", "recovered")
}

// stopped is the error of a call that stopped before ZooKeeper answered:
// its outcome is unknown if an earlier attempt's was.
func (e *executor) stopped(w write, resent bool, cause, last error) error {
	if resent {
		return e.unknown(w, cause, last)
	}
	if last != nil {
		return fmt.Errorf("migrationzk: write %s not sent: %w (last error: %v)", w.path, cause, last)
	}
	return fmt.Errorf("migrationzk: write %s not sent: %w", w.path, cause)
}

// isInterrupted reports whether err means the reread could not be made.
func isInterrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrConnClosed) || errors.Is(err, ErrStaleSession) || errors.Is(err, errGaveUp)
}

func (e *executor) unknown(w write, cause, last error) error {
	if last != nil {
		return fmt.Errorf("%w: write %s (expected version %d): %w (last error: %v)", ErrOutcomeUnknown, w.path, w.expected, cause, last)
	}
	return fmt.Errorf("%w: write %s (expected version %d): %w", ErrOutcomeUnknown, w.path, w.expected, cause)
}
