package migrationzk

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"go.uber.org/multierr"
)

// OpKind is what an Op does to its znode: create it, set its data or
// delete it.
type OpKind uint8

// The kinds of Op.
const (
	// OpCreate creates the znode (CreateSequential makes one too).
	OpCreate OpKind = iota + 1
	// OpSetData sets the znode's data.
	OpSetData
	// OpDelete deletes the znode.
	OpDelete
)

// String names the kind as Op.String does: "create", "setData" or
// "delete".
func (k OpKind) String() string {
	switch k {
	case OpCreate:
		return "create"
	case OpSetData:
		return "setData"
	case OpDelete:
		return "delete"
	}
	return "invalid"
}

// opKind is the kind an Op carries.
type opKind = OpKind

const (
	kindCreate  = OpCreate
	kindSetData = OpSetData
	kindDelete  = OpDelete
)

// Op is one write of a dual-write batch. Make it with Create, SetData or
// Delete; paths are relative to the Writer's root.
type Op struct {
	kind opKind
	// sequential makes a create persistent sequential: path is then the
	// prefix of the name ZooKeeper gives the znode.
	sequential bool
	path       string
	data       []byte
	version    int32
}

// Create creates a persistent znode at path holding data (nil for null data).
func Create(path string, data []byte) Op {
	return Op{kind: kindCreate, path: path, data: data, version: -1}
}

// CreateSequential creates a persistent sequential znode holding data, as
// Kafka creates its change notifications: ZooKeeper names it prefix
// followed by its parent's child counter, zero-padded to ten digits
// (/config/changes/config_change_0000000042). Its OpResult.Path reports
// that name, also after a lost acknowledgement: every op of a transaction
// shares one zxid, so the znode is the child of the prefix's parent that
// the transaction proving the batch created. Inside a batch's fenced
// transaction a notification exists exactly once, and only if its change
// landed.
func CreateSequential(prefix string, data []byte) Op {
	return Op{kind: kindCreate, sequential: true, path: prefix, data: data, version: -1}
}

// SetData sets the data of the znode at path, if it is at version (-1 for
// any version).
func SetData(path string, data []byte, version int32) Op {
	return Op{kind: kindSetData, path: path, data: data, version: version}
}

// Delete deletes the znode at path, if it is at version (-1 for any version).
func Delete(path string, version int32) Op {
	return Op{kind: kindDelete, path: path, version: version}
}

// Path returns the op's path, relative to the Writer's root: for
// CreateSequential, the prefix of the name ZooKeeper gives.
func (o Op) Path() string { return o.path }

// Kind returns what the op does to its znode.
func (o Op) Kind() OpKind { return o.kind }

// Sequential reports whether the op is a CreateSequential.
func (o Op) Sequential() bool { return o.sequential }

// Data returns the data the op writes.
func (o Op) Data() []byte { return o.data }

// Version returns the version the op is conditioned on, -1 for none.
func (o Op) Version() int32 { return o.version }

// String describes the op, such as "create /brokers/topics/foo" or
// "create sequential /config/changes/config_change_".
func (o Op) String() string {
	if o.sequential {
		return "create sequential " + o.path
	}
	return o.kind.String() + " " + o.path
}

// OpResult is the fate of one op of an Apply call.
type OpResult struct {
	Op Op
	// Err is nil when the op was applied; an *OpError when ZooKeeper
	// refused the op on its own account; ErrNotApplied when the call
	// stopped before the op (or refused its input: then the op that made
	// it refuse carries the call's error); or, for the ops of the
	// transaction in flight when the call stopped, an error matching
	// ErrOutcomeUnknown if a copy of that transaction may have landed (it
	// also matches the call's error, such as ErrConflict), else
	// ErrNotApplied.
	Err error
	// Version is the znode's version after the op: the new version after
	// SetData, 0 after Create, -1 after Delete or when not known.
	Version int32
	// Path is the path, relative to the Writer's root, of the znode the op
	// wrote: Op.Path, or for CreateSequential the name ZooKeeper gave it
	// ("" until it is known).
	Path string
	// Recovered is set when the op's transaction lost its acknowledgement
	// and a reread proved it had landed.
	Recovered bool
}

// flags are the create flags of the op.
func (o Op) flags() int32 {
	if o.sequential {
		return zk.FlagSequence
	}
	return 0
}

// knownPath is the path of the znode op writes, if known before it is
// applied.
func (o Op) knownPath() string {
	if o.sequential {
		return ""
	}
	return o.path
}

// notApplied returns one result per op, each ErrNotApplied (nil for no op).
func notApplied(ops []Op) []OpResult {
	if len(ops) == 0 {
		return nil
	}
	results := make([]OpResult, len(ops))
	for i, op := range ops {
		results[i] = OpResult{Op: op, Err: ErrNotApplied, Version: -1, Path: op.knownPath()}
	}
	return results
}

// OpErrors combines the errors of the ops ZooKeeper refused on their own
// account (the *OpError results) into one error, or nil when there are
// none. errors.Is and errors.As see each of them.
func OpErrors(results []OpResult) error {
	var errs []error
	for _, r := range results {
		var oe *OpError
		if errors.As(r.Err, &oe) {
			errs = append(errs, r.Err)
		}
	}
	return multierr.Combine(errs...)
}
