package migrationzk

// A batch's transaction as requests: each built, sent, and, once in
// ZooKeeper, recorded. After a rejection, batchevidence.go rereads the
// znodes and landed.go decides.

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
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
	var r requests
	r.room(b.plan.ops, a.ops)
	for _, i := range a.ops {
		op, path := &b.plan.ops[i], b.plan.paths[i]
		switch op.kind {
		case kindCreate:
			a.reqs = append(a.reqs, r.create(zk.CreateRequest{Path: path, Data: op.data, Acl: b.exec.opts.aclFor(path), Flags: op.flags()}))
		case kindSetData:
			a.reqs = append(a.reqs, r.setData(zk.SetDataRequest{Path: path, Data: op.data, Version: op.version}))
		case kindDelete:
			a.reqs = append(a.reqs, r.delete(zk.DeleteRequest{Path: path, Version: op.version}))
		}
	}
}

// requests hands out the requests of one multi from a slice per kind,
// allocated once, rather than one allocation per op.
type requests struct {
	creates  []zk.CreateRequest
	setDatas []zk.SetDataRequest
	deletes  []zk.DeleteRequest
}

// room makes room for the ops at indices of ops.
func (r *requests) room(ops []Op, indices []int) {
	var n [kindDelete + 1]int
	for _, i := range indices {
		n[ops[i].kind]++
	}
	r.creates = make([]zk.CreateRequest, 0, n[kindCreate])
	r.setDatas = make([]zk.SetDataRequest, 0, n[kindSetData])
	r.deletes = make([]zk.DeleteRequest, 0, n[kindDelete])
}

func (r *requests) create(c zk.CreateRequest) *zk.CreateRequest {
	r.creates = append(r.creates, c)
	return &r.creates[len(r.creates)-1]
}

func (r *requests) setData(c zk.SetDataRequest) *zk.SetDataRequest {
	r.setDatas = append(r.setDatas, c)
	return &r.setDatas[len(r.setDatas)-1]
}

func (r *requests) delete(c zk.DeleteRequest) *zk.DeleteRequest {
	r.deletes = append(r.deletes, c)
	return &r.deletes[len(r.deletes)-1]
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
