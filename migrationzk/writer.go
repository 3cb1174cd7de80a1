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
	exec     executor
	counters counters

	migrationPath  string
	epochPath      string
	controllerPath string

	fenced    atomic.Pointer[FencedError]
	confirmed atomic.Int64
	// confirmedMtime is the mtime of the confirmed /migration state, in
	// Unix nanoseconds; 0 before the first.
	confirmedMtime atomic.Int64
	// claimed is the identity of the last leadership claim that
	// succeeded; nil before one.
	claimed atomic.Pointer[Identity]

	mu sync.Mutex
	// last is the /migration content this Writer last confirmed, used as
	// the content of a batch's intermediate transactions.
	last struct {
		version int32
		data    []byte
	}
	// doubtfulClaim is the claim of an earlier call whose outcome was
	// unknown: the one claim a later call may find landed.
	doubtfulClaim *claim
	// doubtfulBatches are the transactions earlier Apply calls left in
	// doubt, the newest last, at most maxDoubts: which ops a transaction
	// found later may hold.
	doubtfulBatches []doubt
}

// New returns a Writer that writes through conn, a *zk.Conn or anything
// with the same methods. A nil conn or an invalid option fails it with an
// error wrapping ErrInvalidArgument that names the option: no option
// silently means its default.
func New(conn Conn, opts ...Option) (*Writer, error) {
	if isNilConn(conn) {
		return nil, invalidf("New: nil Conn")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	w := &Writer{}
	w.exec = executor{conn: conn, opts: o, stats: &w.counters, waiter: newWaiter(waiterIdle)}
	root := w.exec.opts.root
	w.migrationPath = root + znode.MigrationPath
	w.epochPath = root + znode.ControllerEpochPath
	w.controllerPath = root + znode.ControllerPath
	w.confirmed.Store(-1)
	w.last.version = -1
	return w, nil
}

// isNilConn reports whether conn is nil, or a nil *zk.Conn.
func isNilConn(conn Conn) bool {
	c, ok := conn.(*zk.Conn)
	return conn == nil || (ok && c == nil)
}

// Stats returns a snapshot of the Writer's counters.
func (w *Writer) Stats() Stats { return w.counters.snapshot() }

// ConfirmedOffset returns the KRaft metadata offset of the last /migration
// state this Writer confirmed in ZooKeeper, acknowledged or recovered, or
// -1 before the first. Unlike an offset recorded when a write is sent, it
// stops moving while writes are stuck.
func (w *Writer) ConfirmedOffset() int64 { return w.confirmed.Load() }

// ConfirmedModified returns the modification time of the last
// /migration state this Writer confirmed (State.LastUpdated: ZooKeeper's
// mtime, or this host's clock for a /migration it created), or the zero
// time before the first. While writes are stuck it stops moving, and the
// checkpoint's age, the time since, grows.
func (w *Writer) ConfirmedModified() time.Time {
	if ns := w.confirmedMtime.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// Retired reports whether the Writer was fenced, and by what.
func (w *Writer) Retired() (bool, error) {
	if f := w.fenced.Load(); f != nil {
		return true, f
	}
	return false, nil
}

// begin refuses a call on a retired Writer.
func (w *Writer) begin() error {
	if f := w.fenced.Load(); f != nil {
		return fmt.Errorf("%w: %v", ErrRetired, f)
	}
	return nil
}

// finish records a call's outcome, logs it, and retires the Writer when
// fenced. path is the znode that proves the call's write; expected and
// version are its znode version before and after (-1 when unknown).
func (w *Writer) finish(start time.Time, call, path string, expected, version int32, v verdict, err error) {
	log := w.exec.opts.logger
	o := outcomeOf(v, err)
	var f *FencedError
	switch {
	case errors.As(err, &f):
		w.fenced.CompareAndSwap(nil, f)
		log.Warn(call+": fenced; writer retired", "path", w.exec.opts.root+f.Path, "expected_version", expected, "outcome", o.String(), "reason", f.Reason)
	case err != nil:
		log.Warn(call+" failed", "path", path, "expected_version", expected, "outcome", o.String(), "error", err)
	default:
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
	if !s.LastUpdated.IsZero() {
		w.confirmedMtime.Store(s.LastUpdated.UnixNano())
	}
	w.remember(s.MigrationZkVersion, data)
}

// remember records the /migration content known to be in ZooKeeper at
// version, without moving the confirmed offset.
func (w *Writer) remember(version int32, data []byte) {
	w.mu.Lock()
	w.last.version, w.last.data = version, data
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

// do runs one write call: it refuses the call on a retired Writer, then
// records and logs its outcome. On error it returns s.
func (w *Writer) do(ctx context.Context, call, path string, s State, version func(State) int32,
	fn func(context.Context, State) (State, verdict, error)) (State, error) {
	start := time.Now()
	if err := w.begin(); err != nil {
		return s, err
	}
	st, v, err := fn(ctx, s)
	w.finish(start, call, path, version(s), version(st), v, err)
	if err != nil {
		return s, err
	}
	return st, nil
}

func migrationVersion(s State) int32 { return s.MigrationZkVersion }

func epochVersion(s State) int32 { return s.ZkControllerEpochZkVersion }

// reread syncs and reads one znode.
func (w *Writer) reread(ctx context.Context, r *retrier, path string) (znodeState, error) {
	cur, err := w.exec.reread(ctx, r, path)
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
