package torture

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// outcome of one call, as the driver sees it.
type outcome struct {
	err      error
	retry    bool // outcome unknown, or not sent: call again
	deadline bool // the caller's deadline ended the call
	conflict bool
	fenced   bool
	// notified says the call reported a change notification written.
	notified bool
}

// writerCall is one call of a controller as the run records it: its
// Record holds the times the recorder stamped, and its methods append to
// the history what the call reported and check it against what
// ZooKeeper holds right after.
type writerCall struct {
	g *generation
	history.Record
	// paths are the payload znodes the call writes, relative to the root.
	paths []string
	// dials is how many connections g's client had made when the call
	// started.
	dials int64
}

// recovered checks the call, which reported a write or a claim Recovered
// when recovered is set: a copy of it was in doubt, that is its client
// lost a connection during the call (a copy sent whose reply never came),
// or an earlier attempt of the call ended with its outcome unknown.
func (c writerCall) recovered(recovered bool) {
	g := c.g
	if !recovered || g.faults.Dials() > c.dials || g.doubtAt.Load() >= c.Call {
		return
	}
	g.r.log.add(CheckRecovered, "%s reported a write or claim recovered, with no copy of it in doubt: no connection lost during the call, no earlier attempt of it in doubt", c.Desc)
}

// anyRecovered reports whether a batch that returned out, res and err
// reported a write recovered: its checkpoint or one of its ops.
func anyRecovered(out migrationzk.State, res []migrationzk.OpResult, err error) bool {
	return (err == nil && out.Recovered) || slices.ContainsFunc(res, func(r migrationzk.OpResult) bool { return r.Recovered })
}

// part is the call as the record of a part of it: an op of its batch, a
// copy of its transaction.
func (c writerCall) part(desc string) writerCall {
	c.Record = c.Record.Part(desc)
	return c
}

// classify sorts a call's error, counting it, and mends the client after
// a stale session; it records nothing.
func (g *generation) classify(ctx context.Context, err error) outcome {
	o := outcome{err: err}
	switch {
	case err == nil:
	case errors.Is(err, migrationzk.ErrFenced):
		// In doubt or not, a fenced call is final: the writer is retired.
		o.fenced = true
	case errors.Is(err, migrationzk.ErrOutcomeUnknown):
		g.inDoubt()
		o.retry, o.err = true, err
		o.deadline = ctx.Err() != nil
		g.mend(err)
	case errors.Is(err, migrationzk.ErrConflict):
		o.conflict = true
		g.r.stats.conflicts.Add(1)
	case ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		// Not sent: the documented meaning of a context error without
		// ErrOutcomeUnknown.
		o.retry, o.deadline = true, true
	}
	return o
}

// update makes one Update call and records it, as if called at from (its
// first attempt's start; 0 for now).
func (g *generation) update(ctx context.Context, s migrationzk.State, from int64) outcome {
	g.r.stats.calls.Add(1)
	data := string(stateData(s))
	var out migrationzk.State
	dials := g.faults.Dials()
	rc, err := g.r.rec.Wrap(g.client(), from, fmt.Sprintf("update by %d offset %d", g.id, s.KRaftMetadataOffset), func() (err error) {
		out, err = g.w.Update(ctx, s)
		return err
	})
	c := writerCall{g: g, Record: rc, dials: dials}
	o := g.classify(ctx, err)
	c.recovered(err == nil && out.Recovered)
	conds := []history.Cond{{Slot: history.SlotMigration, Kind: history.CondVersion, Version: s.MigrationZkVersion},
		{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: s.ZkControllerEpochZkVersion}}
	switch {
	case err == nil:
		if out.MigrationZkVersion != s.MigrationZkVersion+1 {
			g.r.log.add(CheckVersion, "%s: version %d from %d", rc.Desc, out.MigrationZkVersion, s.MigrationZkVersion)
		}
		c.written(out, conds, data)
	case errors.Is(err, migrationzk.ErrOutcomeUnknown), o.conflict:
		c.maybeWritten(o, conds, data)
	}
	// Fenced and not in doubt: ZooKeeper refused the only copy, so the
	// history records no write.
	return o
}

// apply makes one Apply call and records it, as if called at from (its
// first attempt's start; 0 for now): the checkpoint that ends the batch's
// transaction, then each op as its result says.
func (g *generation) apply(ctx context.Context, s migrationzk.State, ops []migrationzk.Op, from int64) outcome {
	g.r.stats.calls.Add(1)
	var out migrationzk.State
	var res []migrationzk.OpResult
	dials := g.faults.Dials()
	rc, err := g.r.rec.Wrap(g.client(), from, fmt.Sprintf("apply by %d offset %d (%d ops)", g.id, s.KRaftMetadataOffset, len(ops)), func() (err error) {
		out, res, err = g.w.Apply(ctx, s, ops...)
		return err
	})
	c := writerCall{g: g, Record: rc, paths: opPaths(ops), dials: dials}
	o := g.classify(ctx, err)
	c.recovered(anyRecovered(out, res, err))
	c.checkpoint(s, out, o, refusedOps(res))
	if res == nil && err == nil {
		g.r.log.add(CheckResults, "%s: no results", rc.Desc)
	}
	c.results(res, err, o, out)
	return o
}

// opPaths returns the paths of ops.
func opPaths(ops []migrationzk.Op) []string {
	var paths []string
	for _, o := range ops {
		paths = append(paths, o.Path())
	}
	return paths
}

// getOrCreate calls GetOrCreate until it settles and records it.
func (g *generation) getOrCreate() bool {
	r := g.r
	in := g.initial()
	in.ZkControllerEpoch, in.ZkControllerEpochZkVersion = g.s.ZkControllerEpoch, g.s.ZkControllerEpochZkVersion
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		r.stats.calls.Add(1)
		ctx, cancel := context.WithTimeout(r.ctx, callTimeout)
		var s migrationzk.State
		var res migrationzk.GetOrCreateResult
		dials := g.faults.Dials()
		rc, err := r.rec.Wrap(g.client(), 0, fmt.Sprintf("GetOrCreate by %d", g.id), func() (err error) {
			s, res, err = g.w.GetOrCreate(ctx, in)
			return err
		})
		cancel()
		c := writerCall{g: g, Record: rc, dials: dials}
		if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
			g.inDoubt()
			g.mend(err)
			data := string(stateData(in))
			r.h.Add(history.MigrationGroup, rc.InDoubt().Op(history.Step{Kind: history.StepMaybe,
				Conds: []history.Cond{{Slot: history.SlotMigration, Kind: history.CondAbsent}}, Effects: []history.Effect{{Slot: history.SlotMigration, Create: true, Data: data, Version: -1}},
				Desc: "create /migration (unknown)"}))
			continue
		}
		if err != nil {
			r.log.add(CheckUnexpected, "controller %d: GetOrCreate: %v", g.id, err)
			return false
		}
		// What /migration holds: the State created, or the checkpoint
		// found, whose identity the returned State does not adopt.
		created, held := string(stateData(s)), heldState(s, res)
		data := string(stateData(held))
		r.h.Add(history.MigrationGroup, rc.Op(history.Step{Kind: history.StepReadOrCreate,
			Conds:   []history.Cond{{Slot: history.SlotMigration, Kind: history.CondAbsent}},
			Effects: []history.Effect{{Slot: history.SlotMigration, Create: true, Data: created, Version: 0}},
			Obs:     []history.Obs{{Slot: history.SlotMigration, Val: history.Value{Exists: true, Version: s.MigrationZkVersion, Data: data}}}}))
		c.recovered(s.Recovered)
		c.checkMigration(held)
		g.s, g.learned, g.since = s, rc.Return, rc.Call
		return true
	}
	r.log.add(CheckStuck, "stuck: controller %d: GetOrCreate outcome unknown %d times", g.id, maxAttempts)
	return false
}

// claimed records g's claim, the call, which found /controller_epoch
// holding read at version base: its first copy may have raised it from
// there (to read+1, or with rollback-safe epochs to at least g's KRaft
// epoch), and the claim, when it succeeded, raised it to what s says.
func (c writerCall) claimed(base, read int32, s migrationzk.State, err error) {
	g, h := c.g, c.g.r.h
	first := c.Record
	if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
		first = first.InDoubt()
	}
	h.Add(history.MigrationGroup, first.Op(history.Step{Kind: history.StepMaybe,
		Conds:   []history.Cond{{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: base}},
		Effects: []history.Effect{{Slot: history.SlotEpoch, Data: string(znode.EncodeControllerEpoch(g.claimedEpoch(read))), Version: -1}},
		Desc:    c.Desc + " from its first read (" + short(err) + ")"}))
	if err != nil {
		return
	}
	h.AddClaim(history.ClaimRecord{Client: g.client(), Who: history.Identity{ID: g.id, Epoch: g.epoch}, RollbackSafe: g.rollbackSafe,
		Version: s.ZkControllerEpochZkVersion, Value: s.ZkControllerEpoch, At: c.Span})
	if s.ZkControllerEpochZkVersion <= base {
		// A standing claim resumed: nothing written, /controller_epoch
		// seen as it was.
		h.Add(history.MigrationGroup, c.Op(history.Step{Kind: history.StepRead, Obs: []history.Obs{{Slot: history.SlotEpoch,
			Val: history.Value{Exists: true, Version: s.ZkControllerEpochZkVersion, Data: string(znode.EncodeControllerEpoch(s.ZkControllerEpoch))}}},
			Desc: c.Desc + " resumed"}))
		return
	}
	h.Add(history.MigrationGroup, c.Op(history.Step{Kind: history.StepWrite,
		Conds:   []history.Cond{{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: s.ZkControllerEpochZkVersion - 1}},
		Effects: []history.Effect{{Slot: history.SlotEpoch, Data: string(znode.EncodeControllerEpoch(s.ZkControllerEpoch)), Version: s.ZkControllerEpochZkVersion}}}))
	h.AddSuccess(c.Success(p("/controller_epoch"), s.ZkControllerEpochZkVersion, -1))
}

// written records that the call said it wrote /migration, and checks it.
func (c writerCall) written(out migrationzk.State, conds []history.Cond, data string) {
	g, h := c.g, c.g.r.h
	h.Add(history.MigrationGroup, c.Op(history.Step{Kind: history.StepWrite, Conds: conds,
		Effects: []history.Effect{{Slot: history.SlotMigration, Data: data, Version: out.MigrationZkVersion}}}))
	h.AddSuccess(c.Success(p("/migration"), out.MigrationZkVersion, g.learned))
	c.checkMigration(out)
	g.s, g.learned, g.since = out, c.Return, c.Call
}

// maybeWritten records that the call's write to /migration may or may not
// have happened.
func (c writerCall) maybeWritten(o outcome, conds []history.Cond, data string) {
	doubt := c.Record
	if o.retry {
		doubt = doubt.InDoubt()
	}
	c.g.r.h.Add(history.MigrationGroup, doubt.Op(history.Step{Kind: history.StepMaybe, Conds: conds,
		Effects: []history.Effect{{Slot: history.SlotMigration, Data: data, Version: -1}}, Desc: c.Desc + " (" + short(o.err) + ")"}))
	c.conflict(o.err, data)
}

// conflict records what a *ConflictError says of the call, which wrote
// data to /migration.
func (c writerCall) conflict(err error, data string) {
	var ce *migrationzk.ConflictError
	if !errors.As(err, &ce) {
		return
	}
	h := c.g.r.h
	report := history.ConflictReport{Path: p("/migration"), Since: c.g.since, At: c.Span, What: c.Desc}
	if string(ce.CurrentData) == data {
		for _, rel := range c.paths {
			report.Also = append(report.Also, p(rel))
		}
	}
	h.AddConflict(report)
	seen := history.Value{Exists: ce.CurrentVersion >= 0, Version: ce.CurrentVersion}
	if seen.Exists {
		seen.Data = string(ce.CurrentData)
	}
	h.Add(history.MigrationGroup, c.Op(history.Step{Kind: history.StepRead, Obs: []history.Obs{{Slot: history.SlotMigration, Val: seen}}, Desc: c.Desc + " conflict report"}))
}

// checkpoint records what the call, an Apply of s classified as o, did
// to /migration, and checks it when it said it wrote.
func (c writerCall) checkpoint(s, out migrationzk.State, o outcome, refused int) {
	data := string(stateData(s))
	epochCond := history.Cond{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: s.ZkControllerEpochZkVersion}
	switch {
	case o.err == nil:
		// The call's own transaction moved /migration by one; when a copy
		// of it (this call's or, retried, its first attempt's) had landed
		// and left ops to send, by two; and by one more for each part
		// that refused ops split the rest into, at most one per refusal.
		from := history.Cond{Slot: history.SlotMigration, Kind: history.CondVersion, Version: out.MigrationZkVersion - 1}
		switch moved := out.MigrationZkVersion - s.MigrationZkVersion; {
		case moved == 1:
		case moved >= 2 && int(moved) <= 2+refused:
			// Before the call's last transaction, ours too: a copy that
			// landed earlier, and the parts ZooKeeper's refusals split the
			// rest into, each moving /migration by one.
			for v := s.MigrationZkVersion; v < out.MigrationZkVersion-1; v++ {
				c.earlierPart(v, data, epochCond)
			}
		default:
			c.g.r.log.add(CheckVersion, "%s: /migration version %d from %d with %d ops refused", c.Desc, out.MigrationZkVersion, s.MigrationZkVersion, refused)
		}
		c.written(out, []history.Cond{from, epochCond}, data)
	case o.retry && errors.Is(o.err, migrationzk.ErrOutcomeUnknown), o.conflict, o.fenced:
		c.maybeWritten(o, []history.Cond{{Slot: history.SlotMigration, Kind: history.CondVersion, Version: s.MigrationZkVersion}, epochCond}, data)
	}
}

// earlierPart records a transaction of the call that moved /migration
// from version from (with our content: the model does not tell it from
// the content it rewrote) before its last one.
func (c writerCall) earlierPart(from int32, data string, epochCond history.Cond) {
	part := c.part(fmt.Sprintf("%s part to version %d", c.Desc, from+1))
	h := c.g.r.h
	h.Add(history.MigrationGroup, part.Op(history.Step{Kind: history.StepWrite,
		Conds:   []history.Cond{{Slot: history.SlotMigration, Kind: history.CondVersion, Version: from}, epochCond},
		Effects: []history.Effect{{Slot: history.SlotMigration, Data: data, Version: from + 1}}}))
	h.AddSuccess(part.Success(p("/migration"), from+1, c.g.learned))
}

// results records each op of the call's batch as its result says, checks
// what ZooKeeper holds of those that landed, and rereads those refused.
func (c writerCall) results(res []migrationzk.OpResult, err error, o outcome, out migrationzk.State) {
	var reread []string
	var checks []payloadCheck
	for i, r := range res {
		op := c.part(fmt.Sprintf("%s op %d %v", c.Desc, i, r.Op))
		rel := r.Path // for a sequential create, the name ZooKeeper gave, if known
		var oe *migrationzk.OpError
		switch {
		case rel == "":
			// A sequential create whose name nobody learned.
		case r.Err == nil:
			if r.Recovered || (err == nil && out.Recovered) {
				// A copy of the op's transaction landed before a reread
				// proved it; the op may have been sent again after it.
				op.part(op.Desc+" first copy").opMaybeWritten(r.Op, rel, nil, false)
			}
			checks = append(checks, op.opWritten(r.Op, rel, r.Version))
		case errors.As(r.Err, &oe):
			op.opRefused(r.Op, rel, oe)
			reread = append(reread, rel)
		case errors.Is(r.Err, migrationzk.ErrNotApplied):
			if err == nil {
				c.g.r.log.add(CheckResults, "%s: op %d not applied in a batch that succeeded", c.Desc, i)
			}
		default:
			retry := errors.Is(r.Err, migrationzk.ErrOutcomeUnknown) && o.retry
			op.opMaybeWritten(r.Op, rel, r.Err, retry)
		}
	}
	c.checkPayloads(checks)
	for _, rel := range reread {
		c.g.r.relearn(rel)
	}
}

// opWritten records that the call's op o landed at version, and returns
// what ZooKeeper must hold right after.
func (c writerCall) opWritten(o migrationzk.Op, rel string, version int32) payloadCheck {
	r := c.g.r
	path := p(rel)
	r.h.Add(path, c.Op(history.Step{Kind: history.StepWrite, Conds: []history.Cond{payloadCond(o)}, Effects: []history.Effect{payloadEffect(o, version)}}))
	written := c.Success(path, version, r.wl.learnedAt(rel))
	written.Data = string(o.Data())
	r.h.AddSuccess(written)
	// Learned as of the call's start: another party may have written the
	// znode since the op, while the call was in flight.
	r.wl.learn(rel, !isDelete(o), version, c.Call)
	return payloadCheck{path: path, data: o.Data(), version: version, desc: c.Desc, deleted: isDelete(o)}
}

// opRefused records that ZooKeeper refused the call's op o (*OpError): a
// conflict on its znode.
func (c writerCall) opRefused(o migrationzk.Op, rel string, oe *migrationzk.OpError) {
	r := c.g.r
	r.stats.conflicts.Add(1)
	path := p(rel)
	r.h.Add(path, c.Op(history.Step{Kind: history.StepRefused, Conds: []history.Cond{payloadCond(o)}, Desc: c.Desc + " refused"}))
	// The op's version was learned when the work was chosen; retries of
	// the call send it as it was.
	r.h.AddConflict(history.ConflictReport{Path: path, Since: r.wl.basisOf(rel), At: c.Span, What: c.Desc + ": " + oe.Err.Error()})
}

// opMaybeWritten records that the call's op o may or may not have landed,
// failed with err; when the call is to be retried, it may land at any
// later moment.
func (c writerCall) opMaybeWritten(o migrationzk.Op, rel string, err error, retry bool) {
	rc := c.Record
	if retry {
		rc = rc.InDoubt()
	}
	c.g.r.h.Add(p(rel), rc.Op(history.Step{Kind: history.StepMaybe, Conds: []history.Cond{payloadCond(o)},
		Effects: []history.Effect{payloadEffect(o, -1)}, Desc: c.Desc + " (" + short(err) + ")"}))
}

// checkMigration reads /migration and /controller_epoch right after the
// call returned s, and compares.
func (c writerCall) checkMigration(s migrationzk.State) {
	r := c.g.r
	vs, ok := r.admin.reads([]string{p("/migration"), p("/controller_epoch")}, []int{history.SlotMigration, history.SlotEpoch}, []string{history.MigrationGroup, history.MigrationGroup})
	if !ok {
		return
	}
	v := vs[0]
	if r.h.ForeignDuring(p("/migration"), c.Call, c.Return) {
		return // a foreign write during the call may have moved it since
	}
	want := string(stateData(s))
	switch {
	case !v.Exists || v.Data != want:
		r.log.add(CheckLostWrite, "lost write: controller %d was told /migration holds %s at version %d; ZooKeeper holds %v", c.g.id, want, s.MigrationZkVersion, v)
	case v.Version != s.MigrationZkVersion:
		r.log.add(CheckVersion, "version mismatch: controller %d was told /migration is at version %d; ZooKeeper holds %v", c.g.id, s.MigrationZkVersion, v)
	}
}

// payloadCheck is what a call said a payload znode holds: data at
// version, or nothing once deleted.
type payloadCheck struct {
	path    string
	data    []byte
	version int32
	desc    string
	deleted bool
}

// checkPayloads reads payload znodes right after the call said they hold
// the given data at the given versions.
func (c writerCall) checkPayloads(checks []payloadCheck) {
	if len(checks) == 0 {
		return
	}
	r := c.g.r
	paths := make([]string, len(checks))
	for i, pc := range checks {
		paths[i] = pc.path
	}
	vs, ok := r.admin.reads(paths, make([]int, len(checks)), paths)
	if !ok {
		return
	}
	for i, pc := range checks {
		v := vs[i]
		if r.h.ForeignDuring(pc.path, c.Call, c.Return) {
			continue
		}
		switch {
		case pc.deleted && v.Exists:
			r.log.add(CheckLostWrite, "lost delete: %s: ZooKeeper holds %v", pc.desc, v)
		case pc.deleted:
		case !v.Exists || v.Data != string(pc.data):
			r.log.add(CheckLostWrite, "lost write: %s: ZooKeeper holds %v", pc.desc, v)
		case v.Version != pc.version:
			r.log.add(CheckVersion, "version mismatch: %s reported version %d; ZooKeeper holds %v", pc.desc, pc.version, v)
		}
	}
}

// isCreate reports whether o creates its znode.
func isCreate(o migrationzk.Op) bool { return o.Kind() == migrationzk.OpCreate }

// isDelete reports whether o deletes its znode.
func isDelete(o migrationzk.Op) bool { return o.Kind() == migrationzk.OpDelete }

// payloadCond is the condition an op puts on its own znode.
func payloadCond(o migrationzk.Op) history.Cond {
	switch {
	case isCreate(o):
		return history.Cond{Kind: history.CondAbsent}
	case o.Version() >= 0:
		return history.Cond{Kind: history.CondVersion, Version: o.Version()}
	}
	return history.Cond{Kind: history.CondExists}
}

// payloadEffect is what an op does to its own znode; version is the one
// the caller was told it produced, or -1.
func payloadEffect(o migrationzk.Op, version int32) history.Effect {
	if isDelete(o) {
		return history.Effect{Slot: 0, Delete: true, Version: -1}
	}
	return history.Effect{Slot: 0, Create: isCreate(o), Data: string(o.Data()), Version: version}
}

// heldState is s with the identity of the checkpoint GetOrCreate found, if
// it found one: what /migration holds.
func heldState(s migrationzk.State, res migrationzk.GetOrCreateResult) migrationzk.State {
	if res.Stored != nil {
		s.KRaftControllerID, s.KRaftControllerEpoch = res.Stored.KRaftControllerID, res.Stored.KRaftControllerEpoch
	}
	return s
}

// stateData is the content of /migration that s stands for.
func stateData(s migrationzk.State) []byte {
	return znode.Migration{KRaftMetadataOffset: s.KRaftMetadataOffset, KRaftControllerID: s.KRaftControllerID,
		KRaftMetadataEpoch: s.KRaftMetadataEpoch, KRaftControllerEpoch: s.KRaftControllerEpoch}.Encode()
}

// short is err's message cut to 120 bytes, or "ok" for nil.
func short(err error) string {
	if err == nil {
		return "ok"
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "..."
	}
	return msg
}

// refusedOps counts the ops ZooKeeper refused on their own account.
func refusedOps(res []migrationzk.OpResult) int {
	n := 0
	for _, r := range res {
		var oe *migrationzk.OpError
		if errors.As(r.Err, &oe) {
			n++
		}
	}
	return n
}
