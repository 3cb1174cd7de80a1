// Package torture drives migration writers through a realistic migration
// against a three-member ZooKeeper ensemble while injecting the faults a
// production ensemble sees, records every call, and checks the history:
// linearizability of /migration and of every payload znode, versions
// against what ZooKeeper holds, conflicts against the test's own
// conflicting writes, fencing, and that no writer gets stuck.
//
// It is a test helper for this module only.
package torture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Config sizes a run.
type Config struct {
	// Seed drives every random choice of the workload and the faults.
	Seed int64
	// Ops is the least number of library calls to make.
	Ops int
	// MinFaults is the least number of faults to inject; the run goes on
	// past Ops until it has.
	MinFaults int
	// FaultRate is the chance that a fault is injected around a call.
	FaultRate float64
	// KillGap is the least time between a member's restart and the next
	// kill; a restarting JVM takes most of a small machine. Zero means 3s.
	KillGap time.Duration
	// CheckTimeout bounds the linearizability check of each stretch of
	// history.
	CheckTimeout time.Duration
	// Progress, if set, is called now and then with a status line.
	Progress func(string)
}

// Fault kinds, as counted in Report.Faults.
const (
	FaultDropReply        = "drop-reply"         // reply dropped after commit
	FaultDropRequest      = "drop-request"       // request dropped before the server
	FaultCutRequest       = "cut-request"        // connection cut mid-frame
	FaultKillMember       = "kill-member"        // a random member killed (SIGKILL) and restarted
	FaultKillClientMember = "kill-client-member" // the member the writer uses killed and restarted
	FaultExpireSession    = "expire-session"     // the writer's session closed from another connection
	FaultRival            = "rival"              // a rival controller claims leadership
	FaultForeignWrite     = "foreign-write"      // a conflicting write to /migration or a payload znode
	FaultCallerDeadline   = "caller-deadline"    // the caller's context ends mid-call
)

// Report holds a run's figures.
type Report struct {
	Seed int64
	// Ops counts library calls; Recorded the operations in the history.
	Ops      int
	Recorded int
	// Faults counts injected faults by kind.
	Faults map[string]int
	// LostAcks is the writers' Stats().LostAcks: acknowledgements lost and
	// recovered by a reread.
	LostAcks uint64
	// Conflicts counts conflicts detected: ErrConflict from a call, and
	// ops refused as *OpError.
	Conflicts int
	// Fenced counts writers fenced by a rival; Generations the writers.
	Fenced      int
	Generations int
	// Unknown counts calls that ended with ErrOutcomeUnknown.
	Unknown int
	// Reconnects counts clients replaced after ErrStaleSession.
	Reconnects int
	// FinalWrite is how long the first write after the faults stopped took.
	FinalWrite time.Duration
	// Anomalies lists everything found wrong; it must be empty.
	Anomalies []string
	Duration  time.Duration
}

// TotalFaults returns the number of faults injected.
func (r *Report) TotalFaults() int {
	n := 0
	for _, c := range r.Faults {
		n += c
	}
	return n
}

// String formats the figures.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d operations (%d recorded), %d faults", r.Seed, r.Ops, r.Recorded, r.TotalFaults())
	kinds := make([]string, 0, len(r.Faults))
	for k := range r.Faults {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	b.WriteString(" (")
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, r.Faults[k])
	}
	fmt.Fprintf(&b, "), %d lost acks recovered, %d conflicts detected, %d writers (%d fenced), %d outcomes unknown, %d clients replaced after a stale session, first write after the faults %v, %d anomalies, %v",
		r.LostAcks, r.Conflicts, r.Generations, r.Fenced, r.Unknown, r.Reconnects, r.FinalWrite.Round(time.Millisecond), len(r.Anomalies), r.Duration.Round(time.Second))
	return b.String()
}

const (
	root = "/kafka"
	// callTimeout bounds one library call; a call that needs longer is
	// stuck.
	callTimeout = 30 * time.Second
	// maxAttempts bounds how often one call is repeated after
	// ErrOutcomeUnknown before the writer counts as stuck.
	maxAttempts = 4
	// finalWriteTimeout is the time the first write after the faults gets:
	// the writer's backoff tops out at one second, plus a reconnect.
	finalWriteTimeout = 10 * time.Second
	baseControllerID  = 3000
	baseKRaftEpoch    = 5
	foreignController = 4000
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

func (g *generation) client() int { return g.n + 1 }

// payload is what the driver knows of a payload znode.
type payload struct {
	exists  bool
	version int32
	learned int64
}

// driver runs the workload. Only its goroutine uses rng.
type driver struct {
	t     testing.TB
	cfg   Config
	rng   *rand.Rand
	e     *zktest.Ensemble
	admin *zk.Conn
	h     *history
	ctx   context.Context

	gens   []*generation
	cur    *generation
	rival  *generation
	offset int64

	payloads  map[string]*payload
	states    []string // partition state paths that exist
	nextTopic int

	calls      int
	quiet      bool // no more faults
	afterCall  []func()
	finalWrite time.Duration
	conflicts  int
	unknown    int
	reconnects int
	fenced     int

	mu        sync.Mutex
	faults    map[string]int
	anomalies []string
	down      *zktest.Member // the member down, if any
	lastUp    time.Time      // when the last restart finished
	restarts  sync.WaitGroup
}

// Run starts an ensemble, runs the workload with faults and returns the
// report after checking the history. It fails t only when the test harness
// itself fails; the caller judges Report.Anomalies.
func Run(t testing.TB, cfg Config) *Report {
	if cfg.FaultRate == 0 {
		cfg.FaultRate = 0.12
	}
	if cfg.KillGap == 0 {
		cfg.KillGap = 3 * time.Second
	}
	if cfg.CheckTimeout == 0 {
		cfg.CheckTimeout = time.Minute
	}
	started := time.Now()
	e := zktest.StartEnsemble(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &driver{
		t: t, cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), e: e, h: newHistory(), ctx: ctx,
		payloads: map[string]*payload{}, faults: map[string]int{},
	}
	d.admin = e.Connect(t)
	d.setup()
	d.run()
	d.restarts.Wait()
	d.finish()

	r := &Report{Seed: cfg.Seed, Ops: d.calls, Recorded: d.h.size(), Faults: d.faults, Conflicts: d.conflicts,
		Fenced: d.fenced, Generations: len(d.gens), Unknown: d.unknown, Reconnects: d.reconnects}
	for _, g := range d.gens {
		r.LostAcks += g.lostAcks + g.w.Stats().LostAcks
	}
	r.FinalWrite = d.finalWrite
	r.Anomalies = append(d.anomalies, d.h.check(cfg.CheckTimeout)...)
	r.Duration = time.Since(started)
	return r
}

func (d *driver) anomaly(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	if len(d.anomalies) < 100 {
		d.anomalies = append(d.anomalies, msg)
	}
	d.t.Logf("anomaly: %s", msg)
}

func (d *driver) count(kind string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults[kind]++
}

func (d *driver) totalFaults() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.faults {
		n += c
	}
	return n
}

func (d *driver) p(path string) string { return root + path }

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
		if _, err := d.admin.Create(d.p(n.path), n.data, 0, acl); err != nil {
			d.t.Fatalf("torture: setup %s: %v", d.p(n.path), err)
		}
	}
	if _, err := d.admin.Create(barrierPath, nil, 0, acl); err != nil {
		d.t.Fatalf("torture: setup %s: %v", barrierPath, err)
	}
	d.h.setInit(migrationGroup, slots{{}, {Exists: true, Version: 0, Data: "1"}})
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

// initial is the State a generation starts from.
func (g *generation) initial() migrationzk.State {
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	return s
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
	// /controller must name the new controller, unless a newer one
	// already claimed (rivals claim one at a time, so none can).
	_, datas, _, err := d.adminGet(d.p("/controller"))
	if err == nil {
		data := datas[0]
		c, derr := znode.DecodeController(data)
		if derr != nil || c.BrokerID != g.id || c.KRaftControllerEpoch != g.epoch {
			d.anomaly("after claim by %d epoch %d, /controller holds %s (%v)", g.id, g.epoch, data, derr)
		}
	}
}

// run is the workload: claim, GetOrCreate, then batches and checkpoints,
// with faults, until enough calls and faults were made.
func (d *driver) run() {
	d.cur = d.newGeneration()
	d.calls++
	d.claim(d.cur)
	if d.cur.claimErr != nil {
		return
	}
	if !d.getOrCreate(d.cur) {
		return
	}
	d.offset = d.cur.s.KRaftMetadataOffset
	lastProgress := time.Now()
	for d.calls < d.cfg.Ops || d.totalFaults() < d.cfg.MinFaults {
		if d.ctx.Err() != nil || len(d.anomalies) >= 20 {
			return
		}
		if d.cfg.Progress != nil && time.Since(lastProgress) > 10*time.Second {
			lastProgress = time.Now()
			d.cfg.Progress(fmt.Sprintf("%d calls, %d faults, %d writers, %d anomalies", d.calls, d.totalFaults(), len(d.gens), len(d.anomalies)))
		}
		if !d.step() {
			return
		}
	}
}

// work is one library call the driver makes: a checkpoint, or a batch
// ending in one.
type work struct {
	ops []migrationzk.Op
}

// choose picks the next call.
func (d *driver) choose() work {
	if d.rng.Float64() < 0.25 {
		return work{}
	}
	var ops []migrationzk.Op
	if len(d.states) == 0 || d.rng.Float64() < 0.3 {
		ops = append(ops, d.topicOps(fmt.Sprintf("t%06d", d.nextTopic))...)
		d.nextTopic++
	}
	if len(d.states) > 0 && (len(ops) == 0 || d.rng.Float64() < 0.3) {
		n := 1 + d.rng.Intn(3)
		picked := map[string]bool{}
		for i := 0; i < n; i++ {
			path := d.states[d.rng.Intn(len(d.states))]
			if picked[path] {
				continue
			}
			picked[path] = true
			pl := d.payloads[path]
			st := znode.PartitionState{ControllerEpoch: d.cur.epoch, Leader: 1 + int32(d.rng.Intn(3)),
				LeaderEpoch: pl.version + 1, ISR: []int32{1, 2, 3}}
			ops = append(ops, migrationzk.SetData(path, st.Encode(), pl.version))
		}
	}
	return work{ops: ops}
}

// topicOps creates a topic with one partition: the topic, its partitions
// node, the partition and its state.
func (d *driver) topicOps(topic string) []migrationzk.Op {
	base := znode.TopicsPath + "/" + topic
	st := znode.PartitionState{ControllerEpoch: d.cur.epoch, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}}
	return []migrationzk.Op{
		migrationzk.Create(base, []byte(`{"partitions":{"0":[1,2,3]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{},"version":3}`)),
		migrationzk.Create(base+"/partitions", nil),
		migrationzk.Create(base+"/partitions/0", nil),
		migrationzk.Create(znode.PartitionStatePath(topic, 0), st.Encode()),
	}
}

// step makes one call, with or without a fault, and reports whether the
// run can go on.
func (d *driver) step() bool {
	g := d.cur
	wk := d.choose()
	d.offset++
	s := g.s
	s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = d.offset, g.epoch

	var armed []*zktest.Armed
	deadline := time.Duration(0)
	if !d.quiet && d.rng.Float64() < d.cfg.FaultRate {
		armed = d.inject(g, wk)
	}
	if !d.quiet && d.rng.Float64() < 0.04 {
		deadline = time.Duration(1+d.rng.Intn(20)) * time.Millisecond
	}
	ok := d.callUntilSettled(g, s, wk, deadline)
	for _, a := range armed {
		if a.Disarm() {
			continue
		}
		// Matched: it acts when the reply comes, unless the connection
		// died first.
		select {
		case <-a.Fired():
		case <-time.After(2 * time.Second):
		}
	}
	for _, f := range d.afterCall {
		f()
	}
	d.afterCall = nil
	return ok
}

// callUntilSettled makes the call and repeats it, with the same arguments,
// while its outcome is unknown. It reports whether the run can go on.
func (d *driver) callUntilSettled(g *generation, s migrationzk.State, wk work, deadline time.Duration) bool {
	for attempt := 1; ; attempt++ {
		var ctx context.Context
		var cancel context.CancelFunc
		if deadline > 0 && attempt == 1 {
			ctx, cancel = context.WithTimeout(d.ctx, deadline)
		} else {
			ctx, cancel = context.WithTimeout(d.ctx, callTimeout)
		}
		var res outcome
		if wk.ops == nil {
			res = d.update(ctx, g, s)
		} else {
			res = d.apply(ctx, g, s, wk.ops)
		}
		cancel()
		if res.deadline && attempt == 1 && deadline > 0 {
			d.count(FaultCallerDeadline)
		}
		switch {
		case res.retry:
			if attempt >= maxAttempts {
				st := g.w.Stats()
				d.anomaly("stuck: controller %d: %d attempts, last: %v; client state %v on %s, session %x, requests %v, writer attempts %d retries %d; writer log:\n    %v",
					g.id, attempt, res.err, g.conn.State(), g.conn.Server(), g.conn.SessionID(), g.faults.Counts(), st.Attempts, st.Retries, g.log)
				return false
			}
			continue
		case res.fenced:
			for _, o := range wk.ops {
				d.relearn(o.Path())
			}
			return d.takeOver(g, s)
		case res.conflict:
			return d.resync(g, wk)
		case res.err != nil:
			d.anomaly("controller %d: unexpected error: %v", g.id, res.err)
			return d.resync(g, wk)
		}
		return true
	}
}

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
	case errors.Is(err, migrationzk.ErrOutcomeUnknown):
		d.unknown++
		o.retry, o.err = true, err
		o.deadline = ctx.Err() != nil
		d.mend(g, err)
	case errors.Is(err, migrationzk.ErrFenced):
		o.fenced = true
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

// update makes one Update call and records it.
func (d *driver) update(ctx context.Context, g *generation, s migrationzk.State) outcome {
	d.calls++
	data := string(stateData(s))
	call := d.h.now()
	out, err := g.w.Update(ctx, s)
	ret := d.h.now()
	o := d.classify(g, ctx, err)
	conds := []cond{{Slot: slotMigration, Kind: condVersion, Version: s.MigrationZkVersion},
		{Slot: slotEpoch, Kind: condVersion, Version: s.ZkControllerEpochZkVersion}}
	desc := fmt.Sprintf("update by %d offset %d", g.id, s.KRaftMetadataOffset)
	switch {
	case err == nil:
		if out.MigrationZkVersion != s.MigrationZkVersion+1 {
			d.anomaly("%s: version %d from %d", desc, out.MigrationZkVersion, s.MigrationZkVersion)
		}
		d.written(g, out, conds, data, desc, call, ret)
	case o.retry && errors.Is(err, migrationzk.ErrOutcomeUnknown), o.conflict, o.fenced:
		d.maybeWritten(g, o, conds, data, desc, call, ret)
	}
	return o
}

// written records a call that said it wrote /migration, and checks it.
func (d *driver) written(g *generation, out migrationzk.State, conds []cond, data, desc string, call, ret int64) {
	d.h.add(migrationGroup, op{Client: g.client(), Call: call, Return: ret, Step: step{Kind: stepWrite, Conds: conds,
		Effects: []effect{{Slot: slotMigration, Data: data, Version: out.MigrationZkVersion}}, Desc: desc}})
	d.h.addSuccess(success{Path: d.p("/migration"), Version: out.MigrationZkVersion, Learned: g.learned,
		At: span{call, ret}, Client: g.client(), What: desc})
	d.checkMigration(g, out, call, ret)
	g.s, g.learned, g.since = out, ret, call
}

// maybeWritten records a call whose write to /migration may or may not
// have happened.
func (d *driver) maybeWritten(g *generation, o outcome, conds []cond, data, desc string, call, ret int64) {
	end := ret
	if o.retry {
		end = never
	}
	d.h.add(migrationGroup, op{Client: g.client(), Call: call, Return: end, Step: step{Kind: stepMaybe, Conds: conds,
		Effects: []effect{{Slot: slotMigration, Data: data, Version: -1}}, Desc: desc + " (" + short(o.err) + ")"}})
	d.recordConflict(g, o.err, call, ret, desc)
}

// recordConflict records what a *ConflictError says.
func (d *driver) recordConflict(g *generation, err error, call, ret int64, desc string) {
	var ce *migrationzk.ConflictError
	if !errors.As(err, &ce) {
		return
	}
	d.h.addConflict(conflictReport{Path: d.p("/migration"), Since: g.since, At: span{call, ret}, What: desc})
	seen := value{Exists: ce.CurrentVersion >= 0, Version: ce.CurrentVersion}
	if seen.Exists {
		seen.Data = string(ce.CurrentData)
	}
	d.h.add(migrationGroup, op{Client: g.client(), Call: call, Return: ret, Step: step{Kind: stepRead,
		Obs: []obs{{Slot: slotMigration, Val: seen}}, Desc: desc + " conflict report"}})
}

// apply makes one Apply call and records it.
func (d *driver) apply(ctx context.Context, g *generation, s migrationzk.State, ops []migrationzk.Op) outcome {
	d.calls++
	data := string(stateData(s))
	call := d.h.now()
	out, res, err := g.w.Apply(ctx, s, ops...)
	ret := d.h.now()
	o := d.classify(g, ctx, err)
	desc := fmt.Sprintf("apply by %d offset %d (%d ops)", g.id, s.KRaftMetadataOffset, len(ops))
	epochCond := cond{Slot: slotEpoch, Kind: condVersion, Version: s.ZkControllerEpochZkVersion}
	switch {
	case err == nil:
		// The call's own transaction moved /migration by one; when an
		// earlier call's copy of it had landed and left ops to send, by
		// two, from that copy's content.
		from := cond{Slot: slotMigration, Kind: condVersion, Version: out.MigrationZkVersion - 1}
		switch out.MigrationZkVersion - s.MigrationZkVersion {
		case 1:
		case 2:
			from = cond{Slot: slotMigration, Kind: condVersionData, Version: out.MigrationZkVersion - 1, Data: data}
		default:
			d.anomaly("%s: /migration version %d from %d", desc, out.MigrationZkVersion, s.MigrationZkVersion)
		}
		d.written(g, out, []cond{from, epochCond}, data, desc, call, ret)
	case o.retry && errors.Is(err, migrationzk.ErrOutcomeUnknown), o.conflict, o.fenced:
		d.maybeWritten(g, o, []cond{{Slot: slotMigration, Kind: condVersion, Version: s.MigrationZkVersion}, epochCond}, data, desc, call, ret)
	}
	if res == nil && err == nil {
		d.anomaly("%s: no results", desc)
	}
	var reread []string
	var checks []payloadCheck
	for i, r := range res {
		path := d.p(ops[i].Path())
		pc := payloadCond(ops[i])
		opDesc := fmt.Sprintf("%s op %d %v", desc, i, ops[i])
		eff := effect{Slot: 0, Create: isCreate(ops[i]), Data: string(ops[i].Data()), Version: -1}
		var oe *migrationzk.OpError
		switch {
		case r.Err == nil:
			eff.Version = r.Version
			d.h.add(path, op{Client: g.client(), Call: call, Return: ret, Step: step{Kind: stepWrite, Conds: []cond{pc},
				Effects: []effect{eff}, Desc: opDesc}})
			learned := int64(-1)
			if pl := d.payloads[ops[i].Path()]; pl != nil {
				learned = pl.learned
			}
			d.h.addSuccess(success{Path: path, Version: r.Version, Learned: learned, At: span{call, ret}, Client: g.client(), What: opDesc})
			d.learn(ops[i].Path(), true, r.Version, ret)
			checks = append(checks, payloadCheck{path, ops[i].Data(), r.Version, opDesc})
		case errors.As(r.Err, &oe):
			d.conflicts++
			d.h.add(path, op{Client: g.client(), Call: call, Return: ret, Step: step{Kind: stepRefused, Conds: []cond{pc}, Desc: opDesc + " refused"}})
			since := int64(0)
			if pl := d.payloads[ops[i].Path()]; pl != nil {
				since = pl.learned
			}
			d.h.addConflict(conflictReport{Path: path, Since: since, At: span{call, ret}, What: opDesc + ": " + oe.Err.Error()})
			reread = append(reread, ops[i].Path())
		case errors.Is(r.Err, migrationzk.ErrNotApplied):
			if err == nil {
				d.anomaly("%s: op %d not applied in a batch that succeeded", desc, i)
			}
		default:
			end := ret
			if errors.Is(r.Err, migrationzk.ErrOutcomeUnknown) && o.retry {
				end = never
			}
			d.h.add(path, op{Client: g.client(), Call: call, Return: end, Step: step{Kind: stepMaybe, Conds: []cond{pc},
				Effects: []effect{eff}, Desc: opDesc + " (" + short(r.Err) + ")"}})
		}
	}
	d.checkPayloads(checks, call, ret)
	for _, p := range reread {
		d.relearn(p)
	}
	return o
}

func isCreate(o migrationzk.Op) bool { return strings.HasPrefix(o.String(), "create ") }

// payloadCond is the condition an op puts on its own znode.
func payloadCond(o migrationzk.Op) cond {
	switch {
	case isCreate(o):
		return cond{Kind: condAbsent}
	case o.Version() >= 0:
		return cond{Kind: condVersion, Version: o.Version()}
	}
	return cond{Kind: condExists}
}

func stateData(s migrationzk.State) []byte {
	return znode.Migration{KRaftMetadataOffset: s.KRaftMetadataOffset, KRaftControllerID: s.KRaftControllerID,
		KRaftMetadataEpoch: s.KRaftMetadataEpoch, KRaftControllerEpoch: s.KRaftControllerEpoch}.Encode()
}

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

// learn records what the driver knows of a payload znode.
func (d *driver) learn(path string, exists bool, version int32, at int64) {
	pl := d.payloads[path]
	if pl == nil {
		pl = &payload{}
		d.payloads[path] = pl
	}
	isState := strings.HasSuffix(path, "/state")
	if exists && !pl.exists && isState {
		d.states = append(d.states, path)
	}
	pl.exists, pl.version, pl.learned = exists, version, at
}

// relearn reads a payload znode through the admin session and records it.
func (d *driver) relearn(rel string) {
	path := d.p(rel)
	v, ok := d.adminRead(path, 0, path)
	if !ok {
		return
	}
	d.learn(rel, v.Exists, v.Version, d.h.now())
}

// resync is what the driver does after a conflict: read /migration again
// (as a controller reloads its state), and reread the batch's znodes.
func (d *driver) resync(g *generation, wk work) bool {
	for _, o := range wk.ops {
		d.relearn(o.Path())
	}
	return d.getOrCreate(g)
}

// getOrCreate calls GetOrCreate until it settles and records it.
func (d *driver) getOrCreate(g *generation) bool {
	in := g.initial()
	in.ZkControllerEpoch, in.ZkControllerEpochZkVersion = g.s.ZkControllerEpoch, g.s.ZkControllerEpochZkVersion
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		d.calls++
		ctx, cancel := context.WithTimeout(d.ctx, callTimeout)
		call := d.h.now()
		s, err := g.w.GetOrCreate(ctx, in)
		ret := d.h.now()
		cancel()
		if errors.Is(err, migrationzk.ErrOutcomeUnknown) {
			d.unknown++
			d.mend(g, err)
			data := string(stateData(in))
			d.h.add(migrationGroup, op{Client: g.client(), Call: call, Return: never, Step: step{Kind: stepMaybe,
				Conds: []cond{{Slot: slotMigration, Kind: condAbsent}}, Effects: []effect{{Slot: slotMigration, Create: true, Data: data, Version: -1}},
				Desc: "create /migration (unknown)"}})
			continue
		}
		if err != nil {
			d.anomaly("controller %d: GetOrCreate: %v", g.id, err)
			return false
		}
		data := string(stateData(s))
		d.h.add(migrationGroup, op{Client: g.client(), Call: call, Return: ret, Step: step{Kind: stepReadOrCreate,
			Conds:   []cond{{Slot: slotMigration, Kind: condAbsent}},
			Effects: []effect{{Slot: slotMigration, Create: true, Data: data, Version: 0}},
			Obs:     []obs{{Slot: slotMigration, Val: value{Exists: true, Version: s.MigrationZkVersion, Data: data}}},
			Desc:    fmt.Sprintf("GetOrCreate by %d", g.id)}})
		d.checkMigration(g, s, call, ret)
		g.s, g.learned, g.since = s, ret, call
		return true
	}
	d.anomaly("stuck: controller %d: GetOrCreate outcome unknown %d times", g.id, maxAttempts)
	return false
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
	// Its successes must all have linearized before the rival's claim
	// returned; the model checks it through the fence, and so does this.
	d.h.mu.Lock()
	for _, sc := range d.h.successes {
		if sc.Client == old.client() && sc.At.Call > rival.claimEnd {
			d.anomaly("controller %d: %s succeeded after the rival's claim", old.id, sc.What)
		}
	}
	d.h.mu.Unlock()
	old.conn.Close()
	d.rival = nil
	d.cur = rival
	return d.getOrCreate(rival)
}

// barrierPath is a znode outside the root that the admin session writes to
// before it reads: a write is applied by the admin's server in order after
// every write committed before it, so the reads that follow on the same
// session see them all. (A sync does not give that on the leader, which
// answers it at once while it may not have applied the last commit.)
const barrierPath = "/torture-barrier"

// adminGet reads znodes through the admin session after a write barrier,
// retrying over lost connections. A missing znode reads as nil data and a
// nil Stat. It returns the time the barrier was sent.
func (d *driver) adminGet(paths ...string) (int64, [][]byte, []*zk.Stat, error) {
	var lastErr error
	for i := 0; i < 500; i++ {
		if i > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		call := d.h.now()
		if _, err := d.admin.Set(barrierPath, nil, -1); err != nil {
			lastErr = err
			continue
		}
		// The reads go out together, pipelined on the one connection.
		datas := make([][]byte, len(paths))
		stats := make([]*zk.Stat, len(paths))
		errs := make([]error, len(paths))
		var wg sync.WaitGroup
		for j, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				data, st, err := d.admin.Get(p)
				if err == nil {
					datas[j], stats[j] = data, st
				} else if !errors.Is(err, zk.ErrNoNode) {
					errs[j] = err
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			lastErr = err
			continue
		}
		return call, datas, stats, nil
	}
	d.anomaly("harness: admin read of %v failed: %v", paths, lastErr)
	return 0, nil, nil, lastErr
}

// adminRead reads path through the admin session and records the read in
// group at slot.
func (d *driver) adminRead(path string, slot int, group string) (value, bool) {
	vs, ok := d.adminReads([]string{path}, []int{slot}, []string{group})
	if !ok {
		return value{}, false
	}
	return vs[0], true
}

// adminReads reads paths after one barrier and records each read.
func (d *driver) adminReads(paths []string, slotsOf []int, groups []string) ([]value, bool) {
	call, datas, stats, err := d.adminGet(paths...)
	ret := d.h.now()
	if err != nil {
		return nil, false
	}
	vs := make([]value, len(paths))
	for i := range paths {
		if stats[i] != nil {
			vs[i] = value{Exists: true, Version: stats[i].Version, Data: string(datas[i])}
		}
		d.h.add(groups[i], op{Client: 0, Call: call, Return: ret, Step: step{Kind: stepRead,
			Obs: []obs{{Slot: slotsOf[i], Val: vs[i]}}, Desc: "admin read " + paths[i]}})
	}
	return vs, true
}

// checkMigration reads /migration and /controller_epoch right after a call
// returned s, and compares.
func (d *driver) checkMigration(g *generation, s migrationzk.State, call, ret int64) {
	vs, ok := d.adminReads([]string{d.p("/migration"), d.p("/controller_epoch")}, []int{slotMigration, slotEpoch}, []string{migrationGroup, migrationGroup})
	if !ok {
		return
	}
	v := vs[0]
	if d.h.foreignDuring(d.p("/migration"), call, ret) {
		return // a foreign write during the call may have moved it since
	}
	want := string(stateData(s))
	switch {
	case !v.Exists || v.Data != want:
		d.anomaly("lost write: controller %d was told /migration holds %s at version %d; ZooKeeper holds %v", g.id, want, s.MigrationZkVersion, v)
	case v.Version != s.MigrationZkVersion:
		d.anomaly("version mismatch: controller %d was told /migration is at version %d; ZooKeeper holds %v", g.id, s.MigrationZkVersion, v)
	}
}

// payloadCheck is what a call said a payload znode holds.
type payloadCheck struct {
	path    string
	data    []byte
	version int32
	desc    string
}

// checkPayloads reads payload znodes right after a call that returned at
// ret said they hold the given data at the given versions.
func (d *driver) checkPayloads(checks []payloadCheck, call, ret int64) {
	if len(checks) == 0 {
		return
	}
	paths := make([]string, len(checks))
	slotsOf := make([]int, len(checks))
	for i, c := range checks {
		paths[i] = c.path
	}
	vs, ok := d.adminReads(paths, slotsOf, paths)
	if !ok {
		return
	}
	for i, c := range checks {
		v := vs[i]
		if d.h.foreignDuring(c.path, call, ret) {
			continue
		}
		switch {
		case !v.Exists || v.Data != string(c.data):
			d.anomaly("lost write: %s: ZooKeeper holds %v", c.desc, v)
		case v.Version != c.version:
			d.anomaly("version mismatch: %s reported version %d; ZooKeeper holds %v", c.desc, c.version, v)
		}
	}
}

// finish stops the faults, proves the writer is not stuck, and reads the
// final state of every znode.
func (d *driver) finish() {
	if d.rival != nil {
		<-d.rival.claimed
	}
	if err := d.e.WaitServing(); err != nil {
		d.t.Fatalf("torture: %v", err)
	}
	d.quiet = true
	if d.rival != nil && len(d.anomalies) == 0 {
		// A rival claimed at the very end: let the fenced writer hand over.
		d.step()
	}
	if len(d.anomalies) == 0 && d.cur != nil && d.cur.claimErr == nil && d.waitConnected(d.cur) {
		g := d.cur
		s := g.s
		d.offset++
		s.KRaftControllerID, s.KRaftControllerEpoch = g.id, g.epoch
		s.KRaftMetadataOffset, s.KRaftMetadataEpoch = d.offset, g.epoch
		ctx, cancel := context.WithTimeout(d.ctx, finalWriteTimeout)
		start := time.Now()
		res := d.update(ctx, g, s)
		d.finalWrite = time.Since(start)
		cancel()
		if res.err != nil || res.fenced || res.conflict {
			d.anomaly("stuck: the first write after the faults stopped failed after %v: %v", d.finalWrite, res.err)
		}
	}
	d.adminRead(d.p("/migration"), slotMigration, migrationGroup)
	d.adminRead(d.p("/controller_epoch"), slotEpoch, migrationGroup)
	paths := make([]string, 0, len(d.payloads))
	for p := range d.payloads {
		paths = append(paths, p)
	}
	d.h.mu.Lock()
	for p := range d.h.foreign {
		if strings.HasPrefix(p, root+znode.TopicsPath) {
			paths = append(paths, strings.TrimPrefix(p, root))
		}
	}
	d.h.mu.Unlock()
	sort.Strings(paths)
	var batch []string
	for i, p := range paths {
		if i > 0 && paths[i-1] == p {
			continue
		}
		batch = append(batch, d.p(p))
		if len(batch) == 200 {
			d.adminReads(batch, make([]int, len(batch)), batch)
			batch = nil
		}
	}
	if len(batch) > 0 {
		d.adminReads(batch, make([]int, len(batch)), batch)
	}
}

// waitConnected waits until g's client holds a session.
func (d *driver) waitConnected(g *generation) bool {
	deadline := time.Now().Add(callTimeout)
	for g.conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			d.anomaly("controller %d: no session %v after the faults stopped", g.id, callTimeout)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
