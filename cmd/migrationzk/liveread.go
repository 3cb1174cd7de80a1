package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// readLive reads the image the cluster given by --zk and --root holds,
// drawing a progress bar on a terminal. --timeout bounds connecting, and
// each read after: a read that gets no reply for that long fails with a
// *stallError.
func (a *app) readLive(ctx context.Context) (dualwrite.Image, error) {
	conn, err := a.connect(ctx)
	if err != nil {
		return dualwrite.Image{}, err
	}
	defer conn.Close()
	if err := a.preflight(ctx, conn); err != nil {
		return dualwrite.Image{}, err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watched := &watchedConn{Conn: conn}
	watched.alive()
	go watched.watch(rctx, a.g.timeout, cancel)
	w, err := a.newWriter(watched)
	if err != nil {
		return dualwrite.Image{}, err
	}
	c, err := dualwrite.New(w, a.clientOptions()...)
	if err != nil {
		return dualwrite.Image{}, err
	}
	if err := a.checkTopicsPath(rctx, w); err != nil {
		return dualwrite.Image{}, a.stalled(rctx, ctx, err)
	}
	bar := &readBar{a: a}
	defer bar.finish()
	img, err := c.Read(rctx, bar.update)
	if err != nil {
		return dualwrite.Image{}, a.stalled(rctx, ctx, fmt.Errorf("read %s: %w", a.rootName(), err))
	}
	return img, nil
}

// stalled returns err, with the cause of rctx's end when it ended before
// ctx did.
func (a *app) stalled(rctx, ctx context.Context, err error) error {
	var stall *stallError
	if cause := context.Cause(rctx); errors.As(cause, &stall) && ctx.Err() == nil {
		return fmt.Errorf("%w: %v", cause, err)
	}
	return err
}

// stallError is the cause of a live read that got no reply within
// --timeout.
type stallError struct {
	timeout time.Duration
}

func (e *stallError) Error() string {
	return fmt.Sprintf("ZooKeeper sent no reply within %v (--timeout)", e.timeout)
}

// watchedConn is a client whose read replies (a znode missing is one)
// are noted, so that a read that gets none for too long is ended.
type watchedConn struct {
	*zk.Conn
	last atomic.Int64 // UnixNano of the last reply
}

// alive notes a reply.
func (c *watchedConn) alive() { c.last.Store(time.Now().UnixNano()) }

// replied notes a reply unless err says there was none.
func (c *watchedConn) replied(err error) {
	if err == nil || errors.Is(err, zk.ErrNoNode) {
		c.alive()
	}
}

func (c *watchedConn) Get(path string) ([]byte, *zk.Stat, error) {
	data, st, err := c.Conn.Get(path)
	c.replied(err)
	return data, st, err
}

func (c *watchedConn) Children(path string) ([]string, *zk.Stat, error) {
	names, st, err := c.Conn.Children(path)
	c.replied(err)
	return names, st, err
}

func (c *watchedConn) Sync(path string) (string, error) {
	p, err := c.Conn.Sync(path)
	c.replied(err)
	return p, err
}

// watch cancels ctx with a *stallError once no reply came for timeout;
// it returns when ctx ends.
func (c *watchedConn) watch(ctx context.Context, timeout time.Duration, cancel context.CancelCauseFunc) {
	tick := time.NewTicker(max(timeout/10, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if time.Since(time.Unix(0, c.last.Load())) > timeout {
				cancel(&stallError{timeout: timeout})
				return
			}
		}
	}
}
