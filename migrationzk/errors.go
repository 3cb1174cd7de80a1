package migrationzk

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Sentinel errors. Every error the package returns for one of these causes
// matches it with errors.Is; the typed errors carry the details.
var (
	// ErrConflict: the znode moved on and the write did not land: another
	// writer got there first. (When a copy of the write lost its
	// acknowledgement earlier in the call, that copy may have landed and
	// been overwritten; the znode holds the other writer's data either
	// way.) See *ConflictError.
	//
	// What to do: on /migration (a *ConflictError naming it), reload
	// with GetOrCreate, passing the State of this tenure, then write
	// again; never write the State ConflictError.Current holds. On
	// another znode (ConditionalUpdate, ConditionalDelete, an op of
	// Apply: an *OpError), read it again and decide anew. From a
	// dualwrite call, after the rounds in which it read and planned anew
	// were all refused, the checkpoint did not move: find what else
	// writes those znodes, then call again with the same State and
	// changes.
	ErrConflict = errors.New("migrationzk: conflict: znode changed by another writer")
	// ErrFenced: another controller has taken over: /controller_epoch
	// moved, or /migration or /controller shows a newer KRaft controller
	// epoch. The Writer is retired. The call's write did not land, unless
	// the error is also ErrOutcomeUnknown: a copy whose acknowledgement was
	// lost may have landed before the election, and with the fence moved
	// nothing can prove it either way. See *FencedError.
	ErrFenced = errors.New("migrationzk: fenced: another controller has taken over")
	// ErrRetired: the Writer was fenced by an earlier call and writes
	// nothing more.
	ErrRetired = errors.New("migrationzk: writer retired after being fenced")
	// ErrOutcomeUnknown: the context ended while the outcome of a write
	// was unknown (its acknowledgement was lost or still on its way).
	// go-zookeeper cannot take a request back, so a copy it still holds
	// for a connection being re-established may land after the call
	// returned. Calling again with the same arguments is safe: the reread
	// tells a write that already landed apart from a conflict.
	ErrOutcomeUnknown = errors.New("migrationzk: outcome unknown")
	// ErrTooLarge: an op, alone with the fencing ops, exceeds the maximum
	// request size. Nothing was sent.
	ErrTooLarge = errors.New("migrationzk: request too large")
	// ErrNoMigrationState: /migration does not exist.
	ErrNoMigrationState = errors.New("migrationzk: no migration state in ZooKeeper")
	// ErrInvalidArgument: a path, state, version or option is invalid.
	// Nothing was sent.
	ErrInvalidArgument = errors.New("migrationzk: invalid argument")
	// ErrConnClosed: the ZooKeeper client was closed.
	ErrConnClosed = errors.New("migrationzk: zookeeper connection closed")
	// ErrStaleSession: ZooKeeper answers every request with "session
	// expired" while the client goes on using that session instead of
	// starting a new one. go-zookeeper leaves a connection open in that
	// state when a session is closed while the client is reconnecting; only
	// a new client mends it. Close the client, connect again and make a new
	// Writer; calling again with the same State is then safe.
	ErrStaleSession = errors.New("migrationzk: zookeeper session expired but the client keeps using it; reconnect")
	// ErrNotAuthorized: ZooKeeper refused a request because the client's
	// identity lacks the permission on the znode (NoAuth). It is never
	// retried, never an unknown outcome and never a conflict; the call
	// writes nothing after it. See *NotAuthorizedError.
	ErrNotAuthorized = errors.New("migrationzk: not authorized")
	// ErrAuthFailed: ZooKeeper refused the client's credentials, or the
	// session has none while the server requires them. Nothing was
	// written; once the client holds valid credentials the Writer works
	// again. (ZooKeeper takes a wrong digest password without complaint:
	// Writer.CheckCredentials finds it before a write does.)
	ErrAuthFailed = errors.New("migrationzk: authentication failed")
	// ErrNotApplied: the op was not applied because the call stopped
	// before reaching it. Found in OpResult.Err.
	ErrNotApplied = errors.New("migrationzk: op not applied: the batch stopped before it")
)

// DecodeError reports znode data that could not be decoded. It is
// znode.DecodeError; its Reason says why (null data, invalid JSON, missing
// field, wrong type, out of range, unknown version).
type DecodeError = znode.DecodeError

// ConflictError describes a conditional write that did not land because the
// znode no longer has the expected version.
type ConflictError struct {
	// Path is the znode's full path in ZooKeeper, the Writer's root
	// included, as ZooKeeper names it.
	Path string
	// ExpectedVersion is the version the write was conditioned on.
	ExpectedVersion int32
	// CurrentVersion is the version ZooKeeper holds now, or -1 when the
	// znode does not exist.
	CurrentVersion int32
	// CurrentData is the znode's data now.
	CurrentData []byte
	// Current is the decoded /migration state, set when Path is /migration
	// and its data decodes.
	Current *State
	// Err is why the current data could not be compared, if it could not.
	Err error
}

func (e *ConflictError) Error() string {
	s := fmt.Sprintf("migrationzk: conflict on %s: expected version %d, found %d", e.Path, e.ExpectedVersion, e.CurrentVersion)
	if e.Current != nil {
		s += fmt.Sprintf(" (KRaft controller %d epoch %d, offset %d)", e.Current.KRaftControllerID, e.Current.KRaftControllerEpoch, e.Current.KRaftMetadataOffset)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Unwrap returns why the current data could not be compared, if any.
func (e *ConflictError) Unwrap() error { return e.Err }

// FencedError describes why a Writer was fenced.
type FencedError struct {
	// Path is the control znode that shows another controller, named
	// relative to the Writer's root as Op.Path and OpResult.Path are:
	// /controller_epoch, /migration or /controller. (ConflictError and
	// NotAuthorizedError name a znode's full path.)
	Path string
	// Reason says what was found there.
	Reason string
}

func (e *FencedError) Error() string {
	return fmt.Sprintf("migrationzk: fenced by %s: %s", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrFenced) hold.
func (e *FencedError) Is(target error) bool { return target == ErrFenced }

// NotAuthorizedError is a request ZooKeeper refused for want of permission
// (NoAuth): Op (create, setData, delete, check, read) on Path.
type NotAuthorizedError struct {
	// Path is the znode's full path in ZooKeeper, the Writer's root
	// included, as its ACL is found there.
	Path string
	Op   string
	// Err is ZooKeeper's error.
	Err error
}

func (e *NotAuthorizedError) Error() string {
	return fmt.Sprintf("migrationzk: not authorized to %s %s: %v", e.Op, e.Path, e.Err)
}

// Is makes errors.Is(err, ErrNotAuthorized) hold.
func (e *NotAuthorizedError) Is(target error) bool { return target == ErrNotAuthorized }

// Unwrap returns ZooKeeper's error.
func (e *NotAuthorizedError) Unwrap() error { return e.Err }

// authError types err when ZooKeeper refused Op on Path for want of
// permission or of valid credentials; otherwise it returns nil.
func authError(err error, path, op string) error {
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		return &NotAuthorizedError{Path: path, Op: op, Err: err}
	case zkerr.IsAuthRequired(err):
		return fmt.Errorf("%w: %s %s: the server requires authentication the session lacks, such as SASL "+
			"(zkconn.WithSASL): %w", ErrAuthFailed, op, path, err)
	case errors.Is(err, zk.ErrAuthFailed):
		return fmt.Errorf("%w: %s %s: %w", ErrAuthFailed, op, path, err)
	}
	return nil
}

// OpError is an Apply op that ZooKeeper refused on its own account
// (NodeExists, NoNode, BadVersion, NotEmpty on the op's own path). Kafka
// reports these per request rather than failing the batch, and so does
// Apply: the rest of the batch is applied and the checkpoint written.
type OpError struct {
	// Index is the op's position in the Apply call.
	Index int
	Op    Op
	// Err is ZooKeeper's error, such as zk.ErrNodeExists.
	Err error
}

func (e *OpError) Error() string {
	return fmt.Sprintf("migrationzk: op %d (%s %s): %v", e.Index, e.Op.kind, e.Op.path, e.Err)
}

// Unwrap returns ZooKeeper's error.
func (e *OpError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrConflict) hold: ZooKeeper refused the op
// because its znode is not as the op expects.
func (e *OpError) Is(target error) bool { return target == ErrConflict }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}
