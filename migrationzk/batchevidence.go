package migrationzk

// What a rejected request of a batch shows: the refusal of one of its
// ops, or the reread of /migration and of the ops' znodes from which the
// rules of landed.go tell which ops an earlier copy held.

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
)

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
// transaction with this request's content (heldVerdict): the ops it held
// are applied and the others sent again after it.
func (a *attempt) settleByOps(ctx context.Context, cur znodeState, resent bool) (verdict, error) {
	b := a.b
	held, ours, err := b.heldByTransaction(ctx, a.ops, cur.mzxid, a.candidates(resent))
	if err != nil {
		return verdictNotLanded, err
	}
	v, err := heldVerdict(b.migrationPath, b.version, cur, held, ours)
	if err != nil {
		return v, err
	}
	b.version, b.mtime, b.held, b.recovered = cur.version, cur.mtime, cur.data, true
	if v == verdictResend {
		a.requeueUnheld(held, cur.version)
	}
	return v, nil
}

// requeueUnheld sends again after the transaction found at version the
// ops of the request it did not hold.
func (a *attempt) requeueUnheld(held []bool, version int32) {
	var rest []int
	for j, i := range a.ops {
		if !held[j] {
			rest = append(rest, i)
		}
	}
	a.b.exec.opts.logger.Info("transaction found in ZooKeeper without some of this request's ops; sending them again",
		"path", a.b.migrationPath, "version", version, "outcome", "recovered", "remaining", len(rest))
	a.pacer.requeue(rest)
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
