package migrationzk

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
)

// sessionConn is a Conn that always holds a session; only State is used.
type sessionConn struct{ Conn }

func (sessionConn) State() zk.State { return zk.StateHasSession }

// The first retry of a streak of failed attempts goes out as soon as the
// client holds a session, the next ones after the policy's pause, and an
// answer from ZooKeeper starts a new streak. The policy here pauses an
// hour, so a pause shows as the context ending.
func TestRetrierPausesFromTheSecondRetryOfAStreak(t *testing.T) {
	var made, resets int
	opts, err := buildOptions([]Option{WithBackOff(func() BackOff {
		made++
		return &countingBackOff{BackOff: backoff.NewConstantBackOff(time.Hour), resets: &resets}
	})})
	if err != nil {
		t.Fatal(err)
	}
	x := &executor{conn: sessionConn{}, opts: opts, waiter: newWaiter(waiterIdle)}
	r := x.retrier()
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	for streak := 0; streak < 3; streak++ {
		if err := r.wait(short(), zk.ErrConnectionClosed); err != nil {
			t.Fatalf("streak %d: first retry paused: %v", streak, err)
		}
		if err := r.wait(short(), zk.ErrConnectionClosed); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("streak %d: second retry did not pause: %v", streak, err)
		}
		r.answered()
	}
	if made != 1 || resets != 3 {
		t.Fatalf("policy made %d times, reset %d times; want once, and reset at each streak", made, resets)
	}
	if x.retrier().policy != nil {
		t.Fatal("a retrier made its policy before it had to wait")
	}
}

type countingBackOff struct {
	backoff.BackOff
	resets *int
}

func (c *countingBackOff) Reset() {
	*c.resets++
	c.BackOff.Reset()
}

// scriptedConn reports the states of script in turn, then holds a
// session; only State is used.
type scriptedConn struct {
	Conn
	script []zk.State
	calls  int
}

func (c *scriptedConn) State() zk.State {
	c.calls++
	if c.calls <= len(c.script) {
		return c.script[c.calls-1]
	}
	return zk.StateHasSession
}

// Fault: an attempt failed for the loss of its connection while the
// client still reports the session it had (go-zookeeper marks itself
// disconnected after it fails the request). The retry waits for the
// client to notice, then for the next session, rather than queue the
// request for whatever connection comes next; after a reply saying the
// session expired, which leaves the connection up, it does not wait.
func TestRetryWaitsForTheLostConnection(t *testing.T) {
	for _, tc := range []struct {
		err       error
		wantCalls int
	}{
		{zk.ErrConnectionClosed, 4}, // stale session, disconnected twice, then the new session
		{zk.ErrSessionExpired, 1},
	} {
		conn := &scriptedConn{script: []zk.State{zk.StateHasSession, zk.StateDisconnected, zk.StateDisconnected}}
		x := &executor{conn: conn, opts: options{newBackOff: defaultOptions().newBackOff}, waiter: newWaiter(waiterIdle)}
		if err := x.retrier().wait(context.Background(), tc.err); err != nil {
			t.Fatal(err)
		}
		if conn.calls != tc.wantCalls {
			t.Errorf("after %v: the client's state read %d times, want %d", tc.err, conn.calls, tc.wantCalls)
		}
	}
}
