package migrationzk

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
)

// Conn is the part of a ZooKeeper client the package uses. *zk.Conn from
// github.com/go-zookeeper/zk satisfies it.
type Conn interface {
	Get(path string) ([]byte, *zk.Stat, error)
	Set(path string, data []byte, version int32) (*zk.Stat, error)
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	Multi(ops ...interface{}) ([]zk.MultiResponse, error)
	Children(path string) ([]string, *zk.Stat, error)
	Sync(path string) (string, error)
	State() zk.State
}

var _ Conn = (*zk.Conn)(nil)

// classify sorts a request's error by what it says about the request's
// fate; the operator tool and the torture suite sort with the same rules.
func classify(err error) zkerr.Class { return zkerr.Classify(err) }

// call runs one blocking request and returns its error, giving up waiting
// when ctx ends: then returned is false, and the request may still be sent
// and applied (go-zookeeper has no cancellation). A ctx already ended
// sends nothing. A ctx that cannot end runs fn on the caller's goroutine;
// another runs it on one of w's, so that the caller can stop waiting.
func call(ctx context.Context, w *waiter, fn func() error) (returned bool, err error) {
	if ctx.Done() == nil {
		return true, fn()
	}
	if ctx.Err() != nil {
		return false, nil
	}
	done := w.start(fn)
	select {
	case err := <-done:
		return true, err
	case <-ctx.Done():
		return false, nil
	}
}

// closed reports whether conn was closed. go-zookeeper fails every request
// of a closed client at once with ErrConnectionClosed, while a live client
// that is reconnecting holds requests until it is connected again; a probe
// that fails at once therefore means closed. A probe that waits is left to
// finish whenever the client reconnects (it only syncs).
func closed(conn Conn) bool {
	done := make(chan error, 1)
	go func() {
		_, err := conn.Sync("/")
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
