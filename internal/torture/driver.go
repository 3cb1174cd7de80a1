package torture

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// driver runs the workload: it asks the workload for each call, draws a
// fault to inject around it, has the controller holding leadership make
// it, again while its outcome is unknown, and hands over to the rival
// that fenced that controller. Only its goroutine uses rng.
type driver struct {
	t   testing.TB
	cfg Config
	ctx context.Context
	rng *rand.Rand
	// r is what the calls are recorded into and checked against.
	r *recording
	// cl is what the faults act through; ctl the controllers.
	cl  *cluster
	ctl *controllers
	wl  *workload
	// faults are the faults drawn around a call, with their weights.
	faults []weightedFault
	offset int64 // the metadata offset of the last checkpoint chosen
	quiet  bool  // no more faults
	traced int   // steps traced (Config.trace)
}

// newDriver returns the driver of a run on ensemble e.
func newDriver(ctx context.Context, t testing.TB, cfg Config, e *zktest.Ensemble) *driver {
	rng, h, st := rand.New(rand.NewSource(cfg.Seed)), history.New(root), newStats()
	log := &anomalies{t: t, calls: &st.calls}
	ad := &admin{conn: e.Connect(t), h: h, log: log}
	tl := newTally(cfg.Cover)
	r := &recording{ctx: ctx, t: t, e: e, h: h, rec: history.NewRecorder(h, log.panicked), admin: ad, log: log,
		wl: newWorkload(rng), stats: st, tally: tl}
	ctl := &controllers{r: r, rng: rng}
	cl := &cluster{ctx: ctx, rng: rng, members: &members{e: e, gap: cfg.KillGap, tally: tl, log: log}, admin: ad,
		others: &others{admin: ad, rec: r.rec, tally: tl}, ctl: ctl, tally: tl, log: log, calls: &st.calls}
	return &driver{t: t, cfg: cfg, ctx: ctx, rng: rng, r: r, cl: cl, ctl: ctl, wl: r.wl, faults: faultTable()}
}

// setup lays out the cluster as Kafka leaves it when a migration starts.
func (d *driver) setup() {
	acl := zk.WorldACL(zk.PermAll)
	ctl := znode.Controller{Version: 2, BrokerID: 1, Timestamp: 1729500000000, KRaftControllerEpoch: -1}
	for _, n := range []struct {
		path string
		data []byte
	}{
		{"", nil}, {"/controller_epoch", znode.EncodeControllerEpoch(1)}, {"/controller", ctl.Encode()},
		{"/brokers", nil}, {"/brokers/topics", nil},
	} {
		if _, err := d.r.admin.conn.Create(p(n.path), n.data, 0, acl); err != nil {
			d.t.Fatalf("torture: setup %s: %v", p(n.path), err)
		}
	}
	if _, err := d.r.admin.conn.Create(barrierPath, nil, 0, acl); err != nil {
		d.t.Fatalf("torture: setup %s: %v", barrierPath, err)
	}
	d.r.h.SetInit(history.MigrationGroup, history.Slots{{}, {Exists: true, Version: 0, Data: "1"}})
}

// run is the workload: claim, GetOrCreate, then batches and checkpoints,
// with faults, until enough calls and faults were made.
func (d *driver) run() {
	cur := d.ctl.newGeneration()
	d.ctl.cur = cur
	d.ctl.claim(cur)
	if cur.claimErr != nil || !d.createMigration(cur) {
		return
	}
	d.offset = cur.s.KRaftMetadataOffset
	calls := &d.r.stats.calls
	lastProgress, nextCheck := time.Now(), int64(checkEvery)
	for int(calls.Load()) < d.cfg.Ops || d.cl.tally.total() < d.cfg.MinFaults || d.covering() {
		if d.stopping() {
			return
		}
		if d.cfg.Progress != nil && time.Since(lastProgress) > 10*time.Second {
			lastProgress = time.Now()
			d.cfg.Progress(fmt.Sprintf("%d calls, %d faults, %d writers, %d anomalies", calls.Load(), d.cl.tally.total(), len(d.ctl.gens), d.r.log.count()))
		}
		if !d.step() {
			return
		}
		if d.cfg.StopAtFirstAnomaly && calls.Load() >= nextCheck {
			nextCheck = calls.Load() + checkEvery
			d.checkInvariantsSoFar()
		}
	}
}

// createMigration has g, the first controller, create /migration with
// GetOrCreate, the create in doubt imitated by another party
// (imitateCreate), and reports whether the run can go on.
func (d *driver) createMigration(g *generation) bool {
	c := &call{}
	armed := imitateCreate{}.inject(d.cl, coming{g: g, wk: &work{}, s: g.initial(), call: c, wl: d.wl})
	ok := g.getOrCreate()
	c.over(armed)
	return ok
}

// stopping reports whether the workload must end early: the context ended,
// or enough anomalies were found.
func (d *driver) stopping() bool {
	limit := 20
	if d.cfg.StopAtFirstAnomaly {
		limit = 1
	}
	return d.ctx.Err() != nil || d.r.log.count() >= limit
}

// checkEvery is how many calls apart a run that stops at its first anomaly
// checks the invariants of the history recorded so far: what they find in
// part of a history holds of the whole.
const checkEvery = 100

// checkInvariantsSoFar records what the invariants find in the history
// recorded so far (they run again over the whole history at the end).
func (d *driver) checkInvariantsSoFar() {
	for _, f := range d.r.h.Invariants() {
		d.r.log.add(f.Check, "%s", f.Text)
	}
}

// finish stops the faults, proves the writer is not stuck, and reads the
// final state of every znode.
func (d *driver) finish() {
	if d.ctl.rival != nil {
		<-d.ctl.rival.claimed
	}
	if err := d.cl.members.e.WaitServing(); err != nil {
		d.t.Fatalf("torture: %v", err)
	}
	d.quiet = true
	d.cl.members.stop()
	if d.ctl.rival != nil && d.r.log.count() == 0 {
		// A rival claimed at the very end: let the fenced writer hand over.
		d.step()
	}
	if cur := d.ctl.cur; d.r.log.count() == 0 && cur != nil && cur.claimErr == nil && d.waitConnected(cur) {
		d.writeAfterFaults(cur)
	}
	d.readFinalState()
	d.checkStaleMemory()
	d.checkNotifications()
	d.checkNothingInvented()
}

// writeAfterFaults makes g's first write after the faults stopped and
// times it: a writer that cannot write within finalWriteTimeout is stuck.
func (d *driver) writeAfterFaults(g *generation) {
	s := d.nextCheckpoint(g)
	ctx, cancel := context.WithTimeout(d.ctx, finalWriteTimeout)
	start := time.Now()
	res := g.update(ctx, s, 0)
	took := time.Since(start)
	d.r.stats.finalWrite = took
	cancel()
	if res.err != nil || res.fenced || res.conflict {
		d.r.log.add(CheckStuck, "stuck: the first write after the faults stopped failed after %v: %v", took, res.err)
	}
}

// waitConnected waits until g's client holds a session.
func (d *driver) waitConnected(g *generation) bool {
	deadline := time.Now().Add(callTimeout)
	for g.conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			d.r.log.add(CheckStuck, "controller %d: no session %v after the faults stopped", g.id, callTimeout)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// readFinalState reads through the admin session what ZooKeeper holds at
// the end: /migration, /controller_epoch, and every payload znode the
// workload or a foreign write touched, two hundred to a barrier.
func (d *driver) readFinalState() {
	ad := d.r.admin
	ad.migration()
	ad.epoch()
	paths := d.touchedPayloads()
	for len(paths) > 0 {
		batch := paths[:min(len(paths), 200)]
		paths = paths[len(batch):]
		ad.reads(batch, make([]int, len(batch)), batch)
	}
}

// touchedPayloads returns, sorted and each once, the full paths of the
// payload znodes the workload wrote or learned of, and of those a foreign
// write touched.
func (d *driver) touchedPayloads() []string {
	var paths []string
	for _, rel := range d.wl.known() {
		paths = append(paths, p(rel))
	}
	for _, path := range d.r.h.ForeignPaths() {
		if strings.HasPrefix(path, root+znode.TopicsPath) {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	return slices.Compact(paths)
}

// checkStaleMemory guards what the dual-write Client remembers: since
// every op planned from it is conditioned, a wrong memory shows as a
// refusal ZooKeeper should not have needed. A transaction planned from
// what the Client remembered, refused at path P, must be explained by a
// write to P (or above or below it) that may have landed after the
// Client last learned P: by another party (a foreign write, a rival, the
// same controller's own raw batches or an earlier Client), or by a call
// of the Client's own that was in doubt and returned before the Client
// learned P again. The Client's own acknowledged writes, and its writes
// in doubt since it last learned P, explain nothing: it must remember
// the first and forget what the second touched.
func (d *driver) checkStaleMemory() {
	h := d.r.h
	for _, r := range d.r.refusals.all() {
		if !h.ExplainsRefusal(p(r.path), r.since, r.at, r.g.ownCall) {
			d.r.log.add(CheckStaleMemory, "controller %d: a transaction planned from what the Client remembered was refused at %d (%s), with no write to %s that may have landed since the Client learned it at %d%s",
				r.g.id, r.at, r.desc, r.path, r.since, h.Recent(p(r.path), r.at))
		}
	}
}

// checkNotifications reads every change notification ZooKeeper holds and
// checks that each content appears once per landed change: at least as
// often as successful calls reported writing it, at most as often more as
// calls that did not say may have written it. Every reported path is
// distinct.
func (d *driver) checkNotifications() {
	held, ok := d.r.admin.notifications()
	if !ok {
		return
	}
	notes := &d.r.stats.notes
	contents := map[string]bool{}
	for c := range held {
		contents[c] = true
	}
	for c := range notes.landed {
		contents[c] = true
	}
	for c := range contents {
		if n := held[c]; n < notes.landed[c] || n > notes.landed[c]+notes.maybe[c] {
			d.r.log.add(CheckNotification, "notification %s: ZooKeeper holds %d, calls reported %d written and %d in doubt",
				c, n, notes.landed[c], notes.maybe[c])
		}
	}
	sort.Strings(notes.paths)
	for i := 1; i < len(notes.paths); i++ {
		if notes.paths[i] == notes.paths[i-1] {
			d.r.log.add(CheckNotification, "notification %s reported written by two calls", notes.paths[i])
		}
	}
}

// checkNothingInvented walks the tree under the root and reports every
// znode that neither the workload asked for nor a foreign writer wrote.
func (d *driver) checkNothingInvented() {
	tree, err := d.r.admin.walk(root)
	if err != nil {
		d.r.log.add(CheckHarness, "harness: walk the tree: %v", err)
		return
	}
	foreign := map[string]bool{}
	for _, path := range d.r.h.ForeignPaths() {
		foreign[path] = true
	}
	for _, path := range inventedZnodes(tree, d.wl.askedFor(), foreign) {
		d.r.log.add(CheckInvented, "%s exists, and neither the workload nor another party wrote it", path)
	}
}

// report returns the run's figures, with the anomalies found while it
// went on and those the checks of the whole history find.
func (d *driver) report() *Report {
	st := d.r.stats
	r := &Report{Seed: d.cfg.Seed, Ops: int(st.calls.Load()), Recorded: d.r.h.Size(), Faults: d.cl.tally.counts(),
		Conflicts: int(st.conflicts.Load()), Remembered: int(st.remembered.Load()),
		Fenced: st.fenced, Generations: len(d.ctl.gens), Unknown: int(st.unknown.Load()), Reconnects: int(st.reconnects.Load()),
		RollbackSafe: d.ctl.rollbackSafeWriters(), Jumps: int(st.jumps.Load()),
		Syncs: st.syncs.calls, SyncsStopped: st.syncs.stopped, SyncChanges: st.syncs.changes, FinalWrite: st.finalWrite}
	for _, g := range d.ctl.gens {
		r.LostAcks += g.lostAcks + g.w.Stats().LostAcks
	}
	for _, n := range st.notes.landed {
		r.Notifications += n
	}
	r.Anomalies = d.r.log.all()
	for _, f := range d.r.h.Check(d.cfg.CheckTimeout) {
		r.Anomalies = append(r.Anomalies, Anomaly{Check: f.Check, Ops: r.Ops, Text: f.Text})
	}
	return r
}
