package torture

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"github.com/go-zookeeper/zk"

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
	case r < 0.3 && len(wk.ops) > 0 && isCreate(wk.ops[0]):
		path := d.p(wk.ops[0].Path())
		call := d.h.now()
		_, err := d.admin.Create(path, []byte("foreign"), 0, zk.WorldACL(zk.PermAll))
		d.recordForeign(FaultForeignWrite, path, path, 0, call, err, cond{Kind: condAbsent}, effect{Create: true, Data: "foreign", Version: 0})
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
		call := d.h.now()
		_, err := d.admin.Set(path, data, cur.Version)
		d.recordForeign(FaultForeignWrite, path, path, 0, call, err, cond{Kind: condVersion, Version: cur.Version}, effect{Data: string(data), Version: cur.Version + 1})
	default:
		d.foreignMigration(g)
	}
}

// foreignMigration writes a stale checkpoint of another controller with
// g's KRaft epoch to /migration: a conflict, not a fence.
func (d *driver) foreignMigration(g *generation) {
	path := d.p("/migration")
	cur, ok := d.adminRead(path, slotMigration, migrationGroup)
	if !ok || !cur.Exists {
		return
	}
	m, err := znode.DecodeMigration([]byte(cur.Data))
	if err != nil {
		m = znode.Migration{KRaftMetadataOffset: 0}
	}
	data := znode.Migration{KRaftMetadataOffset: m.KRaftMetadataOffset - 1, KRaftControllerID: foreignController,
		KRaftMetadataEpoch: g.epoch, KRaftControllerEpoch: g.epoch}.Encode()
	call := d.h.now()
	_, err = d.admin.Set(path, data, cur.Version)
	d.recordForeign(FaultForeignWrite, path, migrationGroup, slotMigration, call, err,
		cond{Slot: slotMigration, Kind: condVersion, Version: cur.Version},
		effect{Slot: slotMigration, Data: string(data), Version: cur.Version + 1})
}

// recordForeign records a foreign write of kind to path, in group at slot,
// that started at call and ended with err.
func (d *driver) recordForeign(kind, path, group string, slot int, call int64, err error, c cond, e effect) {
	ret := d.h.now()
	c.Slot, e.Slot = slot, slot
	desc := kind + ": foreign write " + path
	switch {
	case err == nil:
		d.count(kind)
		d.h.add(group, op{Client: 0, Call: call, Return: ret, Step: step{Kind: stepWrite, Conds: []cond{c}, Effects: []effect{e}, Desc: desc}})
		d.h.addForeign(path, foreignWrite{span: span{call, ret}, Landed: true, Version: e.Version})
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrNoNode):
		d.h.add(group, op{Client: 0, Call: call, Return: ret, Step: step{Kind: stepRefused, Conds: []cond{c}, Desc: desc + " refused"}})
	default:
		d.count(kind)
		e.Version = -1
		d.h.add(group, op{Client: 0, Call: call, Return: never, Step: step{Kind: stepMaybe, Conds: []cond{c}, Effects: []effect{e}, Desc: fmt.Sprintf("%s (%v)", desc, err)}})
		d.h.addForeign(path, foreignWrite{span: span{call, never}, Version: -1})
	}
}

// foreignSet writes data to path, whatever its version, as another party
// would; it returns whether the write landed.
func (d *driver) foreignSet(kind, path, group string, slot int, data []byte) bool {
	call := d.h.now()
	st, err := d.admin.Set(path, data, -1)
	version := int32(-1)
	if err == nil {
		version = st.Version
	}
	d.recordForeign(kind, path, group, slot, call, err, cond{Kind: condExists}, effect{Data: string(data), Version: version})
	return err == nil
}

// foreignDelete deletes path, whatever its version, as another party
// would.
func (d *driver) foreignDelete(kind, path string) bool {
	call := d.h.now()
	err := d.admin.Delete(path, -1)
	d.recordForeign(kind, path, path, 0, call, err, cond{Kind: condExists}, effect{Delete: true, Version: -1})
	return err == nil
}

// foreignCreate creates path holding data, as another party would.
func (d *driver) foreignCreate(kind, path string, data []byte) bool {
	call := d.h.now()
	_, err := d.admin.Create(path, data, 0, zk.WorldACL(zk.PermAll))
	d.recordForeign(kind, path, path, 0, call, err, cond{Kind: condAbsent}, effect{Create: true, Data: string(data), Version: 0})
	return err == nil
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
	path, group, slot, data := d.p("/migration"), migrationGroup, slotMigration, stateData(s)
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
		if strings.HasPrefix(o.String(), "setData ") {
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
		wk.ops = append(wk.ops, d.topicOps(fmt.Sprintf("t%06d", d.nextTopic))...)
		d.nextTopic++
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
