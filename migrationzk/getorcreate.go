package migrationzk

import (
	"context"
	"fmt"
	"time"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// GetOrCreateResult is what a GetOrCreate found in /migration and whether
// it wrote it.
type GetOrCreateResult struct {
	// Created is set when /migration did not exist and the call created
	// it with the caller's State.
	Created bool
	// ReplacedEmpty is set when /migration held null or empty data and the
	// call overwrote it with the caller's State.
	ReplacedEmpty bool
	// Stored is the checkpoint /migration held, when it held one (the call
	// wrote nothing): as stored, with the KRaft controller id and epoch of
	// the controller that wrote it last, which the returned State does not
	// adopt. Nil when the call wrote /migration.
	Stored *znode.Migration
}

// Wrote reports whether the call wrote /migration: created it or replaced
// null or empty data.
func (r GetOrCreateResult) Wrote() bool { return r.Created || r.ReplacedEmpty }

// GetOrCreate reads /migration, or creates it with s when it does not
// exist. A /migration holding null or empty data, as a security-migration
// tool leaves it, is treated as absent and overwritten with s at its
// current version; any other data that does not decode is reported as a
// *DecodeError and left untouched.
//
// The returned State is s with the checkpoint's position from ZooKeeper
// (KRaftMetadataOffset, KRaftMetadataEpoch), /migration's znode version and
// modification time. It keeps s's identity (KRaftControllerID,
// KRaftControllerEpoch), as it keeps s's ZooKeeper fence: the identity
// comes from the caller's leadership claim, never from the controller that
// wrote /migration last, which the result reports as Stored. /migration
// names the new identity once the caller writes it, with Update or Apply;
// Kafka 3.9 writes it right after claiming leadership.
//
// On a Writer that claimed leadership, s must carry the claim's identity
// (see IdentityError).
func (w *Writer) GetOrCreate(ctx context.Context, s State) (State, GetOrCreateResult, error) {
	var res GetOrCreateResult
	st, err := w.do(ctx, "get or create", w.migrationPath, s, migrationVersion, func(ctx context.Context, s State) (State, verdict, error) {
		return w.getOrCreate(ctx, s, &res)
	})
	if err != nil {
		return st, GetOrCreateResult{}, err
	}
	return st, res, nil
}

// maxCreateRounds bounds how often GetOrCreate reads again when /migration
// changes between its read and its write.
const maxCreateRounds = 100

func (w *Writer) getOrCreate(ctx context.Context, initial State, res *GetOrCreateResult) (State, verdict, error) {
	if err := w.checkState(initial); err != nil {
		return initial, verdictNotLanded, err
	}
	data := initial.Checkpoint().Encode()
	if err := w.checkCreateSize(w.migrationPath, data); err != nil {
		return initial, verdictNotLanded, err
	}
	r := w.exec.retrier()
	for round := 0; round < maxCreateRounds; round++ {
		st, v, err := w.getOrCreateOnce(ctx, r, initial, data, res)
		if v != verdictReread {
			return st, v, err
		}
	}
	return initial, verdictNotLanded, fmt.Errorf("%w: %s kept changing while it was being created", ErrConflict, w.migrationPath)
}

// getOrCreateOnce reads /migration and creates it, or replaces null or
// empty data, when there is nothing to read. verdictReread sends it round
// again.
func (w *Writer) getOrCreateOnce(ctx context.Context, r *retrier, initial State, data []byte, res *GetOrCreateResult) (State, verdict, error) {
	*res = GetOrCreateResult{}
	// Sync first: after a session expired the client may talk to a member
	// that lags, and a stale read would only cause a conflict later.
	cur, err := w.reread(ctx, r, w.migrationPath)
	if err != nil {
		return initial, verdictNotLanded, fmt.Errorf("migrationzk: read %s: %w", w.migrationPath, err)
	}
	if cur.exists && len(cur.data) > 0 {
		m, err := znode.DecodeMigration(cur.data)
		if err != nil {
			return initial, verdictNotLanded, w.withPath(err, w.migrationPath)
		}
		res.Stored = &m
		st := initial.withPosition(m, cur.version, cur.mtime)
		w.confirm(st, cur.data)
		return st, verdictAcked, nil
	}
	var st State
	var v verdict
	if cur.exists {
		w.exec.opts.logger.Warn("migration znode holds no data; writing the initial state", "path", w.migrationPath, "version", cur.version)
		st, v, err = w.replaceEmpty(ctx, r, initial, data, cur.version)
		res.ReplacedEmpty = true
	} else {
		st, v, err = w.createInitial(ctx, r, initial, data)
		res.Created = true
	}
	if err != nil || v == verdictReread {
		return initial, v, err
	}
	st.Recovered = v == verdictLanded
	w.confirm(st, data)
	return st, v, nil
}

func (w *Writer) createInitial(ctx context.Context, r *retrier, initial State, data []byte) (State, verdict, error) {
	v, err := w.create(ctx, r, w.migrationPath, data, checker.MigrationState{})
	st := initial
	st.MigrationZkVersion = 0
	st.LastUpdated = w.exec.opts.now()
	return st, v, err
}

func (w *Writer) checkCreateSize(path string, data []byte) error {
	if size := wire.CreateSize(path, data, w.exec.opts.aclFor(path)); size > w.exec.opts.maxRequestBytes {
		return fmt.Errorf("%w: creating %s takes %d bytes, limit %d", ErrTooLarge, path, size, w.exec.opts.maxRequestBytes)
	}
	return nil
}

// create creates a persistent znode at path holding data. verdictReread
// means it exists already and is not one this call created: the caller
// reads what is there.
func (w *Writer) create(ctx context.Context, r *retrier, path string, data []byte, chk checker.Checker) (verdict, error) {
	if err := w.checkCreateSize(path, data); err != nil {
		return verdictNotLanded, err
	}
	mine := intent{kind: kindCreate, expected: -1, data: data, chk: chk}
	return w.exec.run(ctx, r, write{
		path:     path,
		expected: -1,
		send: func() error {
			_, err := w.exec.conn.Create(path, data, 0, w.exec.opts.aclFor(path))
			return err
		},
		refused: func(error) (string, string) { return path, "create" },
		verify: func(ctx context.Context, r *retrier, rejection error, resent bool) (verdict, error) {
			cur, err := w.reread(ctx, r, path)
			if err != nil {
				return verdictNotLanded, err
			}
			return createVerdict(mine, path, rejection, cur, resent)
		},
	})
}

// replaceEmpty writes initial over a /migration holding null or empty
// data at version.
func (w *Writer) replaceEmpty(ctx context.Context, r *retrier, initial State, data []byte, version int32) (State, verdict, error) {
	st := initial
	mine := intent{kind: kindSetData, expected: version, data: data, chk: checker.MigrationState{}}
	v, err := w.exec.run(ctx, r, write{
		path:     w.migrationPath,
		expected: version,
		send: func() error {
			stat, err := w.exec.conn.Set(w.migrationPath, data, version)
			if err == nil {
				st.MigrationZkVersion, st.LastUpdated = stat.Version, time.UnixMilli(stat.Mtime)
			}
			return err
		},
		verify: func(ctx context.Context, r *retrier, _ error, resent bool) (verdict, error) {
			cur, err := w.reread(ctx, r, w.migrationPath)
			if err != nil {
				return verdictNotLanded, err
			}
			v := replaceVerdict(mine, cur, resent)
			if v == verdictLanded {
				st.MigrationZkVersion, st.LastUpdated = cur.version, time.UnixMilli(cur.mtime)
			}
			return v, nil
		},
	})
	return st, v, err
}
