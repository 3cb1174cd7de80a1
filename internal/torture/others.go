package torture

import (
	"errors"
	"fmt"
	"math/rand"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// others are the parties besides the writers under test that write to
// ZooKeeper: another controller, a ZooKeeper-mode broker, an operator's
// tool. They write through the admin session, and each of their writes
// is recorded in the history as a foreign write and counted as a fault
// of the kind that made it.
type others struct {
	admin *admin
	rec   history.Recorder
	tally *tally
}

// write makes f, a write of kind to path (in group at slot), and records
// it: conditioned on c, it does e when it lands, at the version f returns
// (-1 for a delete). It returns when the write was made.
func (o *others) write(kind, path, group string, slot int, c history.Cond, e history.Effect, f func() (int32, error)) (history.Span, error) {
	h := o.admin.h
	rc, err := o.rec.Wrap(0, 0, kind+": foreign write "+path, func() (err error) {
		e.Version, err = f()
		return err
	})
	c.Slot, e.Slot = slot, slot
	switch {
	case err == nil:
		o.tally.count(kind)
		h.Add(group, rc.Op(history.Step{Kind: history.StepWrite, Conds: []history.Cond{c}, Effects: []history.Effect{e}}))
		h.AddForeign(path, history.ForeignWrite{Span: rc.Span, Landed: true, Version: e.Version})
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrNoNode):
		h.Add(group, rc.Op(history.Step{Kind: history.StepRefused, Conds: []history.Cond{c}, Desc: rc.Desc + " refused"}))
	default:
		o.tally.count(kind)
		e.Version = -1
		h.Add(group, rc.InDoubt().Op(history.Step{Kind: history.StepMaybe, Conds: []history.Cond{c}, Effects: []history.Effect{e}, Desc: fmt.Sprintf("%s (%v)", rc.Desc, err)}))
		h.AddForeign(path, history.ForeignWrite{Span: rc.InDoubt().Span, Version: -1})
	}
	return rc.Span, err
}

// landed reports whether a foreign write landed.
func landed(_ history.Span, err error) bool { return err == nil }

// set writes data to path, whatever its version; it reports whether the
// write landed.
func (o *others) set(kind, path, group string, slot int, data []byte) bool {
	return landed(o.write(kind, path, group, slot, history.Cond{Kind: history.CondExists}, history.Effect{Data: string(data)},
		func() (int32, error) { return setData(o.admin.conn, path, data, -1) }))
}

// setAt writes data to path if at version.
func (o *others) setAt(kind, path string, data []byte, version int32) bool {
	return landed(o.write(kind, path, path, 0, history.Cond{Kind: history.CondVersion, Version: version}, history.Effect{Data: string(data)},
		func() (int32, error) { return setData(o.admin.conn, path, data, version) }))
}

// delete deletes path, whatever its version.
func (o *others) delete(kind, path string) bool {
	return landed(o.write(kind, path, path, 0, history.Cond{Kind: history.CondExists}, history.Effect{Delete: true},
		func() (int32, error) { return -1, o.admin.conn.Delete(path, -1) }))
}

// create creates path holding data.
func (o *others) create(kind, path string, data []byte) bool {
	return o.createIn(kind, path, path, 0, data)
}

// createIn creates path, in group at slot, holding data.
func (o *others) createIn(kind, path, group string, slot int, data []byte) bool {
	return landed(o.write(kind, path, group, slot, history.Cond{Kind: history.CondAbsent}, history.Effect{Create: true, Data: string(data)}, func() (int32, error) {
		_, err := o.admin.conn.Create(path, data, 0, zk.WorldACL(zk.PermAll))
		return 0, err
	}))
}

// setData sets path's data if at version (-1 for any) through conn, and
// returns the version it produced.
func setData(conn *zk.Conn, path string, data []byte, version int32) (int32, error) {
	st, err := conn.Set(path, data, version)
	if err != nil {
		return -1, err
	}
	return st.Version, nil
}

// staleCheckpoint writes to /migration, as kind, a stale checkpoint of
// another controller with g's KRaft epoch: a conflict, not a fence.
func (o *others) staleCheckpoint(kind string, g *generation) {
	path := p("/migration")
	cur, ok := o.admin.migration()
	if !ok || !cur.Exists {
		return
	}
	m, err := znode.DecodeMigration([]byte(cur.Data))
	if err != nil {
		m = znode.Migration{KRaftMetadataOffset: 0}
	}
	data := znode.Migration{KRaftMetadataOffset: m.KRaftMetadataOffset - 1, KRaftControllerID: foreignController,
		KRaftMetadataEpoch: g.epoch, KRaftControllerEpoch: g.epoch}.Encode()
	_, _ = o.write(kind, path, history.MigrationGroup, history.SlotMigration, history.Cond{Kind: history.CondVersion, Version: cur.Version},
		history.Effect{Data: string(data)}, func() (int32, error) { return setData(o.admin.conn, path, data, cur.Version) })
}

// newState writes, as kind, another party's partition state to path,
// existing, at the version it holds, stamped with g's KRaft epoch.
func (o *others) newState(kind, path string, g *generation) {
	cur, ok := o.admin.read(path, 0, path)
	if !ok || !cur.Exists {
		return
	}
	st := znode.PartitionState{ControllerEpoch: g.epoch, Leader: 99, LeaderEpoch: cur.Version + 1, ISR: []int32{99}}
	data := st.Encode()
	_, _ = o.write(kind, path, path, 0, history.Cond{Kind: history.CondVersion, Version: cur.Version}, history.Effect{Data: string(data)},
		func() (int32, error) { return setData(o.admin.conn, path, data, cur.Version) })
}

// deltaWrite writes, as another party, to a partition state of changes
// (the coming delta's, which the Client may remember): a SetData of
// other bytes, a delete, a delete and a create of the same bytes brought
// back to the version it had (an ABA that ZooKeeper's version check
// cannot see, as with Kafka's cached zkVersions, harmless with the same
// bytes), or a delete and a create of other bytes.
func (o *others) deltaWrite(rng *rand.Rand, g *generation, changes []deltaChange) {
	path := p(changes[rng.Intn(len(changes))].path)
	cur, ok := o.admin.read(path, 0, path)
	if !ok || !cur.Exists {
		return
	}
	switch r := rng.Float64(); {
	case r < 0.35:
		st := znode.PartitionState{ControllerEpoch: g.epoch, Leader: 99, LeaderEpoch: cur.Version + 1, ISR: []int32{99}}
		o.set(FaultForeignDelta, path, path, 0, st.Encode())
	case r < 0.55:
		o.delete(FaultForeignDelta, path)
	case r < 0.8:
		o.recreate(path, []byte(cur.Data), cur.Version)
	case cur.Version > 0: // back at version 0, which the Client cannot remember
		if o.delete(FaultForeignDelta, path) {
			st := znode.PartitionState{ControllerEpoch: 1, Leader: 98, LeaderEpoch: 98, ISR: []int32{98}}
			o.create(FaultForeignDelta, path, st.Encode())
		}
	}
}

// recreate deletes path and creates it again holding the same data, then
// sets that data again until it is back at version (given it is within a
// few writes): what the Client remembers of it, version and digest,
// matches it again, and rightly so.
func (o *others) recreate(path string, data []byte, version int32) {
	if version > 6 || !o.delete(FaultForeignDelta, path) {
		return
	}
	if !o.create(FaultForeignDelta, path, data) {
		return
	}
	for v := int32(0); v < version; v++ {
		if !o.set(FaultForeignDelta, path, path, 0, data) {
			return
		}
	}
}

// epoch moves /controller_epoch as kind: with ctl, in one transaction
// that also replaces /controller with ctl (an election, a KRaft
// controller's or a ZooKeeper-mode broker's); without, alone, to the
// next value, or with same to the value it holds (a write that moves only
// the version). It reports whether the write landed.
func (o *others) epoch(kind string, ctl *znode.Controller, same bool) bool {
	return o.epochTo(kind, ctl, func(value int32) int32 {
		if same {
			return value
		}
		return value + 1
	})
}

// epochTo moves /controller_epoch, holding value, to to(value), as kind:
// with ctl, in one transaction that also replaces /controller with ctl.
// A claim that lands is recorded as the claim of the identity ctl names,
// or of none. It reports whether the write landed.
func (o *others) epochTo(kind string, ctl *znode.Controller, to func(value int32) int32) bool {
	epochPath := p("/controller_epoch")
	cur, ok := o.admin.read(epochPath, history.SlotEpoch, history.MigrationGroup)
	if !ok || !cur.Exists {
		return false
	}
	value, err := znode.DecodeControllerEpoch([]byte(cur.Data))
	if err != nil {
		o.admin.log.add(CheckHarness, "harness: %s: /controller_epoch holds %q: %v", kind, cur.Data, err)
		return false
	}
	value = to(value)
	data := znode.EncodeControllerEpoch(value)
	at, err := o.write(kind, epochPath, history.MigrationGroup, history.SlotEpoch, history.Cond{Kind: history.CondVersion, Version: cur.Version},
		history.Effect{Data: string(data)}, func() (int32, error) { return cur.Version + 1, o.electOrRaise(epochPath, data, cur.Version, ctl) })
	if err == nil {
		who := history.Identity{Anonymous: true}
		if ctl != nil {
			who = history.Identity{ID: ctl.BrokerID, Epoch: ctl.KRaftControllerEpoch}
		}
		o.admin.h.AddClaim(history.ClaimRecord{Who: who, Version: cur.Version + 1, Value: value, At: at})
	}
	return err == nil
}

// electOrRaise sets /controller_epoch to data if at version, replacing
// /controller with ctl in the same transaction when ctl is set.
func (o *others) electOrRaise(epochPath string, data []byte, version int32, ctl *znode.Controller) error {
	set := &zk.SetDataRequest{Path: epochPath, Data: data, Version: version}
	if ctl == nil {
		_, err := o.admin.conn.Multi(set)
		return err
	}
	create := &zk.CreateRequest{Path: p("/controller"), Data: ctl.Encode(), Acl: zk.WorldACL(zk.PermAll)}
	_, err := o.admin.conn.Multi(set, &zk.DeleteRequest{Path: p("/controller"), Version: -1}, create)
	if errors.Is(err, zk.ErrNoNode) {
		// No /controller to replace; nothing of the transaction landed.
		_, err = o.admin.conn.Multi(set, create)
	}
	return err
}
