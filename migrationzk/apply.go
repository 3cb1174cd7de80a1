package migrationzk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
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
	p, at, err := b.w.newPlan(ops, s.migration().Encode())
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

// Layout of a transaction: the fencing check of /controller_epoch, the
// /migration write, then the ops, as Kafka lays out its own. ZooKeeper
// checks a multi's ops in order and reports the first that fails, so a
// failure reported at an op proves that the first two passed.
const (
	migrationIndex = 1
	firstOpIndex   = 2
)

// sendTransaction writes the ops at indices txn, with /migration's new
// data: the final checkpoint once every op is in when last is set, else
// the content it has. Without refusals that takes one request; a pacer
// chooses the ops of each request otherwise. It returns once every op
// landed or was refused, or with the error that stops the batch.
func (b *batch) sendTransaction(ctx context.Context, r *retrier, txn []int, last bool) error {
	p := newPacer(txn)
	for !p.done() {
		a := &attempt{b: b, pacer: p, last: last}
		v, err := b.exec.run(ctx, r, write{
			path: b.migrationPath, expected: b.version,
			prepare: a.prepare, send: a.send, verify: a.verify, refused: a.refused,
		})
		if err != nil {
			a.stopped(err)
			if errors.Is(err, ErrOutcomeUnknown) {
				b.w.rememberDoubt(b.doubtOf(a))
			}
			return err
		}
		a.landed(v)
	}
	return nil
}

// attempt is one request of a transaction, sent again as run decides.
type attempt struct {
	b     *batch
	pacer *pacer
	last  bool // the transaction is the batch's last

	ops     []int  // the ops of the request in flight
	content []byte // and its /migration data
	final   bool   // whether that is the final checkpoint
	reqs    []interface{}
	res     []zk.MultiResponse
	// unsettled: the call stopped after a copy of the request was lost,
	// so that copy may have landed before the znodes moved on.
	unsettled bool
}

// prepare picks the ops of the next request and builds it. It runs on the
// caller's goroutine; send may run on one a cancelled context abandons.
func (a *attempt) prepare() {
	b := a.b
	var all bool
	a.ops, all = a.pacer.request(b.plan.sizes, b.plan.partLimit())
	a.final = all && a.last
	a.content = b.plan.prev
	if a.final {
		a.content = b.plan.final
	}
	a.reqs = make([]interface{}, 0, len(a.ops)+firstOpIndex)
	a.reqs = append(a.reqs,
		&zk.CheckVersionRequest{Path: b.epochPath, Version: b.s.ZkControllerEpochZkVersion},
		&zk.SetDataRequest{Path: b.migrationPath, Data: a.content, Version: b.version})
	for _, i := range a.ops {
		op, path := b.plan.ops[i], b.plan.paths[i]
		switch op.kind {
		case kindCreate:
			a.reqs = append(a.reqs, &zk.CreateRequest{Path: path, Data: op.data, Acl: b.exec.opts.aclFor(path), Flags: op.flags()})
		case kindSetData:
			a.reqs = append(a.reqs, &zk.SetDataRequest{Path: path, Data: op.data, Version: op.version})
		case kindDelete:
			a.reqs = append(a.reqs, &zk.DeleteRequest{Path: path, Version: op.version})
		}
	}
}

// refused names the znode and op of the request that ZooKeeper refused.
func (a *attempt) refused(error) (string, string) {
	b := a.b
	paths := []string{b.epochPath, b.migrationPath}
	ops := []string{"check", "setData"}
	for _, i := range a.ops {
		paths, ops = append(paths, b.plan.paths[i]), append(ops, b.plan.ops[i].kind.String())
	}
	return multiRefused(a.res, paths, ops)
}

func (a *attempt) send() error {
	var err error
	a.res, err = a.b.exec.conn.Multi(a.reqs...)
	return err
}

// landed records the request as in ZooKeeper: acknowledged, with every
// op's result in res, or proven by verify.
func (a *attempt) landed(v verdict) {
	b := a.b
	if v == verdictAcked {
		for j, i := range a.ops {
			res := a.res[firstOpIndex+j]
			b.applied(i, res.Stat, res.String, false)
		}
		st := a.res[migrationIndex].Stat
		b.version, b.mtime = st.Version, st.Mtime
	} else {
		b.recovered = true
	}
	b.held = a.content
	if !a.final {
		b.w.remember(b.version, b.plan.prev)
	}
	a.pacer.landed()
}

// stopped marks the ops of the request in flight when the call stopped
// with err.
func (a *attempt) stopped(err error) {
	for _, i := range a.ops {
		switch {
		case errors.Is(err, ErrOutcomeUnknown):
			a.b.results[i].Err = err
		case a.unsettled:
			a.b.results[i].Err = fmt.Errorf("%w: a copy of its transaction was lost and may have landed before the call stopped: %w", ErrOutcomeUnknown, err)
		}
	}
}

// applied records op i as applied; st is its znode's Stat if known, and
// created the full path ZooKeeper gave a sequential create.
func (b *batch) applied(i int, st *zk.Stat, created string, recovered bool) {
	op := b.plan.ops[i]
	v := int32(-1)
	switch {
	case op.kind == kindCreate:
		v = 0
	case op.kind == kindSetData && st != nil:
		v = st.Version
	case op.kind == kindSetData && op.version >= 0:
		v = op.version + 1
	}
	path := op.knownPath()
	if op.sequential && created != "" {
		path = strings.TrimPrefix(created, b.exec.opts.root)
	}
	b.results[i] = OpResult{Op: op, Version: v, Path: path, Recovered: recovered}
}

// verify settles a rejected request by the rules of landed.go. If it did
// not land, the pacer holds the ops still to send, unless an error stops
// the batch.
func (a *attempt) verify(ctx context.Context, r *retrier, _ error, resent bool) (verdict, error) {
	v, err := a.judge(ctx, r, resent)
	a.unsettled = err != nil && resent
	return v, err
}

func (a *attempt) judge(ctx context.Context, r *retrier, resent bool) (verdict, error) {
	if k, opErr := refusedAtOp(a.res, len(a.ops)); k >= 0 {
		return a.refuse(ctx, k, opErr)
	}
	b := a.b
	zs, err := b.exec.reread(ctx, r, b.migrationPath, b.epochPath)
	if err != nil {
		return verdictNotLanded, err
	}
	mine := intent{kind: kindSetData, expected: b.version, data: a.content, chk: checker.MigrationState{}}
	v, err := b.w.batchVerdict(b.s, mine, b.s.ZkControllerEpochZkVersion, zs[0], zs[1])
	if v == verdictByOps {
		return a.settleByOps(ctx, zs[0], resent)
	}
	return v, err
}

// refuse reports the op at position k of the request, which ZooKeeper
// refused on its own account, and leaves the others to send again.
func (a *attempt) refuse(ctx context.Context, k int, opErr error) (verdict, error) {
	b := a.b
	i := a.ops[k]
	refused := &OpError{Index: i, Op: b.plan.ops[i], Err: opErr}
	b.results[i] = OpResult{Op: b.plan.ops[i], Err: refused, Version: -1, Path: b.plan.ops[i].knownPath()}
	if b.atomic {
		return verdictNotLanded, refused
	}
	a.pacer.refuse(k)
	b.exec.opts.logger.Warn("op refused; sending the rest of its transaction without it",
		"path", b.plan.paths[i], "op", b.plan.ops[i].kind.String(), "error", opErr, "outcome", "op_failed")
	return resendUnless(a.readyParts(ctx))
}

// readyParts loads the content /migration keeps in the parts of the
// transaction that will go alone, once refusals make the pacer split it.
func (a *attempt) readyParts(ctx context.Context) error {
	if a.pacer.window > 0 && a.b.plan.prev == nil {
		return a.b.loadPrev(ctx)
	}
	return nil
}

// resendUnless is verdictResend, or verdictNotLanded with err.
func resendUnless(err error) (verdict, error) {
	if err != nil {
		return verdictNotLanded, err
	}
	return verdictResend, nil
}

// settleByOps judges the ops of the request once /migration at cur shows a
// transaction with this request's content (heldOps): the ops it held are
// applied and the others sent again after it; when it is not ours, another
// writer wrote /migration.
func (a *attempt) settleByOps(ctx context.Context, cur znodeState, resent bool) (verdict, error) {
	b := a.b
	held, ours, err := b.heldByTransaction(ctx, a.ops, cur.mzxid, a.candidates(resent))
	if err != nil {
		return verdictNotLanded, err
	}
	if !ours {
		return verdictNotLanded, &ConflictError{Path: b.migrationPath, ExpectedVersion: b.version, CurrentVersion: cur.version,
			CurrentData: cur.data, Err: errors.New("its content matches this batch, but the batch's ops show that another writer wrote it")}
	}
	b.version, b.mtime, b.held, b.recovered = cur.version, cur.mtime, cur.data, true
	var rest []int
	for j, i := range a.ops {
		if !held[j] {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return verdictLanded, nil
	}
	b.exec.opts.logger.Info("transaction found in ZooKeeper without some of this request's ops; sending them again",
		"path", b.migrationPath, "version", cur.version, "outcome", "recovered", "remaining", len(rest))
	a.pacer.requeue(rest)
	return verdictResend, nil
}

// heldByTransaction reads the znodes of ops and judges which the
// transaction at zxid held, recording those as applied; held is aligned
// with ops.
func (b *batch) heldByTransaction(ctx context.Context, ops []int, zxid int64, candidates [][]bool) (held []bool, ours bool, err error) {
	cur, err := b.readOpZnodes(ctx, ops, zxid)
	if err != nil {
		return nil, false, err
	}
	ev := make([]evidence, len(ops))
	for j, i := range ops {
		ev[j] = opEvidence(b.plan.ops[i], cur[j].znodeState, zxid)
	}
	if held, ours = heldOps(ev, candidates...); ours {
		for j, i := range ops {
			if held[j] {
				b.applied(i, &zk.Stat{Version: heldVersion(b.plan.ops[i], cur[j].znodeState, ev[j])}, cur[j].path, true)
			}
		}
	}
	return held, ours, nil
}

// opZnode is the znode an op of a request wrote or would write, as read:
// for a sequential create, the child the transaction at zxid created with
// the op's prefix and bytes, if any.
type opZnode struct {
	znodeState
	path string // full path
}

// readOpZnodes reads the znode of each op (aligned with ops), judging
// each path by the last op on it in the request.
func (b *batch) readOpZnodes(ctx context.Context, ops []int, zxid int64) ([]opZnode, error) {
	lastOp := map[string]int{}
	var paths []string
	for _, i := range ops {
		if !b.plan.ops[i].sequential {
			if _, seen := lastOp[b.plan.paths[i]]; !seen {
				paths = append(paths, b.plan.paths[i])
			}
			lastOp[b.plan.paths[i]] = i
		}
	}
	read, err := b.exec.getAll(ctx, paths)
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]znodeState, len(paths))
	for k, p := range paths {
		byPath[p] = read[k]
	}
	created, err := b.sequentialCreated(ctx, ops, zxid)
	if err != nil {
		return nil, err
	}
	cur := make([]opZnode, len(ops))
	for j, i := range ops {
		if found, ok := created[i]; ok {
			cur[j] = found
		} else {
			cur[j] = opZnode{znodeState: byPath[b.plan.paths[i]], path: b.plan.paths[i]}
		}
	}
	return cur, nil
}

// heldVersion is the version op left its znode at, cur now, in a
// transaction that held it: 0 for a create, expected+1 for a conditional
// SetData, the version cur carries when the transaction set it last, else
// unknown (-1).
func heldVersion(op Op, cur znodeState, ev evidence) int32 {
	switch {
	case op.kind == kindCreate:
		return 0
	case op.kind == kindSetData && op.version >= 0:
		return op.version + 1
	case op.kind == kindSetData && ev == evidenceHeld:
		return cur.version
	}
	return -1
}
