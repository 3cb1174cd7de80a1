package migrationzk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Writer performs the ZooKeeper writes of a KRaft controller during a
// ZooKeeper-to-KRaft migration: the /migration checkpoint, dual-write
// batches and leadership claims. It tells its own write whose
// acknowledgement was lost apart from a conflicting one and always returns
// the version ZooKeeper holds. Once fenced by another controller it is
// retired and writes nothing more.
//
// A Writer is safe for concurrent use, though a migration driver normally
// calls it from one goroutine. It does not own the connection.
type Writer struct {
	x        executor
	counters counters

	migrationPath  string
	epochPath      string
	controllerPath string

	fenced    atomic.Pointer[FencedError]
	confirmed atomic.Int64

	mu sync.Mutex
	// last is the /migration content this Writer last confirmed, used as
	// the content of a batch's intermediate transactions.
	last struct {
		version int32
		data    []byte
	}
}

// New returns a Writer that writes through conn, a *zk.Conn or anything
// with the same methods.
func New(conn Conn, opts ...Option) *Writer {
	w := &Writer{}
	w.x = executor{conn: conn, opts: buildOptions(opts), stats: &w.counters}
	root := w.x.opts.root
	w.migrationPath = root + znode.MigrationPath
	w.epochPath = root + znode.ControllerEpochPath
	w.controllerPath = root + znode.ControllerPath
	w.confirmed.Store(-1)
	w.last.version = -1
	return w
}

// Stats returns a snapshot of the Writer's counters.
func (w *Writer) Stats() Stats { return w.counters.snapshot() }

// ConfirmedOffset returns the KRaft metadata offset of the last /migration
// state this Writer confirmed in ZooKeeper, acknowledged or recovered, or
// -1 before the first. Unlike an offset recorded when a write is sent, it
// stops moving while writes are stuck.
func (w *Writer) ConfirmedOffset() int64 { return w.confirmed.Load() }

// Retired reports whether the Writer was fenced, and by what.
func (w *Writer) Retired() (bool, error) {
	if f := w.fenced.Load(); f != nil {
		return true, f
	}
	return false, nil
}

// begin refuses a call on a misconfigured or retired Writer.
func (w *Writer) begin() error {
	if w.x.opts.err != nil {
		return w.x.opts.err
	}
	if f := w.fenced.Load(); f != nil {
		return fmt.Errorf("%w: %v", ErrRetired, f)
	}
	return nil
}

// finish records a call's outcome, logs it, and retires the Writer when
// fenced. path is the znode that proves the call's write; expected and
// version are its znode version before and after (-1 when unknown).
func (w *Writer) finish(start time.Time, call, path string, expected, version int32, o outcome, err error) {
	log := w.x.opts.logger
	if err != nil {
		o = outcomeOf(err)
		var f *FencedError
		if errors.As(err, &f) {
			w.fenced.CompareAndSwap(nil, f)
			log.Warn(call+": fenced; writer retired", "path", f.Path, "expected_version", expected, "outcome", o.String(), "reason", f.Reason)
		} else {
			log.Warn(call+" failed", "path", path, "expected_version", expected, "outcome", o.String(), "error", err)
		}
	} else {
		level := slog.LevelDebug
		if o == outcomeRecovered {
			level = slog.LevelInfo
		}
		// Check first: boxing the versions for a record nobody reads would
		// cost allocations on every write.
		if ctx := context.Background(); log.Enabled(ctx, level) {
			log.Log(ctx, level, call, "path", path, "expected_version", expected, "version", version, "outcome", o.String())
		}
	}
	w.counters.observe(o, time.Since(start))
}

// confirm records a /migration state known to be in ZooKeeper.
func (w *Writer) confirm(s State, data []byte) {
	w.confirmed.Store(s.KRaftMetadataOffset)
	w.mu.Lock()
	w.last.version, w.last.data = s.MigrationZkVersion, data
	w.mu.Unlock()
}

// lastConfirmed returns the /migration bytes confirmed at version, if the
// Writer knows them.
func (w *Writer) lastConfirmed(version int32) ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last.data == nil || w.last.version != version {
		return nil, false
	}
	return w.last.data, true
}

// GetOrCreate reads /migration, or creates it with initial when it does not
// exist. A /migration holding null or empty data, as a security-migration
// tool leaves it, is treated as absent and overwritten with initial at its
// current version; any other data that does not decode is reported as a
// *DecodeError and left untouched.
//
// The returned State has the stored fields and znode version from
// ZooKeeper and initial's ZkControllerEpoch and ZkControllerEpochZkVersion,
// which are not stored there.
func (w *Writer) GetOrCreate(ctx context.Context, initial State) (State, error) {
	return w.do(ctx, "get or create", w.migrationPath, initial, migrationVersion, w.getOrCreate)
}

// do runs one write call: it refuses the call on a misconfigured or retired
// Writer, then records and logs its outcome. On error it returns s.
func (w *Writer) do(ctx context.Context, call, path string, s State, version func(State) int32,
	fn func(context.Context, State) (State, outcome, error)) (State, error) {
	start := time.Now()
	if err := w.begin(); err != nil {
		return s, err
	}
	st, o, err := fn(ctx, s)
	w.finish(start, call, path, version(s), version(st), o, err)
	if err != nil {
		return s, err
	}
	return st, nil
}

func migrationVersion(s State) int32 { return s.MigrationZkVersion }

func epochVersion(s State) int32 { return s.ZkControllerEpochZkVersion }

// errReread sends GetOrCreate back to reading /migration.
var errReread = errors.New("reread")

func (w *Writer) getOrCreate(ctx context.Context, initial State) (State, outcome, error) {
	if err := initial.validate(); err != nil {
		return initial, outcomeError, err
	}
	data := initial.migration().Encode()
	if size := wire.CreateSize(w.migrationPath, data, w.x.opts.acl); size > w.x.opts.maxRequestBytes {
		return initial, outcomeError, fmt.Errorf("%w: creating %s takes %d bytes, limit %d", ErrTooLarge, w.migrationPath, size, w.x.opts.maxRequestBytes)
	}
	r := w.x.retrier()
	const maxRounds = 100
	for round := 0; round < maxRounds; round++ {
		// Sync first: after a session expired the client may talk to a
		// member that lags, and a stale read would only cause a conflict
		// later.
		cur, err := w.reread(ctx, r, w.migrationPath)
		if err != nil {
			return initial, outcomeError, fmt.Errorf("migrationzk: read %s: %w", w.migrationPath, err)
		}
		if cur.exists && len(cur.data) > 0 {
			m, err := znode.DecodeMigration(cur.data)
			if err != nil {
				return initial, outcomeError, w.withPath(err, w.migrationPath)
			}
			st := initial.withMigration(m, cur.version, cur.mtime)
			w.confirm(st, cur.data)
			return st, outcomeOK, nil
		}
		var o outcome
		var st State
		if cur.exists {
			w.x.opts.logger.Warn("migration znode holds no data; writing the initial state", "path", w.migrationPath, "version", cur.version)
			o, st, err = w.setInitial(ctx, r, initial, data, cur.version)
		} else {
			o, st, err = w.createInitial(ctx, r, initial, data)
		}
		if errors.Is(err, errReread) {
			continue
		}
		if err != nil {
			return initial, o, err
		}
		st.Recovered = o == outcomeRecovered
		w.confirm(st, data)
		return st, o, nil
	}
	return initial, outcomeConflict, fmt.Errorf("%w: %s kept changing while it was being created", ErrConflict, w.migrationPath)
}

func (w *Writer) createInitial(ctx context.Context, r *retrier, initial State, data []byte) (outcome, State, error) {
	o, err := w.create(ctx, r, w.migrationPath, data, checker.MigrationState{})
	st := initial
	st.MigrationZkVersion = 0
	st.LastUpdated = w.x.opts.now()
	return o, st, err
}

// create creates a persistent znode at path holding data. When the znode
// exists already and is not one this call created, it returns errReread:
// the caller reads what is there.
func (w *Writer) create(ctx context.Context, r *retrier, path string, data []byte, chk checker.Checker) (outcome, error) {
	if size := wire.CreateSize(path, data, w.x.opts.acl); size > w.x.opts.maxRequestBytes {
		return outcomeError, fmt.Errorf("%w: creating %s takes %d bytes, limit %d", ErrTooLarge, path, size, w.x.opts.maxRequestBytes)
	}
	mine := intent{kind: kindCreate, expected: -1, data: data, chk: chk}
	return w.x.run(ctx, r, write{
		path:     path,
		expected: -1,
		send: func() error {
			_, err := w.x.conn.Create(path, data, 0, w.x.opts.acl)
			return err
		},
		verify: func(ctx context.Context, r *retrier, rejection error, _ bool) (bool, error) {
			if errors.Is(rejection, zk.ErrNoNode) {
				return false, fmt.Errorf("migrationzk: create %s: parent missing: %w", path, rejection)
			}
			cur, err := w.reread(ctx, r, path)
			if err != nil {
				return false, err
			}
			if ok, _ := landed(mine, cur); ok {
				return true, nil
			}
			if cur.exists {
				return false, errReread // someone else's: read what is there
			}
			return false, nil // gone again: create it
		},
	})
}

func (w *Writer) setInitial(ctx context.Context, r *retrier, initial State, data []byte, version int32) (outcome, State, error) {
	st := initial
	mine := intent{kind: kindSetData, expected: version, data: data, chk: checker.MigrationState{}}
	o, err := w.x.run(ctx, r, write{
		path:     w.migrationPath,
		expected: version,
		send: func() error {
			stat, err := w.x.conn.Set(w.migrationPath, data, version)
			if err == nil {
				st.MigrationZkVersion, st.LastUpdated = stat.Version, time.UnixMilli(stat.Mtime)
			}
			return err
		},
		verify: func(ctx context.Context, r *retrier, _ error, _ bool) (bool, error) {
			cur, err := w.reread(ctx, r, w.migrationPath)
			if err != nil {
				return false, err
			}
			if ok, _ := landed(mine, cur); ok {
				st.MigrationZkVersion, st.LastUpdated = cur.version, time.UnixMilli(cur.mtime)
				return true, nil
			}
			return false, errReread
		},
	})
	return o, st, err
}

// reread syncs and reads one znode.
func (w *Writer) reread(ctx context.Context, r *retrier, path string) (znodeState, error) {
	cur, err := w.x.reread(ctx, r, path)
	if err != nil {
		return znodeState{}, err
	}
	return cur[0], nil
}

func (w *Writer) withPath(err error, path string) error {
	var de *DecodeError
	if errors.As(err, &de) {
		de.Path = path
	}
	return err
}

// Update writes the checkpoint s to /migration, conditioned on
// s.MigrationZkVersion, and fenced by /controller_epoch at
// s.ZkControllerEpochZkVersion when that is 0 or more. It returns s with the
// new znode version.
//
// A lost acknowledgement is recovered: the write is resent and, if the
// resend is rejected, /migration is reread; when it holds s at exactly the
// next version the write landed, and the returned State says Recovered.
// Otherwise the error is a *ConflictError with the version ZooKeeper holds,
// or a *FencedError when another controller took over (the Writer is then
// retired). If ctx ends while the outcome is unknown the error is
// ErrOutcomeUnknown, and calling Update again with the same s is safe.
func (w *Writer) Update(ctx context.Context, s State) (State, error) {
	return w.do(ctx, "checkpoint", w.migrationPath, s, migrationVersion, w.update)
}

func (w *Writer) update(ctx context.Context, s State) (State, outcome, error) {
	if err := s.validate(); err != nil {
		return s, outcomeError, err
	}
	if s.MigrationZkVersion < 0 {
		return s, outcomeError, invalidf("MigrationZkVersion %d: Update needs the version of %s (from GetOrCreate)", s.MigrationZkVersion, w.migrationPath)
	}
	data := s.migration().Encode()
	fence := s.ZkControllerEpochZkVersion
	size := wire.SetDataSize(w.migrationPath, data)
	if fence >= 0 {
		size = wire.MultiSize(wire.VersionOpSize(w.epochPath) + wire.SetDataOpSize(w.migrationPath, data))
	}
	if size > w.x.opts.maxRequestBytes {
		return s, outcomeError, fmt.Errorf("%w: writing %s takes %d bytes, limit %d", ErrTooLarge, w.migrationPath, size, w.x.opts.maxRequestBytes)
	}

	var version int32
	var mtime int64
	mine := intent{kind: kindSetData, expected: s.MigrationZkVersion, data: data, chk: checker.MigrationState{}}
	var send func() error
	if fence >= 0 {
		check := &zk.CheckVersionRequest{Path: w.epochPath, Version: fence}
		set := &zk.SetDataRequest{Path: w.migrationPath, Data: data, Version: s.MigrationZkVersion}
		send = func() error {
			res, err := w.x.conn.Multi(check, set)
			if err == nil {
				version, mtime = res[1].Stat.Version, res[1].Stat.Mtime
			}
			return err
		}
	} else {
		send = func() error {
			stat, err := w.x.conn.Set(w.migrationPath, data, s.MigrationZkVersion)
			if err == nil {
				version, mtime = stat.Version, stat.Mtime
			}
			return err
		}
	}
	r := w.x.retrier()
	o, err := w.x.run(ctx, r, write{
		path:     w.migrationPath,
		expected: s.MigrationZkVersion,
		send:     send,
		verify: func(ctx context.Context, r *retrier, _ error, _ bool) (bool, error) {
			paths := []string{w.migrationPath}
			if fence >= 0 {
				paths = append(paths, w.epochPath)
			}
			zs, err := w.x.reread(ctx, r, paths...)
			if err != nil {
				return false, err
			}
			cur, epoch := zs[0], znodeState{exists: true, version: fence}
			if fence >= 0 {
				epoch = zs[1]
			}
			ok, cerr := transactionLanded(mine, cur, fence, epoch)
			if ok {
				version, mtime = cur.version, cur.mtime
				return true, nil
			}
			return false, w.notLanded(s, cur, fence, epoch, cerr)
		},
	})
	if err != nil {
		return s, o, err
	}
	st := s
	st.MigrationZkVersion, st.LastUpdated, st.Recovered = version, time.UnixMilli(mtime), o == outcomeRecovered
	w.confirm(st, data)
	return st, o, nil
}

// notLanded explains why a transaction fenced at fence, conditioned on
// s.MigrationZkVersion, did not land: /controller_epoch moved, /migration is
// missing, or /migration moved (by a newer controller, or a rival).
func (w *Writer) notLanded(s State, cur znodeState, fence int32, epoch znodeState, cerr error) error {
	if fence >= 0 && (!epoch.exists || epoch.version != fence) {
		return &FencedError{Path: w.epochPath, Reason: fmt.Sprintf("version %d, expected %d: another controller was elected", epoch.version, fence)}
	}
	if !cur.exists {
		return fmt.Errorf("%w: %s does not exist", ErrNoMigrationState, w.migrationPath)
	}
	return w.migrationConflict(s, cur, cerr)
}

// migrationConflict reports /migration found at another version than s
// expects: ErrFenced when a newer KRaft controller wrote it, else a conflict.
func (w *Writer) migrationConflict(s State, cur znodeState, cerr error) error {
	ce := &ConflictError{Path: w.migrationPath, ExpectedVersion: s.MigrationZkVersion,
		CurrentVersion: cur.version, CurrentData: cur.data, Err: cerr}
	m, err := znode.DecodeMigration(cur.data)
	if err != nil {
		ce.Err = w.withPath(err, w.migrationPath)
		return ce
	}
	if m.KRaftControllerEpoch > s.KRaftControllerEpoch {
		return &FencedError{Path: w.migrationPath, Reason: fmt.Sprintf(
			"written by KRaft controller %d with epoch %d, newer than ours (%d)", m.KRaftControllerID, m.KRaftControllerEpoch, s.KRaftControllerEpoch)}
	}
	current := s.withMigration(m, cur.version, cur.mtime)
	ce.Current = &current
	ce.Err = nil
	return ce
}
