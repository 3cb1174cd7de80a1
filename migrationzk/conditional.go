package migrationzk

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/wire"
)

// UpdateResult is what a ConditionalUpdate did.
type UpdateResult struct {
	// Version is the znode's version after the write, as ZooKeeper holds
	// it; -1 when the call failed.
	Version int32
	// Recovered is set when the acknowledgement of a copy of the write was
	// lost and a reread proved that the copy landed.
	Recovered bool
}

// DeleteResult is what a ConditionalDelete did.
type DeleteResult struct {
	// Recovered is set when the acknowledgement of a copy of the delete was
	// lost and a reread after the resend found the znode gone.
	Recovered bool
	// AlreadyGone is set when the znode did not exist when the delete was
	// first sent: there was nothing to delete.
	AlreadyGone bool
}

// ConditionalUpdate sets the data of the znode at path (relative to the
// Writer's root), if it is at version, and returns the new version: the
// generic single-znode form of what Update does for /migration, like
// Kafka's conditionalUpdatePath with a checker. The write is not fenced
// by /controller_epoch and moves no checkpoint.
//
// If ZooKeeper rejects the write with BadVersion, the znode is reread: when
// it is at exactly version+1 and chk finds its data equivalent to data, an
// earlier copy of this write landed (its acknowledgement was lost) and the
// call succeeds with that version, Recovered. Otherwise the error is a
// *ConflictError holding the version and data ZooKeeper has. A nil chk
// compares bytes. An invalid path, a negative version, or a write larger
// than the Writer's request limit fails the call before anything is sent,
// with an error wrapping ErrInvalidArgument or ErrTooLarge. The call
// retries as the Writer's back-off says, logs to its logger and counts in
// its Stats; a retired Writer refuses it with ErrRetired.
func (w *Writer) ConditionalUpdate(ctx context.Context, path string, data []byte, version int32, chk checker.Checker) (UpdateResult, error) {
	failed := UpdateResult{Version: -1}
	if err := w.begin(); err != nil {
		return failed, err
	}
	start, res := time.Now(), failed
	full, v, err := w.conditionalUpdate(ctx, path, data, version, chk, &res)
	w.finish(start, "conditional update", full, version, res.Version, v, err)
	if err != nil {
		return failed, err
	}
	res.Recovered = v == verdictLanded
	return res, nil
}

// conditionalUpdate checks and sends a ConditionalUpdate, setting the
// version it left in res, and returns the full path.
func (w *Writer) conditionalUpdate(ctx context.Context, path string, data []byte, version int32, chk checker.Checker, res *UpdateResult) (string, verdict, error) {
	full, err := w.conditionalPath(path, version, "update")
	if err != nil {
		return full, verdictNotLanded, err
	}
	if chk == nil {
		chk = checker.Bytes{}
	}
	if size := wire.SetDataSize(full, data); size > w.exec.opts.maxRequestBytes {
		return full, verdictNotLanded, fmt.Errorf("%w: writing %s takes %d bytes, limit %d", ErrTooLarge, full, size, w.exec.opts.maxRequestBytes)
	}
	mine := intent{kind: kindSetData, expected: version, data: data, chk: chk}
	v, err := w.exec.runSingle(ctx, full, mine, func() error {
		st, err := w.exec.conn.Set(full, data, version)
		if err == nil {
			res.Version = st.Version
		}
		return err
	}, func(cur znodeState) { res.Version = cur.version })
	return full, v, err
}

// ConditionalDelete deletes the znode at path (relative to the Writer's
// root) if it is at version, telling a delete whose acknowledgement was
// lost apart from a conflict the same way ConditionalUpdate does. A znode
// that is already gone counts as deleted: a resent delete finds it so
// (Recovered), and ZooKeeper cannot say who removed it; one gone before
// the first copy was sent is AlreadyGone. A znode found at another version
// is a *ConflictError. The root itself ("/") cannot be deleted. Like
// ConditionalUpdate it is not fenced, uses the Writer's back-off, logger
// and Stats, and is refused by a retired Writer.
func (w *Writer) ConditionalDelete(ctx context.Context, path string, version int32) (DeleteResult, error) {
	if err := w.begin(); err != nil {
		return DeleteResult{}, err
	}
	start := time.Now()
	full, v, err := w.conditionalDelete(ctx, path, version)
	w.finish(start, "conditional delete", full, version, -1, v, err)
	if err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{Recovered: v == verdictLanded, AlreadyGone: v == verdictMoot}, nil
}

// conditionalDelete checks and sends a ConditionalDelete, and returns the
// full path.
func (w *Writer) conditionalDelete(ctx context.Context, path string, version int32) (string, verdict, error) {
	if path == "/" {
		return w.exec.opts.root + path, verdictNotLanded, invalidf("path %q: the root cannot be deleted", path)
	}
	full, err := w.conditionalPath(path, version, "delete")
	if err != nil {
		return full, verdictNotLanded, err
	}
	del := &zk.DeleteRequest{Path: full, Version: version}
	v, err := w.exec.runSingle(ctx, full, intent{kind: kindDelete, expected: version}, func() error {
		// Sent as a one-op multi, which keeps Conn to the methods it
		// already has.
		_, err := w.exec.conn.Multi(del)
		return err
	}, nil)
	return full, v, err
}

// conditionalPath checks path and the version a one-znode write is
// conditioned on, and returns path under the root (path as given when it
// is invalid).
func (w *Writer) conditionalPath(path string, version int32, what string) (string, error) {
	full, err := w.fullPaths([]string{path})
	if err != nil {
		return path, err
	}
	if version < 0 {
		return full[0], invalidf("version %d: a conditional %s needs the version it expects", version, what)
	}
	return full[0], nil
}

// runSingle runs a write of one znode at path, judged after a rejection by
// conditionalVerdict; onLanded, if set, sees the reread that proved it.
func (e *executor) runSingle(ctx context.Context, path string, mine intent, send func() error, onLanded func(znodeState)) (verdict, error) {
	return e.run(ctx, e.retrier(), write{
		path:     path,
		expected: mine.expected,
		send:     send,
		verify: func(ctx context.Context, r *retrier, rejection error, resent bool) (verdict, error) {
			zs, err := e.reread(ctx, r, path)
			if err != nil {
				return verdictNotLanded, err
			}
			v, err := conditionalVerdict(mine, path, rejection, zs[0], resent)
			if v == verdictLanded && onLanded != nil {
				onLanded(zs[0])
			}
			return v, err
		},
	})
}
