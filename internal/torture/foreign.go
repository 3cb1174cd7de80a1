package torture

import (
	"errors"
	"fmt"
	"math/rand"

	"github.com/go-zookeeper/zk"

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
		d.recordForeign(path, path, 0, call, err, cond{Kind: condAbsent}, effect{Create: true, Data: "foreign", Version: 0})
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
		d.recordForeign(path, path, 0, call, err, cond{Kind: condVersion, Version: cur.Version}, effect{Data: string(data), Version: cur.Version + 1})
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
	d.recordForeign(path, migrationGroup, slotMigration, call, err,
		cond{Slot: slotMigration, Kind: condVersion, Version: cur.Version},
		effect{Slot: slotMigration, Data: string(data), Version: cur.Version + 1})
}

// recordForeign records a foreign write that started at call and ended
// with err.
func (d *driver) recordForeign(path, group string, slot int, call int64, err error, c cond, e effect) {
	ret := d.h.now()
	c.Slot, e.Slot = slot, slot
	desc := "foreign write " + path
	switch {
	case err == nil:
		d.count(FaultForeignWrite)
		d.h.add(group, op{Client: 0, Call: call, Return: ret, Step: step{Kind: stepWrite, Conds: []cond{c}, Effects: []effect{e}, Desc: desc}})
		d.h.addForeign(path, foreignWrite{span: span{call, ret}, Landed: true, Version: e.Version})
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrNoNode):
		d.h.add(group, op{Client: 0, Call: call, Return: ret, Step: step{Kind: stepRefused, Conds: []cond{c}, Desc: desc + " refused"}})
	default:
		d.count(FaultForeignWrite)
		e.Version = -1
		d.h.add(group, op{Client: 0, Call: call, Return: never, Step: step{Kind: stepMaybe, Conds: []cond{c}, Effects: []effect{e}, Desc: fmt.Sprintf("%s (%v)", desc, err)}})
		d.h.addForeign(path, foreignWrite{span: span{call, never}, Version: -1})
	}
}
