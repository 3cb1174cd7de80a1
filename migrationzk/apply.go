package migrationzk

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Apply writes a dual-write batch: ops in order, packed into as few
// ZooKeeper transactions as the maximum request size allows. Every
// transaction is fenced by a check of /controller_epoch at
// s.ZkControllerEpochZkVersion and carries a conditional SetData of
// /migration, which proves whether it landed: [Check /controller_epoch,
// SetData /migration, ops...], the layout Kafka uses for each of its
// requests. Transactions before the last rewrite /migration with the
// content it already had; the last writes s, so the checkpoint moves only
// once every op of the batch is in ZooKeeper.
//
// An op that ZooKeeper refuses on its own account (NodeExists, NoNode,
// BadVersion, NotEmpty on its own path) is reported in its OpResult as an
// *OpError and its transaction is sent again without it, as Kafka reports
// such failures per request. They do not fail the call. ZooKeeper reports
// one refusal per request, so each costs a request; once a transaction has
// had one, the rest of it goes in parts sized by the gaps between
// refusals, so that a batch never takes more than a request per op and one
// per transaction, and the bytes sent stay proportional to the batch.
//
// The results hold one OpResult per op, in order, whatever the outcome. On
// success the returned State is s with the final /migration version. On
// error it is what ZooKeeper is known to hold: s when no transaction is
// known to have landed, otherwise the content /migration had before the
// batch at the version the landed transactions left. (A transaction in
// doubt is not counted: its OpResults and the call's error then say
// ErrOutcomeUnknown.) To finish the batch, call Apply again with s, its
// MigrationZkVersion taken from the returned State, and the ops whose
// result has a non-nil Err other than an *OpError, in order. An empty batch
// writes nothing and returns s. On a Writer that claimed leadership, s
// must name the claim's controller and KRaft epoch (see IdentityError);
// transactions before the last rewrite /migration's checkpoint under that
// identity.
func (w *Writer) Apply(ctx context.Context, s State, ops ...Op) (State, []OpResult, error) {
	return w.apply(ctx, s, false, ops)
}

// ApplyAtomic writes a batch as Apply does, but each of its transactions
// lands whole or not at all: an op that ZooKeeper refuses on its own
// account fails its transaction, and the call returns the *OpError
// (matching ErrConflict), with the op's result holding it and the other
// ops of that transaction ErrNotApplied. A batch that fits one transaction
// thus lands whole or not at all; one that the size limit splits moves the
// checkpoint only with its last transaction, so a batch stopped partway is
// replayed from what ZooKeeper holds, never skipped. Callers that build
// their ops from what they read (like package dualwrite) read again and
// try anew.
func (w *Writer) ApplyAtomic(ctx context.Context, s State, ops ...Op) (State, []OpResult, error) {
	return w.apply(ctx, s, true, ops)
}

func (w *Writer) apply(ctx context.Context, s State, atomic bool, ops []Op) (State, []OpResult, error) {
	start := time.Now()
	results := notApplied(ops)
	if err := w.begin(); err != nil {
		return s, results, err
	}
	if err := w.checkState(s); err != nil {
		return s, results, err
	}
	if len(ops) == 0 {
		return s, results, nil
	}
	b := &batch{w: w, exec: &w.exec, migrationPath: w.migrationPath, epochPath: w.epochPath,
		s: s, atomic: atomic, results: results, version: s.MigrationZkVersion}
	st, v, err := b.apply(ctx, ops)
	w.finish(start, "apply", w.migrationPath, s.MigrationZkVersion, st.MigrationZkVersion, v, err)
	return st, b.results, err
}

// batch is the state of one Apply call. It reaches its Writer through
// methods only.
type batch struct {
	w    *Writer
	exec *executor
	// The paths of /migration and /controller_epoch under the root.
	migrationPath, epochPath string
	s                        State
	// atomic makes a refused op fail its transaction (ApplyAtomic).
	atomic  bool
	plan    *plan
	results []OpResult

	version   int32  // /migration version the next transaction expects
	held      []byte // /migration content at version, once the batch moved it
	mtime     int64
	recovered bool
}

func (b *batch) apply(ctx context.Context, ops []Op) (State, verdict, error) {
	if err := b.ready(ctx, ops); err != nil {
		return b.s, verdictNotLanded, err
	}
	r := b.exec.retrier()
	for k, txn := range b.plan.txns {
		if err := b.sendTransaction(ctx, r, txn, k == len(b.plan.txns)-1); err != nil {
			return b.stateOnError(), verdictNotLanded, err
		}
	}
	st := b.s
	st.MigrationZkVersion, st.LastUpdated, st.Recovered = b.version, time.UnixMilli(b.mtime), b.recovered
	b.w.confirm(st, b.plan.final)
	if b.recovered {
		return st, verdictLanded, nil
	}
	return st, verdictAcked, nil
}

// ready checks the call and plans it; an op that makes it refuse carries
// the error in its result.
func (b *batch) ready(ctx context.Context, ops []Op) error {
	s := b.s
	if s.MigrationZkVersion < 0 {
		return invalidf("MigrationZkVersion %d: Apply needs the version of %s", s.MigrationZkVersion, b.migrationPath)
	}
	if s.ZkControllerEpochZkVersion < 0 {
		return invalidf("ZkControllerEpochZkVersion %d: Apply fences every transaction by %s and needs its version (from ClaimLeadership)", s.ZkControllerEpochZkVersion, b.epochPath)
	}
	p, at, err := b.w.newPlan(ops, s.Checkpoint().Encode())
	if err != nil {
		if at >= 0 {
			b.results[at].Err = err
		}
		return err
	}
	b.plan = p
	if len(p.txns) == 1 {
		return nil
	}
	return b.loadPrev(ctx)
}

// loadPrev finds the checkpoint /migration has at s.MigrationZkVersion,
// which transactions before the last write back under s's identity: from
// the Writer's memory, or read from ZooKeeper.
func (b *batch) loadPrev(ctx context.Context) error {
	w := b.w
	data, ok := w.lastConfirmed(b.version)
	if !ok {
		cur, err := w.reread(ctx, b.exec.retrier(), b.migrationPath)
		if err != nil {
			return fmt.Errorf("migrationzk: read %s: %w", b.migrationPath, err)
		}
		if !cur.exists {
			return fmt.Errorf("%w: %s does not exist", ErrNoMigrationState, b.migrationPath)
		}
		if cur.version != b.version {
			return w.migrationConflict(b.s, cur, nil)
		}
		data = cur.data
	}
	m, err := znode.DecodeMigration(data)
	if err != nil {
		return w.withPath(err, b.migrationPath)
	}
	// The checkpoint's position as it is, the identity of this tenure:
	// the previous controller's stays in no transaction of this one.
	m.KRaftControllerID, m.KRaftControllerEpoch = b.s.KRaftControllerID, b.s.KRaftControllerEpoch
	return b.plan.usePrev(m.Encode())
}

// stateOnError is the State to return when the batch stopped: what
// ZooKeeper holds as far as the batch knows.
func (b *batch) stateOnError() State {
	if b.held == nil {
		return b.s
	}
	m, err := znode.DecodeMigration(b.held)
	if err != nil {
		return b.s // cannot happen: what the batch wrote or found decodes
	}
	return b.s.withPosition(m, b.version, b.mtime)
}

// applied records op i as applied; st is its znode's Stat if known, and
// created the full path ZooKeeper gave a sequential create.
func (b *batch) applied(i int, st *zk.Stat, created string, recovered bool) {
	op := &b.plan.ops[i]
	v := int32(-1)
	switch {
	case op.kind == kindCreate:
		v = 0
	case op.kind == kindSetData && st != nil:
		v = st.Version
	case op.kind == kindSetData && op.version >= 0:
		v = op.version + 1
	}
	r := &b.results[i] // its Op, and its Path if known before, set by notApplied
	r.Err, r.Version, r.Recovered = nil, v, recovered
	if op.sequential && created != "" {
		r.Path = strings.TrimPrefix(created, b.exec.opts.root)
	}
}
