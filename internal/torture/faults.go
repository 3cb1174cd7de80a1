package torture

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// fault is one kind of fault injected around a call, as etcd's
// robustness suite injects its failpoints: it holds what it needs of its
// own, and acts through the cluster on the coming call.
type fault interface {
	// name is the kind, as counted in Report.Faults.
	name() string
	// available reports whether the fault can be injected now, around
	// the coming call c (a member can be killed, no rival is waiting to
	// take over, the call is of the kind the fault disturbs).
	available(cl *cluster, c coming) bool
	// inject sets the fault up around the coming call c, at once, at a
	// random moment during the call, or at the exact moment a request of
	// the call reaches the server or its reply comes back, and returns
	// the faults it armed on the caller's dialer.
	inject(cl *cluster, c coming) []*zktest.Armed
}

// coming is the call a fault is injected around: g's call making wk (to
// which a fault may add ops, a topic the workload creates) and writing
// s, in flight as call.
type coming struct {
	g    *generation
	wk   *work
	s    migrationzk.State
	call *call
	wl   *workload
}

// withTopic adds to the coming call the ops that create the workload's
// next topic.
func (c coming) withTopic() {
	c.wk.ops = append(c.wk.ops, c.wl.newTopic(c.g.epoch)...)
}

// cluster is what a fault acts through, and all it knows of the run: the
// seeded generator, the ensemble's members, the admin session and the
// other parties that write through it, the KRaft controllers, the tally
// of faults, the anomalies found, and the count of library calls.
type cluster struct {
	ctx     context.Context
	rng     *rand.Rand
	members *members
	admin   *admin
	others  *others
	ctl     *controllers
	tally   *tally
	log     *anomalies
	calls   *atomic.Int64
}

// noRival reports whether no rival is waiting to take over: a fault that
// brings one in can act.
func (cl *cluster) noRival() bool { return cl.ctl.rival == nil }

// callWrite matches the coming call's write: every transaction holds
// /migration.
func callWrite() zktest.Fault {
	return zktest.Fault{Op: zktest.OpMulti, Path: p("/migration")}
}

// netFaultKinds maps the dialer's actions to the fault kinds that act on
// one request or reply.
var netFaultKinds = map[zktest.Action]string{
	zktest.DropReply:   FaultDropReply,
	zktest.DropRequest: FaultDropRequest,
	zktest.CutRequest:  FaultCutRequest,
}

// arm arms f on g's dialer; when it fires, it is counted by its action's
// kind before f's own Then runs.
func (cl *cluster) arm(g *generation, f zktest.Fault) *zktest.Armed {
	kind := netFaultKinds[f.Action]
	then := f.Then
	f.Then = func() {
		cl.tally.count(kind)
		if then != nil {
			then()
		}
	}
	return g.faults.Arm(f)
}

// randomNetAction picks a reply dropped, a request dropped or a request
// cut.
func (cl *cluster) randomNetAction() zktest.Action {
	return []zktest.Action{zktest.DropReply, zktest.DropRequest, zktest.CutRequest}[cl.rng.Intn(3)]
}

// randomDrop picks a reply dropped or a request dropped.
func (cl *cluster) randomDrop() zktest.Action {
	return []zktest.Action{zktest.DropReply, zktest.DropRequest}[cl.rng.Intn(2)]
}

// weightedFault is a fault with its relative chance of being drawn.
type weightedFault struct {
	fault
	weight int
}

// faultTable lists every fault drawn around a call, with its weight.
func faultTable() []weightedFault {
	return []weightedFault{
		{netFault{FaultDropReply, zktest.DropReply}, 6},
		{netFault{FaultDropRequest, zktest.DropRequest}, 4},
		{netFault{FaultCutRequest, zktest.CutRequest}, 4},
		{killMember{}, 2},
		{killClientMember{}, 2},
		{expireSession{}, 3},
		{rivalClaims{}, 2},
		{foreignWrite{}, 3},
		{foreignDelta{}, 6},
		{abaWrite{}, 3},
		{tenureEnds{}, 2},
		{recreateInDoubt{}, 5},
		{claimRace{}, 1},
		{brokerWins{}, 2},
		{claimTenureEnds{}, 1},
		{claimTwin{}, 1},
		{imitateInDoubt{}, 3},
		{isolateLeader{}, 2},
		{clientMinority{}, 2},
		{epochBoundary{}, 1},
		{loserArrives{}, 2},
		{resumes{}, 1},
		{deadlineInDoubt{}, 2},
		{reloadInDoubt{}, 4},
		{notificationInDoubt{}, 6},
	}
}

// inject sets up one fault, drawn among those available, around the
// coming call c, and returns the faults armed on its caller's dialer.
func (d *driver) inject(c coming) []*zktest.Armed {
	f := d.pickFault(c)
	d.traceEvent("fault " + f.name())
	return f.inject(d.cl, c)
}

// pickFault draws, by weight, one of the faults available now: while
// the run is covering (see Config.Cover), one of the kinds it still
// lacks, if one is available.
func (d *driver) pickFault(c coming) fault {
	open, total := d.openFaults(c, d.covering())
	if total == 0 {
		open, total = d.openFaults(c, false)
	}
	names := make([]string, len(open))
	for i, f := range open {
		names[i] = f.name()
	}
	d.traceEnv("open " + strings.Join(names, ","))
	n := d.rng.Intn(total)
	for _, f := range open {
		if n < f.weight {
			return f.fault
		}
		n -= f.weight
	}
	return open[0].fault
}

// openFaults returns the faults available now, with their total weight;
// only the kinds of Config.Cover not injected yet when lacking is set.
func (d *driver) openFaults(c coming, lacking bool) ([]weightedFault, int) {
	missing := d.cl.tally.uncovered()
	var open []weightedFault
	total := 0
	for _, f := range d.faults {
		if lacking && !slices.Contains(missing, f.name()) {
			continue
		}
		if f.available(d.cl, c) {
			open = append(open, f)
			total += f.weight
		}
	}
	return open, total
}

// covering reports whether the run is past its Ops, within twice as many,
// and still lacks a kind of Config.Cover.
func (d *driver) covering() bool {
	calls := int(d.cl.calls.Load())
	return calls >= d.cfg.Ops && calls < 2*d.cfg.Ops && len(d.cl.tally.uncovered()) > 0
}

// always is the availability of a fault that can act around any call.
type always struct{}

func (always) available(*cluster, coming) bool { return true }

// whenNoRival is the availability of a fault that brings in a rival: only
// while none is waiting to take over.
type whenNoRival struct{}

func (whenNoRival) available(cl *cluster, _ coming) bool { return cl.noRival() }
