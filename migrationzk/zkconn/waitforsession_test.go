package zkconn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// sessionAfter reports a session from its polls-th poll on.
type sessionAfter struct{ polls, seen int }

func (s *sessionAfter) State() zk.State {
	s.seen++
	if s.seen >= s.polls {
		return zk.StateHasSession
	}
	return zk.StateConnecting
}

// The first polls come milliseconds apart: a session established at the
// fifth poll is seen well within 300ms, where a policy left at its default
// first pause of half a second would not see it.
func TestWaitForSessionPollsClosely(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	conn := &sessionAfter{polls: 5}
	if err := WaitForSession(ctx, conn); err != nil {
		t.Fatalf("WaitForSession: %v after %d polls", err, conn.seen)
	}
}

func TestWaitForSessionEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := WaitForSession(ctx, &sessionAfter{polls: 1 << 30})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitForSession: %v, want context.DeadlineExceeded", err)
	}
}
