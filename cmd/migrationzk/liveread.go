package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// readLive reads the image the cluster given by --zk and --root holds,
// drawing a progress bar on a terminal. --timeout bounds connecting, and
// each read after: a read that gets no reply for that long fails with a
// *stallError.
func (a *app) readLive(ctx context.Context) (dualwrite.Image, error) {
	var img dualwrite.Image
	err := a.withLiveClient(ctx, func(rctx context.Context, live liveClient) error {
		c, progress := live.c, live.progress
		var err error
		if img, err = c.Read(rctx, progress); err != nil {
			return fmt.Errorf("read %s: %w", a.rootName(), err)
		}
		return nil
	})
	return img, err
}

// liveClient is what withLiveClient gives its function: the connection
// it watches, a Writer and a Client on it, and a function drawing Read's
// progress bar on a terminal.
type liveClient struct {
	conn     *watchedConn
	w        *migrationzk.Writer
	c        *dualwrite.Client
	progress func(dualwrite.ReadProgress)
}

// withLiveClient connects to the cluster given by --zk and --root, checks
// it (the preflight, /brokers/topics) and calls fn with a live client
// there, watched as watching watches it.
func (a *app) withLiveClient(ctx context.Context, fn func(rctx context.Context, live liveClient) error) error {
	conn, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := a.preflight(ctx, conn); err != nil {
		return err
	}
	return a.watching(ctx, conn, func(rctx context.Context, watched *watchedConn) error {
		w, err := a.newWriter(watched)
		if err != nil {
			return err
		}
		c, err := dualwrite.New(w, a.clientOptions()...)
		if err != nil {
			return err
		}
		if err := a.checkTopicsPath(rctx, w); err != nil {
			return err
		}
		bar := &readBar{a: a}
		defer bar.finish()
		return fn(rctx, liveClient{conn: watched, w: w, c: c, progress: bar.update})
	})
}

// watching calls fn with conn watched: --timeout bounds each read made
// through the watchedConn, a read that gets no reply for that long ends
// rctx, and the error fn returns then says so with a *stallError.
func (a *app) watching(ctx context.Context, conn *zk.Conn, fn func(rctx context.Context, watched *watchedConn) error) error {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watched := &watchedConn{Conn: conn}
	watched.alive()
	go watched.watch(rctx, a.g.timeout, cancel)
	if err := fn(rctx, watched); err != nil {
		return a.stalled(rctx, ctx, err)
	}
	return nil
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

// watchedConn is a client whose replies (a znode missing is one, and a
// write refused) are noted, so that a request that gets none for too long
// is ended.
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

// answered notes a reply to a write: a success, or a refusal ZooKeeper
// sent.
func (c *watchedConn) answered(err error) {
	switch zkerr.Classify(err) {
	case zkerr.OK, zkerr.Rejected, zkerr.Fatal:
		c.alive()
	}
}

func (c *watchedConn) Multi(ops ...interface{}) ([]zk.MultiResponse, error) {
	res, err := c.Conn.Multi(ops...)
	c.answered(err)
	return res, err
}

func (c *watchedConn) Set(path string, data []byte, version int32) (*zk.Stat, error) {
	st, err := c.Conn.Set(path, data, version)
	c.answered(err)
	return st, err
}

func (c *watchedConn) Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	p, err := c.Conn.Create(path, data, flags, acl)
	c.answered(err)
	return p, err
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
