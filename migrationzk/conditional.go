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
	x, full, err := single(conn, opts, path, version, "update")
	if err != nil {
		return -1, err
	}
	if chk == nil {
		chk = checker.Bytes{}
	}
	if size := wire.SetDataSize(full, data); size > x.opts.maxRequestBytes {
		return -1, fmt.Errorf("%w: writing %s takes %d bytes, limit %d", ErrTooLarge, full, size, x.opts.maxRequestBytes)
	}
	mine := intent{kind: kindSetData, expected: version, data: data, chk: chk}
	var newVersion int32
	r := x.retrier()
	_, err = x.run(ctx, r, write{
		path:     full,
		expected: version,
		send: func() error {
			st, err := conn.Set(full, data, version)
			if err == nil {
				newVersion = st.Version
			}
			return err
		},
		verify: func(ctx context.Context, r *retrier, rejection error, _ bool) (bool, error) {
			zs, err := x.reread(ctx, r, full)
			if err != nil {
				return false, err
			}
			cur := zs[0]
			ok, cerr := landed(mine, cur)
			if ok {
				newVersion = cur.version
				return true, nil
			}
			if !cur.exists {
				return false, fmt.Errorf("migrationzk: update %s: %w", full, rejection)
			}
			return false, &ConflictError{Path: full, ExpectedVersion: version, CurrentVersion: cur.version, CurrentData: cur.data, Err: cerr}
		},
	})
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
	x, full, err := single(conn, opts, path, version, "delete")
	if err != nil {
		return err
	}
	del := &zk.DeleteRequest{Path: full, Version: version}
	r := x.retrier()
	_, err = x.run(ctx, r, write{
		path:     full,
		expected: version,
		send: func() error {
			// Sent as a one-op multi, which keeps Conn to the methods it
			// already has.
			_, err := conn.Multi(del)
			return err
		},
		verify: func(ctx context.Context, r *retrier, _ error, _ bool) (bool, error) {
			zs, err := x.reread(ctx, r, full)
			if err != nil {
				return false, err
			}
			cur := zs[0]
			if ok, _ := landed(intent{kind: kindDelete, expected: version}, cur); ok {
				return true, nil
			}
			return false, &ConflictError{Path: full, ExpectedVersion: version, CurrentVersion: cur.version, CurrentData: cur.data}
		},
	})
	return err
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
