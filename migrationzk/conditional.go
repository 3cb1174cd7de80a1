package migrationzk

import (
	"context"
	"fmt"

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

// ConditionalUpdate sets the data of the znode at path, if it is at
// version, and returns the new version: the generic single-znode form of
// what Writer.Update does for /migration, like Kafka's conditionalUpdatePath
// with a checker.
//
// If ZooKeeper rejects the write with BadVersion, the znode is reread: when
// it is at exactly version+1 and chk finds its data equivalent to data, an
// earlier copy of this write landed (its acknowledgement was lost) and the
// call succeeds with that version, Recovered. Otherwise the error is a
// *ConflictError holding the version and data ZooKeeper has. A nil chk
// compares bytes. Options: WithBackOff, WithLogger, WithRoot (prefixes
// path) and WithMaxRequestBytes; an invalid one fails the call before
// anything is sent, with an error wrapping ErrInvalidArgument.
func ConditionalUpdate(ctx context.Context, conn Conn, path string, data []byte, version int32, chk checker.Checker, opts ...Option) (UpdateResult, error) {
	failed := UpdateResult{Version: -1}
	exec, full, err := single(conn, opts, path, version, "update")
	if err != nil {
		return failed, err
	}
	if chk == nil {
		chk = checker.Bytes{}
	}
	if size := wire.SetDataSize(full, data); size > exec.opts.maxRequestBytes {
		return failed, fmt.Errorf("%w: writing %s takes %d bytes, limit %d", ErrTooLarge, full, size, exec.opts.maxRequestBytes)
	}
	res := failed
	v, err := exec.runSingle(ctx, full, intent{kind: kindSetData, expected: version, data: data, chk: chk}, func() error {
		st, err := conn.Set(full, data, version)
		if err == nil {
			res.Version = st.Version
		}
		return err
	}, func(cur znodeState) { res.Version = cur.version })
	if err != nil {
		return failed, err
	}
	res.Recovered = v == verdictLanded
	return res, nil
}

// ConditionalDelete deletes the znode at path if it is at version, telling a
// delete whose acknowledgement was lost apart from a conflict the same way
// ConditionalUpdate does. A znode that is already gone counts as deleted: a
// resent delete finds it so (Recovered), and ZooKeeper cannot say who
// removed it; one gone before the first copy was sent is AlreadyGone. A
// znode found at another version is a *ConflictError.
func ConditionalDelete(ctx context.Context, conn Conn, path string, version int32, opts ...Option) (DeleteResult, error) {
	if path == "/" {
		return DeleteResult{}, invalidf("path %q: the root cannot be deleted", path)
	}
	exec, full, err := single(conn, opts, path, version, "delete")
	if err != nil {
		return DeleteResult{}, err
	}
	del := &zk.DeleteRequest{Path: full, Version: version}
	v, err := exec.runSingle(ctx, full, intent{kind: kindDelete, expected: version}, func() error {
		// Sent as a one-op multi, which keeps Conn to the methods it
		// already has.
		_, err := conn.Multi(del)
		return err
	}, nil)
	if err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{Recovered: v == verdictLanded, AlreadyGone: v == verdictMoot}, nil
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

// single readies a one-znode write: the options, the path under the root,
// and the version it is conditioned on.
func single(conn Conn, opts []Option, path string, version int32, what string) (*executor, string, error) {
	if isNilConn(conn) {
		return nil, "", invalidf("nil Conn")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, "", err
	}
	if err := validatePath(path); err != nil {
		return nil, "", invalidf("path %q: %v", path, err)
	}
	if version < 0 {
		return nil, "", invalidf("version %d: a conditional %s needs the version it expects", version, what)
	}
	full := o.root + path
	if path == "/" && o.root != "" {
		full = o.root
	}
	return &executor{conn: conn, opts: o, stats: &counters{}}, full, nil
}
