package migrationzk

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/multierr"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

type opKind uint8

const (
	kindCreate opKind = iota + 1
	kindSetData
	kindDelete
)

func (k opKind) String() string {
	switch k {
	case kindCreate:
		return "create"
	case kindSetData:
		return "setData"
	case kindDelete:
		return "delete"
	}
	return "invalid"
}

// Op is one write of a dual-write batch. Make it with Create, SetData or
// Delete; paths are relative to the Writer's root.
type Op struct {
	kind    opKind
	path    string
	data    []byte
	version int32
}

// Create creates a persistent znode at path holding data (nil for null data).
func Create(path string, data []byte) Op {
	return Op{kind: kindCreate, path: path, data: data, version: -1}
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

// Path returns the op's path, relative to the Writer's root.
func (o Op) Path() string { return o.path }

// Data returns the data the op writes.
func (o Op) Data() []byte { return o.data }

// Version returns the version the op is conditioned on, -1 for none.
func (o Op) Version() int32 { return o.version }

// String describes the op, such as "create /brokers/topics/foo".
func (o Op) String() string { return o.kind.String() + " " + o.path }

// OpResult is the fate of one op of an Apply call.
type OpResult struct {
	Op Op
	// Err is nil when the op was applied; an *OpError when ZooKeeper
	// refused the op on its own account; ErrNotApplied when the call
	// stopped before the op; or, for the ops of the transaction in flight
	// when the call stopped, an error matching ErrOutcomeUnknown if a copy
	// of that transaction may have landed (it also matches the call's
	// error, such as ErrConflict), else ErrNotApplied.
	Err error
	// Version is the znode's version after the op: the new version after
	// SetData, 0 after Create, -1 after Delete or when not known.
	Version int32
	// Recovered is set when the op's transaction lost its acknowledgement
	// and a reread proved it had landed.
	Recovered bool
}

// Apply writes a dual-write batch: ops in order, packed into as few
// ZooKeeper transactions as the maximum request size allows. Every
// transaction is fenced by a check of /controller_epoch at
// s.ZkControllerEpochZkVersion and carries a conditional SetData of
// /migration, which proves whether it landed: [Check /controller_epoch,
// SetData /migration, ops...], the layout Kafka uses for each of its
// requests. With /migration ahead of the ops, a resend after a lost
// acknowledgement is refused at /migration before any op, and a refusal
// reported at an op proves the transaction did not land, so it needs no
// reread. Transactions before the last rewrite /migration with the content
// it already had; the last writes s, so the checkpoint moves only once every
// op of the batch is in ZooKeeper.
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
// On success the returned State is s with the final /migration version. On
// error it is what ZooKeeper holds: s when no transaction landed, otherwise
// the content /migration had before the batch at the version the landed
// transactions left. To finish the batch, call Apply again with s, its
// MigrationZkVersion taken from the returned State, and the ops whose
// result has a non-nil Err other than an *OpError, in order. An empty batch
// writes nothing and returns s.
func (w *Writer) Apply(ctx context.Context, s State, ops ...Op) (State, []OpResult, error) {
	start := time.Now()
	if err := w.begin(); err != nil {
		return s, nil, err
	}
	if err := s.validate(); err != nil {
		return s, nil, err
	}
	if len(ops) == 0 {
		return s, nil, nil
	}
	b := &batch{w: w, s: s, ops: ops}
	st, o, err := b.apply(ctx)
	w.finish(start, "apply", w.migrationPath, s.MigrationZkVersion, st.MigrationZkVersion, o, err)
	return st, b.results, err
}

// batch is the state of one Apply call.
type batch struct {
	w       *Writer
	s       State
	ops     []Op
	paths   []string // full paths of ops
	sizes   []int    // encoded sizes of ops inside a multi
	results []OpResult

	final, prev []byte // /migration content of the last and earlier transactions
	version     int32  // /migration version the next transaction expects
	held        []byte // /migration content at version, once the batch moved it
	mtime       int64
	recovered   bool
}

func (b *batch) apply(ctx context.Context) (State, outcome, error) {
	w, s := b.w, b.s
	if s.MigrationZkVersion < 0 {
		return s, outcomeError, invalidf("MigrationZkVersion %d: Apply needs the version of %s", s.MigrationZkVersion, w.migrationPath)
	}
	if s.ZkControllerEpochZkVersion < 0 {
		return s, outcomeError, invalidf("ZkControllerEpochZkVersion %d: Apply fences every transaction by %s and needs its version (from ClaimLeadership)", s.ZkControllerEpochZkVersion, w.epochPath)
	}
	b.results = make([]OpResult, len(b.ops))
	b.paths = make([]string, len(b.ops))
	b.sizes = make([]int, len(b.ops))
	root := w.x.opts.root
	for i, op := range b.ops {
		b.results[i] = OpResult{Op: op, Err: ErrNotApplied, Version: -1}
		if err := b.validateOp(i, op); err != nil {
			b.results = nil
			return s, outcomeError, err
		}
		b.paths[i] = root + op.path
		switch op.kind {
		case kindCreate:
			b.sizes[i] = wire.CreateOpSize(b.paths[i], op.data, w.x.opts.acl)
		case kindSetData:
			b.sizes[i] = wire.SetDataOpSize(b.paths[i], op.data)
		case kindDelete:
			b.sizes[i] = wire.VersionOpSize(b.paths[i])
		}
	}
	b.final = s.migration().Encode()
	b.version = s.MigrationZkVersion

	txns, err := b.pack(len(b.final))
	if err != nil {
		b.results = nil
		return s, outcomeError, err
	}
	if len(txns) > 1 {
		if err := b.loadPrev(ctx); err != nil {
			b.results = nil
			return s, outcomeOf(err), err
		}
		if len(b.prev) > len(b.final) {
			if txns, err = b.pack(len(b.prev)); err != nil {
				b.results = nil
				return s, outcomeError, err
			}
		}
	}

	r := w.x.retrier()
	for k, txn := range txns {
		if err := b.send(ctx, r, txn, k == len(txns)-1); err != nil {
			return b.stateOnError(), outcomeOf(err), err
		}
	}
	st := s
	st.MigrationZkVersion, st.LastUpdated, st.Recovered = b.version, time.UnixMilli(b.mtime), b.recovered
	w.confirm(st, b.final)
	o := outcomeOK
	if b.recovered {
		o = outcomeRecovered
	}
	return st, o, nil
}

func (b *batch) validateOp(i int, op Op) error {
	switch op.kind {
	case kindCreate, kindSetData, kindDelete:
	default:
		return invalidf("op %d: not made by Create, SetData or Delete", i)
	}
	if err := validatePath(op.path); err != nil {
		return invalidf("op %d (%s): path %q: %v", i, op.kind, op.path, err)
	}
	if op.path == "/" {
		return invalidf("op %d (%s): the root znode", i, op.kind)
	}
	switch op.path {
	case znode.MigrationPath, znode.ControllerEpochPath:
		return invalidf("op %d (%s): %s is written by the Writer itself", i, op.kind, op.path)
	}
	if op.version < -1 {
		return invalidf("op %d (%s %s): version %d", i, op.kind, op.path, op.version)
	}
	return nil
}

// overhead is the size of a transaction without its ops: header, fencing
// check, /migration SetData and trailer.
func (b *batch) overhead(contentLen int) int {
	return wire.MultiSize(wire.VersionOpSize(b.w.epochPath) + wire.SetDataOpSize(b.w.migrationPath, nil) + contentLen)
}

// pack splits the ops, in order, into transactions no larger than the
// maximum request size.
func (b *batch) pack(contentLen int) ([][]int, error) {
	limit := b.w.x.opts.maxRequestBytes
	base := b.overhead(contentLen)
	var txns [][]int
	var cur []int
	size := base
	for i, n := range b.sizes {
		if base+n > limit {
			return nil, fmt.Errorf("%w: op %d (%s %s) takes %d bytes in a transaction of at most %d", ErrTooLarge, i, b.ops[i].kind, b.ops[i].path, base+n, limit)
		}
		if size+n > limit {
			txns = append(txns, cur)
			cur, size = nil, base
		}
		cur = append(cur, i)
		size += n
	}
	return append(txns, cur), nil
}

// loadPrev finds the content /migration has at s.MigrationZkVersion, which
// transactions before the last write back: from the Writer's memory, or
// read from ZooKeeper.
func (b *batch) loadPrev(ctx context.Context) error {
	if data, ok := b.w.lastConfirmed(b.version); ok {
		b.prev = data
		return nil
	}
	r := b.w.x.retrier()
	cur, err := b.w.reread(ctx, r, b.w.migrationPath)
	if err != nil {
		return fmt.Errorf("migrationzk: read %s: %w", b.w.migrationPath, err)
	}
	if !cur.exists {
		return fmt.Errorf("%w: %s does not exist", ErrNoMigrationState, b.w.migrationPath)
	}
	if cur.version != b.version {
		return b.w.migrationConflict(b.s, cur, nil)
	}
	if _, err := znode.DecodeMigration(cur.data); err != nil {
		return b.w.withPath(err, b.w.migrationPath)
	}
	b.prev = cur.data
	return nil
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
	return b.s.withMigration(m, b.version, b.mtime)
}

// Layout of a transaction: the fencing check of /controller_epoch, the
// /migration write, then the ops, as Kafka lays out its own. ZooKeeper
// checks a multi's ops in order and reports the first that fails, so a
// failure reported at an op proves that the first two passed.
const (
	migrationIndex = 1
	firstOpIndex   = 2
)

// send writes the ops at indices txn, with /migration's new data: the
// final checkpoint once every op is in when last is set, else the content
// it has. Without refusals that takes one transaction; a pacer chooses the
// ops of each request otherwise. It returns once every op landed or was
// refused, or with the error that stops the batch.
func (b *batch) send(ctx context.Context, r *retrier, txn []int, last bool) error {
	w := b.w
	fence := b.s.ZkControllerEpochZkVersion
	p := newPacer(txn)
	for {
		var ops []int      // the ops of the request in flight
		var content []byte // and its /migration data
		var final bool     // whether that is the final checkpoint
		var res []zk.MultiResponse
		var reqs []interface{}
		// prepare picks the ops of the next attempt; it runs on this
		// goroutine, send on one that a cancelled context may abandon.
		prepare := func() {
			var all bool
			ops, all = p.request(b.sizes, w.x.opts.maxRequestBytes-b.overhead(len(b.prev)))
			final = all && last
			content = b.prev
			if final {
				content = b.final
			}
			reqs = make([]interface{}, 0, len(ops)+firstOpIndex)
			reqs = append(reqs,
				&zk.CheckVersionRequest{Path: w.epochPath, Version: fence},
				&zk.SetDataRequest{Path: w.migrationPath, Data: content, Version: b.version})
			for _, i := range ops {
				op, path := b.ops[i], b.paths[i]
				switch op.kind {
				case kindCreate:
					reqs = append(reqs, &zk.CreateRequest{Path: path, Data: op.data, Acl: w.x.opts.acl})
				case kindSetData:
					reqs = append(reqs, &zk.SetDataRequest{Path: path, Data: op.data, Version: op.version})
				case kindDelete:
					reqs = append(reqs, &zk.DeleteRequest{Path: path, Version: op.version})
				}
			}
		}
		send := func() error {
			var err error
			res, err = w.x.conn.Multi(reqs...)
			return err
		}
		// unsettled: the call stopped after a copy of the request was
		// lost, so that copy may have landed before the znodes moved on.
		unsettled := false
		o, err := w.x.run(ctx, r, write{
			path:     w.migrationPath,
			expected: b.version,
			prepare:  prepare,
			send:     send,
			verify: func(ctx context.Context, r *retrier, rejection error, resent bool) (bool, error) {
				landed, err := b.verify(ctx, r, p, ops, content, res, resent)
				unsettled = err != nil && resent
				return landed, err
			},
		})
		if err != nil {
			for _, i := range ops {
				switch {
				case errors.Is(err, ErrOutcomeUnknown):
					b.results[i].Err = err
				case unsettled:
					b.results[i].Err = fmt.Errorf("%w: a copy of its transaction was lost and may have landed before the call stopped: %w", ErrOutcomeUnknown, err)
				}
			}
			return err
		}
		if o == outcomeRecovered {
			b.recovered = true
		} else {
			// Acknowledged: res holds every op's result.
			for j, i := range ops {
				b.applied(i, res[firstOpIndex+j], false)
			}
			st := res[migrationIndex].Stat
			b.version, b.mtime = st.Version, st.Mtime
		}
		b.held = content
		if !final {
			w.mu.Lock()
			w.last.version, w.last.data = b.version, b.prev
			w.mu.Unlock()
		}
		p.landed()
		if p.done() {
			return nil
		}
	}
}

// applied records op i as applied.
func (b *batch) applied(i int, res zk.MultiResponse, recovered bool) {
	op := b.ops[i]
	v := int32(-1)
	switch op.kind {
	case kindCreate:
		v = 0
	case kindSetData:
		if res.Stat != nil {
			v = res.Stat.Version
		} else if op.version >= 0 {
			v = op.version + 1
		}
	}
	b.results[i] = OpResult{Op: op, Version: v, Recovered: recovered}
}

// verify settles a rejected request holding ops, with content as
// /migration's data. It returns whether the request landed; if not, p
// holds the ops still to send, unless an error stops the batch.
func (b *batch) verify(ctx context.Context, r *retrier, p *pacer, ops []int, content []byte, res []zk.MultiResponse, resent bool) (bool, error) {
	w := b.w
	if at, opErr := firstFailure(res); at >= firstOpIndex && at < firstOpIndex+len(ops) {
		// The fence and /migration passed: no copy of this request landed
		// (it would have moved /migration), nor will one, since ZooKeeper
		// answered on this session after any earlier copy. The op failed
		// on its own account: report it and send the others, without a
		// reread.
		i := p.refuse(at - firstOpIndex)
		b.results[i] = OpResult{Op: b.ops[i], Err: &OpError{Index: i, Op: b.ops[i], Err: opErr}, Version: -1}
		w.x.opts.logger.Warn("op refused; sending the rest of its transaction without it",
			"path", b.paths[i], "op", b.ops[i].kind.String(), "error", opErr, "outcome", "op_failed")
		if p.window > 0 && b.prev == nil {
			// Parts of the transaction will go alone, each keeping
			// /migration's content as it is.
			return false, b.loadPrev(ctx)
		}
		return false, nil
	}
	fence := b.s.ZkControllerEpochZkVersion
	zs, err := w.x.reread(ctx, r, w.migrationPath, w.epochPath)
	if err != nil {
		return false, err
	}
	cur, epoch := zs[0], zs[1]
	mine := intent{kind: kindSetData, expected: b.version, data: content, chk: checker.MigrationState{}}
	ok, cerr := transactionLanded(mine, cur, fence, epoch)
	if ok {
		if resent {
			// An earlier copy of this very request landed.
			for _, i := range ops {
				b.applied(i, zk.MultiResponse{}, true)
			}
			b.version, b.mtime = cur.version, cur.mtime
			return true, nil
		}
		// Nothing of this call landed, yet /migration moved one step to
		// our content: an earlier call's transaction, whose ops may differ
		// from ours. Keep the ops whose effect is in ZooKeeper; send the
		// rest again after it.
		rest, err := b.settleByEffect(ctx, r, ops, cur)
		if err != nil || len(rest) == 0 {
			return err == nil, err
		}
		p.requeue(rest)
		return false, nil
	}
	if err := w.notLandedAt(b.s, b.version, cur, fence, epoch, cerr); err != nil {
		return false, err
	}
	at, opErr := firstFailure(res)
	return false, fmt.Errorf("migrationzk: transaction on %s refused (%v) at op %d with /migration and %s unchanged", w.migrationPath, opErr, at, w.epochPath)
}

// settleByEffect checks each op of txn against ZooKeeper after /migration
// moved to cur without a copy of txn having been sent in this call.
func (b *batch) settleByEffect(ctx context.Context, r *retrier, txn []int, cur znodeState) ([]int, error) {
	// Judge each path by the last op on it in the transaction.
	lastOp := map[string]int{}
	for _, i := range txn {
		lastOp[b.paths[i]] = i
	}
	held := map[string]*zk.Stat{}
	for path, i := range lastOp {
		zs, err := b.w.x.get(ctx, r, path)
		if err != nil {
			return txn, err
		}
		if effectHeld(b.ops[i].kind, b.ops[i].version, b.ops[i].data, zs) {
			held[path] = &zk.Stat{Version: zs.version}
		}
	}
	var rest []int
	for _, i := range txn {
		if st := held[b.paths[i]]; st != nil {
			b.applied(i, zk.MultiResponse{Stat: st}, true)
		} else {
			rest = append(rest, i)
		}
	}
	if len(rest) == len(txn) {
		return txn, &ConflictError{Path: b.w.migrationPath, ExpectedVersion: b.version, CurrentVersion: cur.version,
			CurrentData: cur.data, Err: errors.New("its content matches this batch but none of the transaction's ops is in ZooKeeper")}
	}
	b.version, b.mtime, b.held = cur.version, cur.mtime, cur.data
	b.recovered = true
	b.w.x.opts.logger.Info("earlier transaction found in ZooKeeper; sending the ops it lacked",
		"path", b.w.migrationPath, "version", cur.version, "outcome", "recovered", "remaining", len(rest))
	return rest, nil
}

// notLandedAt explains a transaction that did not land, unless /migration
// and /controller_epoch are exactly where it expected them (nil).
func (w *Writer) notLandedAt(s State, expected int32, cur znodeState, fence int32, epoch znodeState, cerr error) error {
	if cur.exists && cur.version == expected && epoch.exists && epoch.version == fence {
		return nil
	}
	s.MigrationZkVersion = expected
	return w.notLanded(s, cur, fence, epoch, cerr)
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
