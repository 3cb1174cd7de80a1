package torture

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// faultWeights are the relative chances of each kind of fault.
var faultWeights = [...]struct {
	kind   string
	weight int
}{
	{FaultDropReply, 6}, {FaultDropRequest, 4}, {FaultCutRequest, 4},
	{FaultKillMember, 2}, {FaultKillClientMember, 2}, {FaultExpireSession, 3},
	{FaultRival, 2}, {FaultForeignWrite, 3},
}

func (d *driver) pickFault() string {
	total := 0
	for _, w := range faultWeights {
		total += w.weight
	}
	n := d.rng.Intn(total)
	for _, w := range faultWeights {
		if n < w.weight {
			return w.kind
		}
		n -= w.weight
	}
	return FaultDropReply
}

// inject sets up one fault around the coming call of g, which makes wk: at
// once, at a random moment during the call, or at the exact moment a
// request of the call reaches the server or its reply comes back. It
// returns the faults armed on g's dialer.
func (d *driver) inject(g *generation, wk work) []*zktest.Armed {
	kind := d.pickFault()
	migration := d.p("/migration")
	// The call's write: every transaction holds /migration.
	target := zktest.Fault{Op: zktest.OpMulti, Path: migration}
	netAction := func() zktest.Action {
		return []zktest.Action{zktest.DropReply, zktest.DropRequest, zktest.CutRequest}[d.rng.Intn(3)]
	}
	arm := func(f zktest.Fault) *zktest.Armed {
		kindOf := map[zktest.Action]string{zktest.DropReply: FaultDropReply, zktest.DropRequest: FaultDropRequest, zktest.CutRequest: FaultCutRequest}[f.Action]
		then := f.Then
		f.Then = func() {
			d.count(kindOf)
			if then != nil {
				then()
			}
		}
		return g.faults.Arm(f)
	}
	switch kind {
	case FaultDropReply, FaultDropRequest, FaultCutRequest:
		f := target
		f.Action = map[string]zktest.Action{FaultDropReply: zktest.DropReply, FaultDropRequest: zktest.DropRequest, FaultCutRequest: zktest.CutRequest}[kind]
		if d.rng.Float64() < 0.2 && len(wk.ops) > 0 {
			// Aim at a payload path instead; the same transaction.
			f.Path = d.p(wk.ops[d.rng.Intn(len(wk.ops))].Path())
		}
		armed := []*zktest.Armed{arm(f)}
		if d.rng.Float64() < 0.3 {
			// A second fault on whatever comes next about /migration: the
			// resend, or the sync and read that settle it.
			armed = append(armed, arm(zktest.Fault{Action: netAction(), Op: zktest.OpAny, Path: migration}))
		}
		return armed

	case FaultKillMember:
		m := d.e.Members[d.rng.Intn(len(d.e.Members))]
		if !d.reserveDown(m) {
			return nil
		}
		delay := time.Duration(d.rng.Intn(15)) * time.Millisecond
		down := time.Duration(100+d.rng.Intn(700)) * time.Millisecond
		if d.rng.Float64() < 0.5 {
			d.killAndRestart(m, FaultKillMember, down)
		} else {
			go func() {
				time.Sleep(delay)
				d.killAndRestart(m, FaultKillMember, down)
			}()
		}
		return nil

	case FaultKillClientMember:
		down := time.Duration(100+d.rng.Intn(700)) * time.Millisecond
		kill := func() {
			m := d.e.Member(g.conn.Server())
			if m != nil && d.reserveDown(m) {
				d.killAndRestart(m, FaultKillClientMember, down)
			}
		}
		if d.rng.Float64() < 0.4 {
			kill()
			return nil
		}
		f := target
		f.Action = []zktest.Action{zktest.DropReply, zktest.DropRequest}[d.rng.Intn(2)]
		f.Then = kill
		return []*zktest.Armed{arm(f)}

	case FaultExpireSession:
		expire := func() {
			id, pw := g.faults.Session()
			addr := d.runningMember()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := zktest.ExpireSession(ctx, addr, id, pw); err != nil {
				d.anomaly("harness: expire session %x: %v", id, err)
				return
			}
			d.count(FaultExpireSession)
		}
		if d.rng.Float64() < 0.4 {
			expire()
			return nil
		}
		f := target
		f.Action = zktest.DropReply
		f.Then = expire
		return []*zktest.Armed{arm(f)}

	case FaultRival:
		if d.rival != nil {
			return nil
		}
		rival := d.newGeneration()
		d.rival = rival
		var once sync.Once
		claim := func() {
			once.Do(func() {
				d.count(FaultRival)
				d.claim(rival)
			})
		}
		if d.rng.Float64() < 0.5 {
			delay := time.Duration(d.rng.Intn(20)) * time.Millisecond
			go func() {
				time.Sleep(delay)
				claim()
			}()
			return nil
		}
		f := target
		f.Action = []zktest.Action{zktest.DropReply, zktest.DropRequest}[d.rng.Intn(2)]
		f.Then = claim
		// If the call never sent the request (it failed first), claim
		// once the call is over.
		d.afterCall = append(d.afterCall, func() { go claim() })
		return []*zktest.Armed{arm(f)}

	case FaultForeignWrite:
		rng := rand.New(rand.NewSource(d.rng.Int63()))
		write := func() { d.foreignWrite(rng, g, wk) }
		if d.rng.Float64() < 0.6 {
			write()
			return nil
		}
		f := target
		f.Action = zktest.DropReply
		f.Then = func() { d.foreignMigration(g) }
		return []*zktest.Armed{arm(f)}
	}
	return nil
}

// reserveDown marks m as the member that is down, unless one already is:
// the ensemble keeps its quorum.
func (d *driver) reserveDown(m *zktest.Member) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down != nil || d.quiet || time.Since(d.lastUp) < d.cfg.KillGap {
		return false
	}
	d.down = m
	d.restarts.Add(1)
	return true
}

// killAndRestart kills m (SIGKILL) and restarts it after down in the
// background.
func (d *driver) killAndRestart(m *zktest.Member, kind string, down time.Duration) {
	if err := m.Kill(); err != nil {
		d.anomaly("harness: kill member %d: %v", m.ID, err)
	}
	d.count(kind)
	go func() {
		defer d.restarts.Done()
		time.Sleep(down)
		if err := m.Restart(); err != nil {
			d.anomaly("harness: restart member %d: %v", m.ID, err)
		}
		d.mu.Lock()
		d.down, d.lastUp = nil, time.Now()
		d.mu.Unlock()
	}()
}

// runningMember returns the address of a member that is not down.
func (d *driver) runningMember() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.e.Members {
		if m != d.down {
			return m.Addr
		}
	}
	return d.e.Servers[0]
}

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
