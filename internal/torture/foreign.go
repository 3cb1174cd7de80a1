package torture

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// foreignWrite writes in the way of the coming call: /migration, a
// partition state it is about to update, or the topic it is about to
// create.
func (d *driver) foreignWrite(rng *rand.Rand, g *generation, wk work) {
	r := rng.Float64()
	switch {
	case len(wk.delta) > 0 && r < 0.8:
		d.foreignDeltaWrite(rng, g, wk.delta)
	case r < 0.3 && len(wk.ops) > 0 && isCreate(wk.ops[0]):
		path := d.p(wk.ops[0].Path())
		d.foreignCreate(FaultForeignWrite, path, []byte("foreign"))
	case r < 0.6 && len(wk.ops) > 0:
		o := wk.ops[rng.Intn(len(wk.ops))]
		if isCreate(o) {
			d.foreignMigration(g)
			return
		}
		path := d.p(o.Path())
		cur, ok := d.adminRead(path, 0, path)
		if !ok || !cur.Exists {
			return
		}
		st := znode.PartitionState{ControllerEpoch: g.epoch, Leader: 99, LeaderEpoch: cur.Version + 1, ISR: []int32{99}}
		data := st.Encode()
		_, _ = d.foreign(FaultForeignWrite, path, path, 0, history.Cond{Kind: history.CondVersion, Version: cur.Version}, history.Effect{Data: string(data)},
			func() (int32, error) { return setData(d.admin, path, data, cur.Version) })
	default:
		d.foreignMigration(g)
	}
}

// foreignMigration writes a stale checkpoint of another controller with
// g's KRaft epoch to /migration: a conflict, not a fence.
func (d *driver) foreignMigration(g *generation) {
	path := d.p("/migration")
	cur, ok := d.adminRead(path, history.SlotMigration, history.MigrationGroup)
	if !ok || !cur.Exists {
		return
	}
	m, err := znode.DecodeMigration([]byte(cur.Data))
	if err != nil {
		m = znode.Migration{KRaftMetadataOffset: 0}
	}
	data := znode.Migration{KRaftMetadataOffset: m.KRaftMetadataOffset - 1, KRaftControllerID: foreignController,
		KRaftMetadataEpoch: g.epoch, KRaftControllerEpoch: g.epoch}.Encode()
	_, _ = d.foreign(FaultForeignWrite, path, history.MigrationGroup, history.SlotMigration, history.Cond{Kind: history.CondVersion, Version: cur.Version},
		history.Effect{Data: string(data)}, func() (int32, error) { return setData(d.admin, path, data, cur.Version) })
}

// foreign makes write, a foreign write of kind to path (in group at
// slot), and records it: conditioned on c, it does e when it lands, at the
// version write returns (-1 for a delete).
func (d *driver) foreign(kind, path, group string, slot int, c history.Cond, e history.Effect, write func() (int32, error)) (history.Record, error) {
	rc, err := d.rec.Wrap(0, 0, kind+": foreign write "+path, func() (err error) {
		e.Version, err = write()
		return err
	})
	c.Slot, e.Slot = slot, slot
	switch {
	case err == nil:
		d.count(kind)
		d.h.Add(group, rc.Op(history.Step{Kind: history.StepWrite, Conds: []history.Cond{c}, Effects: []history.Effect{e}}))
		d.h.AddForeign(path, history.ForeignWrite{Span: rc.Span, Landed: true, Version: e.Version})
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrNoNode):
		d.h.Add(group, rc.Op(history.Step{Kind: history.StepRefused, Conds: []history.Cond{c}, Desc: rc.Desc + " refused"}))
	default:
		d.count(kind)
		e.Version = -1
		d.h.Add(group, rc.InDoubt().Op(history.Step{Kind: history.StepMaybe, Conds: []history.Cond{c}, Effects: []history.Effect{e}, Desc: fmt.Sprintf("%s (%v)", rc.Desc, err)}))
		d.h.AddForeign(path, history.ForeignWrite{Span: rc.InDoubt().Span, Version: -1})
	}
	return rc, err
}

// foreignSet writes data to path, whatever its version, as another party
// would; it returns whether the write landed.
func (d *driver) foreignSet(kind, path, group string, slot int, data []byte) bool {
	return landed(d.foreign(kind, path, group, slot, history.Cond{Kind: history.CondExists}, history.Effect{Data: string(data)},
		func() (int32, error) { return setData(d.admin, path, data, -1) }))
}

// foreignDelete deletes path, whatever its version, as another party
// would.
func (d *driver) foreignDelete(kind, path string) bool {
	return landed(d.foreign(kind, path, path, 0, history.Cond{Kind: history.CondExists}, history.Effect{Delete: true},
		func() (int32, error) { return -1, d.admin.Delete(path, -1) }))
}

// foreignCreate creates path holding data, as another party would.
func (d *driver) foreignCreate(kind, path string, data []byte) bool {
	return landed(d.foreign(kind, path, path, 0, history.Cond{Kind: history.CondAbsent}, history.Effect{Create: true, Data: string(data)}, func() (int32, error) {
		_, err := d.admin.Create(path, data, 0, zk.WorldACL(zk.PermAll))
		return 0, err
	}))
}

// landed reports whether a foreign write landed.
func landed(_ history.Record, err error) bool { return err == nil }

// setData sets path's data if at version (-1 for any) through conn, and
// returns the version it produced.
func setData(conn *zk.Conn, path string, data []byte, version int32) (int32, error) {
	st, err := conn.Set(path, data, version)
	if err != nil {
		return -1, err
	}
	return st.Version, nil
}

// injectABA writes our exact bytes in the way of the call, as another
// party would: to /migration, right after the call's transaction committed
// (its reply then dropped), so that the version moves by two with our
// content; or before the transaction reached the server (then dropped):
// once when the call is a batch, whose ops then show that the write is not
// ours, twice for a checkpoint alone, whose version then moves by two. Or
// to a payload znode the batch sets, after the commit.
func (d *driver) injectABA(g *generation, wk work, s migrationzk.State) []*zktest.Armed {
	f := d.callWrite()
	f.Action = zktest.DropReply
	times := 1
	if d.rng.Float64() < 0.5 {
		f.Action = zktest.DropRequest
		if len(wk.ops) == 0 {
			times = 2
		}
	}
	path, group, slot, data := d.p("/migration"), history.MigrationGroup, history.SlotMigration, stateData(s)
	if sets := setOps(wk); len(sets) > 0 && d.rng.Float64() < 0.3 {
		o := sets[d.rng.Intn(len(sets))]
		f.Action = zktest.DropReply
		path, group, slot, data, times = d.p(o.Path()), d.p(o.Path()), 0, o.Data(), 1
	}
	f.Then = func() {
		for i := 0; i < times; i++ {
			d.foreignSet(FaultABAWrite, path, group, slot, data)
		}
	}
	return []*zktest.Armed{d.arm(g, f)}
}

// setOps returns the SetData ops of wk.
func setOps(wk work) []migrationzk.Op {
	var sets []migrationzk.Op
	for _, o := range wk.ops {
		if o.Kind() == migrationzk.OpSetData {
			sets = append(sets, o)
		}
	}
	return sets
}

// injectRecreate, while the outcome of the call's batch is in doubt (its
// reply dropped after the commit, and most of the time the call then ended
// by its caller, so that the next call judges it), has another party
// delete a partition state the batch created and create it again with the
// same bytes, rewrite it with the same bytes, or delete it; rewrite a
// partition state the batch set with the same bytes; or create again, with
// the same bytes, a topic the batch deleted. A batch with none of these
// ops gets a topic to create.
func (d *driver) injectRecreate(g *generation, wk *work) []*zktest.Armed {
	targets := recreateTargets(*wk)
	if len(targets) == 0 {
		wk.ops = append(wk.ops, d.newTopic(g.epoch)...)
		targets = recreateTargets(*wk)
	}
	target := targets[d.rng.Intn(len(targets))]
	path := d.p(target.Path())
	cancel, how := d.rng.Float64() < 0.7, d.rng.Intn(3)
	data := target.Data()
	if isDelete(target) {
		data = topicData
	}
	f := d.callWrite()
	f.Action = zktest.DropReply
	f.Then = func() {
		if cancel {
			d.cancelCall()
		}
		switch {
		case isDelete(target):
			d.foreignCreate(FaultRecreate, path, data)
		case how == 0 || !isCreate(target):
			d.foreignSet(FaultRecreate, path, path, 0, data)
		case d.foreignDelete(FaultRecreate, path) && how == 1:
			d.foreignCreate(FaultRecreate, path, data)
		}
	}
	return []*zktest.Armed{d.arm(g, f)}
}

// recreateTargets lists the ops of wk that injectRecreate can act on: the
// creates and sets of partition states, and the deletes of topic znodes.
func recreateTargets(wk work) []migrationzk.Op {
	var targets []migrationzk.Op
	for _, o := range wk.ops {
		state := strings.HasSuffix(o.Path(), "/state")
		topic := isDelete(o) && strings.Count(o.Path(), "/") == 3
		if (state && !isDelete(o)) || topic {
			targets = append(targets, o)
		}
	}
	return targets
}
