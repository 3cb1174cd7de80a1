package torture

import (
	"context"
	"errors"
	"fmt"

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
}

// classify sorts a call's error; it does not record anything.
func (d *driver) classify(g *generation, ctx context.Context, err error) outcome {
	o := outcome{err: err}
	switch {
	case err == nil:
	case errors.Is(err, migrationzk.ErrFenced):
		// In doubt or not, a fenced call is final: the writer is retired.
		o.fenced = true
	case errors.Is(err, migrationzk.ErrOutcomeUnknown):
		d.unknown.Add(1)
		o.retry, o.err = true, err
		o.deadline = ctx.Err() != nil
		d.mend(g, err)
	case errors.Is(err, migrationzk.ErrConflict):
		o.conflict = true
		d.conflicts++
	case ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		// Not sent: the documented meaning of a context error without
		// ErrOutcomeUnknown.
		o.retry, o.deadline = true, true
	}
	return o
}

// update makes one Update call and records it, as if called at from (its
// first attempt's start; 0 for now).
func (d *driver) update(ctx context.Context, g *generation, s migrationzk.State, from int64) outcome {
	d.calls.Add(1)
	data := string(stateData(s))
	var out migrationzk.State
	var err error
	rc, err := d.rec.Wrap(g.client(), from, fmt.Sprintf("update by %d offset %d", g.id, s.KRaftMetadataOffset), func() (err error) {
		out, err = g.w.Update(ctx, s)
		return err
	})
	o := d.classify(g, ctx, err)
	conds := []history.Cond{{Slot: history.SlotMigration, Kind: history.CondVersion, Version: s.MigrationZkVersion},
		{Slot: history.SlotEpoch, Kind: history.CondVersion, Version: s.ZkControllerEpochZkVersion}}
	switch {
	case err == nil:
		if out.MigrationZkVersion != s.MigrationZkVersion+1 {
			d.anomaly(CheckVersion, "%s: version %d from %d", rc.Desc, out.MigrationZkVersion, s.MigrationZkVersion)
		}
		d.written(g, out, conds, data, rc)
	case errors.Is(err, migrationzk.ErrOutcomeUnknown), o.conflict:
		d.maybeWritten(g, o, conds, data, rc)
	}
	// Fenced and not in doubt: ZooKeeper refused the only copy, so the
	// history records no write.
	return o
}

// written records a call that said it wrote /migration, and checks it.
func (d *driver) written(g *generation, out migrationzk.State, conds []history.Cond, data string, rc history.Record) {
	d.h.Add(history.MigrationGroup, rc.Op(history.Step{Kind: history.StepWrite, Conds: conds,
		Effects: []history.Effect{{Slot: history.SlotMigration, Data: data, Version: out.MigrationZkVersion}}}))
	d.h.AddSuccess(rc.Success(d.p("/migration"), out.MigrationZkVersion, g.learned))
	d.checkMigration(g, out, rc)
	g.s, g.learned, g.since = out, rc.Return, rc.Call
}

// maybeWritten records a call whose write to /migration may or may not
// have happened.
func (d *driver) maybeWritten(g *generation, o outcome, conds []history.Cond, data string, rc history.Record) {
	doubt := rc
	if o.retry {
		doubt = rc.InDoubt()
	}
	d.h.Add(history.MigrationGroup, doubt.Op(history.Step{Kind: history.StepMaybe, Conds: conds,
		Effects: []history.Effect{{Slot: history.SlotMigration, Data: data, Version: -1}}, Desc: rc.Desc + " (" + short(o.err) + ")"}))
	d.recordConflict(g, o.err, data, rc)
}

// recordConflict records what a *ConflictError says of a call that wrote
// data to /migration.
func (d *driver) recordConflict(g *generation, err error, data string, rc history.Record) {
	var ce *migrationzk.ConflictError
	if !errors.As(err, &ce) {
		return
	}
	c := history.ConflictReport{Path: d.p("/migration"), Since: g.since, At: rc.Span, What: rc.Desc}
	if string(ce.CurrentData) == data {
		for _, p := range d.callPaths {
			c.Also = append(c.Also, d.p(p))
		}
	}
	d.h.AddConflict(c)
	seen := history.Value{Exists: ce.CurrentVersion >= 0, Version: ce.CurrentVersion}
	if seen.Exists {
		seen.Data = string(ce.CurrentData)
	}
	d.h.Add(history.MigrationGroup, rc.Op(history.Step{Kind: history.StepRead, Obs: []history.Obs{{Slot: history.SlotMigration, Val: seen}}, Desc: rc.Desc + " conflict report"}))
}

// apply makes one Apply call and records it, as if called at from (its
// first attempt's start; 0 for now): the checkpoint that ends the batch's
// transaction, then each op as its result says.
func (d *driver) apply(ctx context.Context, g *generation, s migrationzk.State, ops []migrationzk.Op, from int64) outcome {
	d.calls.Add(1)
	var out migrationzk.State
	var res []migrationzk.OpResult
	var err error
	rc, err := d.rec.Wrap(g.client(), from, fmt.Sprintf("apply by %d offset %d (%d ops)", g.id, s.KRaftMetadataOffset, len(ops)), func() (err error) {
		out, res, err = g.w.Apply(ctx, s, ops...)
		return err
	})
	o := d.classify(g, ctx, err)
	d.recordApplyCheckpoint(g, s, out, o, refusedOps(res), rc)
	if res == nil && err == nil {
		d.anomaly(CheckResults, "%s: no results", rc.Desc)
	}
	d.recordResults(g, res, err, o, out, rc)
	return o
}

// recordResults records each op of a batch as its result says, checks
// what ZooKeeper holds of those that landed, and rereads those refused.
func (d *driver) recordResults(g *generation, res []migrationzk.OpResult, err error, o outcome, out migrationzk.State, rc history.Record) {
	var reread []string
	var checks []payloadCheck
	for i, r := range res {
		opRec := rc.Part(fmt.Sprintf("%s op %d %v", rc.Desc, i, r.Op))
		rel := r.Path // for a sequential create, the name ZooKeeper gave, if known
		var oe *migrationzk.OpError
		switch {
		case rel == "":
			// A sequential create whose name nobody learned.
		case r.Err == nil:
			if r.Recovered || (err == nil && out.Recovered) {
				// A copy of the op's transaction landed before a reread
				// proved it; the op may have been sent again after it.
				d.opMaybeWritten(r.Op, rel, nil, false, opRec.Part(opRec.Desc+" first copy"))
			}
			checks = append(checks, d.opWritten(r.Op, rel, r.Version, opRec))
		case errors.As(r.Err, &oe):
			d.opRefused(r.Op, rel, oe, opRec)
			reread = append(reread, rel)
		case errors.Is(r.Err, migrationzk.ErrNotApplied):
			if err == nil {
				d.anomaly(CheckResults, "%s: op %d not applied in a batch that succeeded", rc.Desc, i)
			}
		default:
			retry := errors.Is(r.Err, migrationzk.ErrOutcomeUnknown) && o.retry
			d.opMaybeWritten(r.Op, rel, r.Err, retry, opRec)
		}
	}
	d.checkPayloads(checks, rc)
	for _, p := range reread {
		d.relearn(p)
	}
}

// recordApplyCheckpoint records what an Apply call of s, classified as o,
// did to /migration, and checks it when it said it wrote.
func (d *driver) recordApplyCheckpoint(g *generation, s, out migrationzk.State, o outcome, refused int, rc history.Record) {
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
				d.earlierPart(g, v, data, epochCond, rc)
			}
		default:
			d.anomaly(CheckVersion, "%s: /migration version %d from %d with %d ops refused", rc.Desc, out.MigrationZkVersion, s.MigrationZkVersion, refused)
		}
		d.written(g, out, []history.Cond{from, epochCond}, data, rc)
	case o.retry && errors.Is(o.err, migrationzk.ErrOutcomeUnknown), o.conflict, o.fenced:
		d.maybeWritten(g, o, []history.Cond{{Slot: history.SlotMigration, Kind: history.CondVersion, Version: s.MigrationZkVersion}, epochCond}, data, rc)
	}
}

// earlierPart records a transaction of a call that returned at ret after
// moving /migration from version from (with our content: the model does
// not tell it from the content it rewrote) before its last one.
func (d *driver) earlierPart(g *generation, from int32, data string, epochCond history.Cond, rc history.Record) {
	part := rc.Part(fmt.Sprintf("%s part to version %d", rc.Desc, from+1))
	d.h.Add(history.MigrationGroup, part.Op(history.Step{Kind: history.StepWrite,
		Conds:   []history.Cond{{Slot: history.SlotMigration, Kind: history.CondVersion, Version: from}, epochCond},
		Effects: []history.Effect{{Slot: history.SlotMigration, Data: data, Version: from + 1}}}))
	d.h.AddSuccess(part.Success(d.p("/migration"), from+1, g.learned))
}

// opWritten records an op of a batch that Apply said landed at version,
// and returns what ZooKeeper must hold right after.
func (d *driver) opWritten(o migrationzk.Op, rel string, version int32, rc history.Record) payloadCheck {
	path := d.p(rel)
	d.h.Add(path, rc.Op(history.Step{Kind: history.StepWrite, Conds: []history.Cond{payloadCond(o)}, Effects: []history.Effect{payloadEffect(o, version)}}))
	learned := int64(-1)
	if pl := d.payloads[rel]; pl != nil {
		learned = pl.learned
	}
	written := rc.Success(path, version, learned)
	written.Data = string(o.Data())
	d.h.AddSuccess(written)
	// Learned as of the call's start: another party may have written the
	// znode since the op, while the call was in flight.
	d.learn(rel, !isDelete(o), version, rc.Call)
	return payloadCheck{path: path, data: o.Data(), version: version, desc: rc.Desc, deleted: isDelete(o)}
}

// opRefused records an op of a batch that ZooKeeper refused (*OpError): a
// conflict on its znode.
func (d *driver) opRefused(o migrationzk.Op, rel string, oe *migrationzk.OpError, rc history.Record) {
	d.conflicts++
	path := d.p(rel)
	d.h.Add(path, rc.Op(history.Step{Kind: history.StepRefused, Conds: []history.Cond{payloadCond(o)}, Desc: rc.Desc + " refused"}))
	// The op's version was learned when the work was chosen; retries of
	// the call send it as it was.
	d.h.AddConflict(history.ConflictReport{Path: path, Since: d.basis[rel], At: rc.Span, What: rc.Desc + ": " + oe.Err.Error()})
}

// opMaybeWritten records an op of a batch that may or may not have landed,
// failed with err; when the call is to be retried, it may land at any
// later moment.
func (d *driver) opMaybeWritten(o migrationzk.Op, rel string, err error, retry bool, rc history.Record) {
	if retry {
		rc = rc.InDoubt()
	}
	d.h.Add(d.p(rel), rc.Op(history.Step{Kind: history.StepMaybe, Conds: []history.Cond{payloadCond(o)},
		Effects: []history.Effect{payloadEffect(o, -1)}, Desc: rc.Desc + " (" + short(err) + ")"}))
}

// getOrCreate calls GetOrCreate until it settles and records it.
func (d *driver) getOrCreate(g *generation) bool {
	in := g.initial()
	in.ZkControllerEpoch, in.ZkControllerEpochZkVersion = g.s.ZkControllerEpoch, g.s.ZkControllerEpochZkVersion
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		d.calls.Add(1)
		ctx, cancel := context.WithTimeout(d.ctx, callTimeout)
		var s migrationzk.State
		var res migrationzk.GetOrCreateResult
		var err error
		rc, err := d.rec.Wrap(g.client(), 0, fmt.Sprintf("GetOrCreate by %d", g.id), func() (err error) {
			s, res, err = g.w.GetOrCreate(ctx, in)
			return err
		})
		cancel()
		if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
			d.unknown.Add(1)
			d.mend(g, err)
			data := string(stateData(in))
			d.h.Add(history.MigrationGroup, rc.InDoubt().Op(history.Step{Kind: history.StepMaybe,
				Conds: []history.Cond{{Slot: history.SlotMigration, Kind: history.CondAbsent}}, Effects: []history.Effect{{Slot: history.SlotMigration, Create: true, Data: data, Version: -1}},
				Desc: "create /migration (unknown)"}))
			continue
		}
		if err != nil {
			d.anomaly(CheckUnexpected, "controller %d: GetOrCreate: %v", g.id, err)
			return false
		}
		// What /migration holds: the State created, or the checkpoint
		// found, whose identity the returned State does not adopt.
		created, held := string(stateData(s)), heldState(s, res)
		data := string(stateData(held))
		d.h.Add(history.MigrationGroup, rc.Op(history.Step{Kind: history.StepReadOrCreate,
			Conds:   []history.Cond{{Slot: history.SlotMigration, Kind: history.CondAbsent}},
			Effects: []history.Effect{{Slot: history.SlotMigration, Create: true, Data: created, Version: 0}},
			Obs:     []history.Obs{{Slot: history.SlotMigration, Val: history.Value{Exists: true, Version: s.MigrationZkVersion, Data: data}}}}))
		d.checkMigration(g, held, rc)
		g.s, g.learned, g.since = s, rc.Return, rc.Call
		return true
	}
	d.anomaly(CheckStuck, "stuck: controller %d: GetOrCreate outcome unknown %d times", g.id, maxAttempts)
	return false
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
