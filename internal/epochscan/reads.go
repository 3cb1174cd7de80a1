package epochscan

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// readsInFlight is how many requests the scan keeps in flight on the
// session, as many as the Writer's reads keep.
const readsInFlight = 64

// inFlight runs fn(0) to fn(n-1) on readsInFlight workers and returns the
// first error, or ctx's once it ends. It returns at once then, leaving a
// worker whose request waits for the connection to finish it alone.
func inFlight(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(n, readsInFlight); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				if err := fn(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return context.Cause(ctx)
}

// request sends fn, a read, until ZooKeeper answers it or ctx ends:
// without a session it waits for one; a read lost with its connection is
// sent again once the client holds a session (zkerr decides which errors
// say so), counted in s.retries.
func (s *scanner) request(ctx context.Context, fn func() error) error {
	for {
		if s.conn.State() != zk.StateHasSession {
			if err := zkconn.WaitForSession(ctx, s.conn); err != nil {
				return err
			}
		}
		err := fn()
		if !zkerr.Retryable(err) {
			return err
		}
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%w (last error: %v)", cerr, err)
		}
		s.retries.Add(1)
	}
}

// children lists the children of path, nil when it does not exist.
func (s *scanner) children(ctx context.Context, path string) (names []string, exists bool, err error) {
	err = s.request(ctx, func() error {
		var err error
		names, _, err = s.conn.Children(s.path(path))
		return err
	})
	if err == zk.ErrNoNode {
		return nil, false, nil
	}
	return names, err == nil, err
}

// get reads the znode at path; data is nil and exists false when it does
// not exist.
func (s *scanner) get(ctx context.Context, path string) (data []byte, exists bool, err error) {
	err = s.request(ctx, func() error {
		var err error
		data, _, err = s.conn.Get(s.path(path))
		return err
	})
	if err == zk.ErrNoNode {
		return nil, false, nil
	}
	return data, err == nil, err
}
