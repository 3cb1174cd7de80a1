package torture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// generation is one KRaft controller: a writer with its own connection.
type generation struct {
	n      int // 0 for the first; client n+1 in the history
	id     int32
	epoch  int32
	faults *zktest.FaultDialer
	conn   *zk.Conn
	w      *migrationzk.Writer
	s      migrationzk.State
	// learned is when the call that returned s returned; since when it
	// started.
	learned, since int64

	lostAcks uint64        // LostAcks of the writers this one replaced
	log      ring          // the writer's last log records
	claimed  chan struct{} // closed once its claim returned
	claimErr error
	claimEnd int64
}

// client is g's client number in the history; the admin session is 0.
func (g *generation) client() int { return g.n + 1 }

// initial is the State a generation starts from.
func (g *generation) initial() migrationzk.State {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	return s
}

// newGeneration connects a new KRaft controller, each one with a higher
// epoch than the last.
func (d *driver) newGeneration() *generation {
	n := len(d.gens)
	g := &generation{n: n, id: baseControllerID + int32(n), epoch: baseKRaftEpoch + int32(n),
		faults: zktest.NewFaultDialer(d.t), claimed: make(chan struct{})}
	servers := append([]string(nil), d.e.Servers...)
	d.rng.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
	g.conn = zktest.Connect(d.t, servers, g.faults.Option())
	g.log = newRing(20)
	g.w = migrationzk.New(g.conn, migrationzk.WithRoot(root), migrationzk.WithLogger(slog.New(g.log)))
	d.gens = append(d.gens, g)
	return g
}

// mend does what the documentation of ErrStaleSession asks of a caller
// whose client is stuck on a session the server expired: close the client,
// connect again and make a new Writer for the same controller.
func (d *driver) mend(g *generation, err error) {
	if !errors.Is(err, migrationzk.ErrStaleSession) {
		return
	}
	d.reconnects++
	g.lostAcks += g.w.Stats().LostAcks
	g.conn.Close()
	g.conn = zktest.Connect(d.t, d.e.Servers, g.faults.Option())
	g.w = migrationzk.New(g.conn, migrationzk.WithRoot(root), migrationzk.WithLogger(slog.New(g.log)))
}

// claim runs g's leadership claim and records it.
func (d *driver) claim(g *generation) {
	defer close(g.claimed)
	ctx, cancel := context.WithTimeout(d.ctx, callTimeout)
	defer cancel()
	call := d.h.now()
	s, err := g.w.ClaimLeadership(ctx, g.initial())
	ret := d.h.now()
	g.claimEnd, g.claimErr = ret, err
	if err != nil {
		d.anomaly("controller %d epoch %d: ClaimLeadership: %v", g.id, g.epoch, err)
		return
	}
	g.s = s
	epochData := string(znode.EncodeControllerEpoch(s.ZkControllerEpoch))
	d.h.add(migrationGroup, op{Client: g.client(), Call: call, Return: ret, Step: step{
		Kind:    stepWrite,
		Conds:   []cond{{Slot: slotEpoch, Kind: condVersion, Version: s.ZkControllerEpochZkVersion - 1}},
		Effects: []effect{{Slot: slotEpoch, Data: epochData, Version: s.ZkControllerEpochZkVersion}},
		Desc:    fmt.Sprintf("claim by %d", g.id),
	}})
	d.h.addSuccess(success{Path: d.p("/controller_epoch"), Version: s.ZkControllerEpochZkVersion, Learned: -1,
		At: span{call, ret}, Client: g.client(), What: "claim"})
	d.checkController(g)
}

// checkController reads /controller after g's claim returned: it must name
// g, unless a newer controller already claimed (rivals claim one at a
// time, so none can).
func (d *driver) checkController(g *generation) {
	_, datas, _, err := d.adminGet(d.p("/controller"))
	if err != nil {
		return
	}
	data := datas[0]
	c, derr := znode.DecodeController(data)
	if derr != nil || c.BrokerID != g.id || c.KRaftControllerEpoch != g.epoch {
		d.anomaly("after claim by %d epoch %d, /controller holds %s (%v)", g.id, g.epoch, data, derr)
	}
}

// takeOver handles a fenced writer: it must be retired and silent, and the
// rival that fenced it takes over the workload.
func (d *driver) takeOver(old *generation, s migrationzk.State) bool {
	rival := d.rival
	if rival == nil {
		d.anomaly("controller %d fenced with no rival", old.id)
		return false
	}
	<-rival.claimed
	if rival.claimErr != nil {
		return false
	}
	d.fenced++
	d.checkFenced(old, rival, s)
	old.conn.Close()
	d.rival = nil
	d.cur = rival
	return d.getOrCreate(rival)
}

// checkFenced checks old, fenced by rival: its calls with s must fail with
// ErrRetired without sending anything, and all of its successes must have
// linearized before the rival's claim returned (the model checks it
// through the fence, and so does this).
func (d *driver) checkFenced(old, rival *generation, s migrationzk.State) {
	before := old.faults.Requests()
	ctx, cancel := context.WithTimeout(d.ctx, callTimeout)
	defer cancel()
	if _, err := old.w.Update(ctx, s); !errors.Is(err, migrationzk.ErrRetired) {
		d.anomaly("controller %d: Update after being fenced: %v, want ErrRetired", old.id, err)
	}
	if _, _, err := old.w.Apply(ctx, s, migrationzk.Create("/brokers/topics/after-fence", nil)); !errors.Is(err, migrationzk.ErrRetired) {
		d.anomaly("controller %d: Apply after being fenced: %v, want ErrRetired", old.id, err)
	}
	if retired, _ := old.w.Retired(); !retired {
		d.anomaly("controller %d: fenced but not retired", old.id)
	}
	if after := old.faults.Requests(); after != before {
		d.anomaly("controller %d: sent %d requests after being fenced", old.id, after-before)
	}
	d.h.mu.Lock()
	defer d.h.mu.Unlock()
	for _, sc := range d.h.successes {
		if sc.Client == old.client() && sc.At.Call > rival.claimEnd {
			d.anomaly("controller %d: %s succeeded after the rival's claim", old.id, sc.What)
		}
	}
}
