package migrationzk

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/wire"
)

// ConditionalUpdate sets the data of the znode at path, if it is at
// version, and returns the new version: the generic single-znode form of
// what Writer.Update does for /migration, like Kafka's conditionalUpdatePath
// with a checker.
//
// If ZooKeeper rejects the write with BadVersion, the znode is reread: when
// it is at exactly version+1 and chk finds its data equivalent to data, an
// earlier copy of this write landed (its acknowledgement was lost) and the
// call succeeds with that version. Otherwise the error is a *ConflictError
// holding the version and data ZooKeeper has. A nil chk compares bytes.
// Options: WithBackOff, WithLogger, WithRoot (prefixes path) and
// WithMaxRequestBytes.
func ConditionalUpdate(ctx context.Context, conn Conn, path string, data []byte, version int32, chk checker.Checker, opts ...Option) (int32, error) {
	exec, full, err := single(conn, opts, path, version, "update")
	if err != nil {
		return -1, err
	}
	if chk == nil {
		chk = checker.Bytes{}
	}
	if size := wire.SetDataSize(full, data); size > exec.opts.maxRequestBytes {
		return -1, fmt.Errorf("%w: writing %s takes %d bytes, limit %d", ErrTooLarge, full, size, exec.opts.maxRequestBytes)
	}
	newVersion := int32(-1)
	_, err = exec.runSingle(ctx, full, intent{kind: kindSetData, expected: version, data: data, chk: chk}, func() error {
		st, err := conn.Set(full, data, version)
		if err == nil {
			newVersion = st.Version
		}
		return err
	}, func(cur znodeState) { newVersion = cur.version })
	if err != nil {
		return -1, err
	}
	return newVersion, nil
}

// ConditionalDelete deletes the znode at path if it is at version, telling a
// delete whose acknowledgement was lost apart from a conflict the same way
// ConditionalUpdate does. A znode that is already gone counts as deleted: a
// resent delete finds it so, and ZooKeeper cannot say who removed it. A
// znode found at another version is a *ConflictError.
func ConditionalDelete(ctx context.Context, conn Conn, path string, version int32, opts ...Option) error {
	if path == "/" {
		return invalidf("path %q: the root cannot be deleted", path)
	}
	exec, full, err := single(conn, opts, path, version, "delete")
	if err != nil {
		return err
	}
	del := &zk.DeleteRequest{Path: full, Version: version}
	_, err = exec.runSingle(ctx, full, intent{kind: kindDelete, expected: version}, func() error {
		// Sent as a one-op multi, which keeps Conn to the methods it
		// already has.
		_, err := conn.Multi(del)
		return err
	}, nil)
	return err
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
	o := buildOptions(opts)
	if o.err != nil {
		return nil, "", o.err
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
