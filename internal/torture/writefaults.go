package torture

import (
	"math/rand"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// foreignWrite writes in the way of the coming call: at once, to a znode
// the call is about to write, or, when the call's transaction reaches the
// server (its reply then dropped), to /migration.
type foreignWrite struct{ always }

func (foreignWrite) name() string { return FaultForeignWrite }

func (f foreignWrite) inject(cl *cluster, c coming) []*zktest.Armed {
	rng := rand.New(rand.NewSource(cl.rng.Int63()))
	if cl.rng.Float64() < 0.6 {
		f.inTheWay(cl, rng, c)
		return nil
	}
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = func() { cl.others.staleCheckpoint(FaultForeignWrite, c.g) }
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// inTheWay writes what the coming call is about to write: a partition
// state its delta changes, the topic it is about to create, a partition
// state it is about to update, or /migration.
func (foreignWrite) inTheWay(cl *cluster, rng *rand.Rand, c coming) {
	wk := c.wk
	r := rng.Float64()
	switch {
	case len(wk.delta) > 0 && r < 0.8:
		cl.others.deltaWrite(rng, c.g, wk.delta)
	case r < 0.3 && len(wk.ops) > 0 && isCreate(wk.ops[0]):
		cl.others.create(FaultForeignWrite, p(wk.ops[0].Path()), []byte("foreign"))
	case r < 0.6 && len(wk.ops) > 0:
		o := wk.ops[rng.Intn(len(wk.ops))]
		if isCreate(o) {
			cl.others.staleCheckpoint(FaultForeignWrite, c.g)
			return
		}
		cl.others.newState(FaultForeignWrite, p(o.Path()), c.g)
	default:
		cl.others.staleCheckpoint(FaultForeignWrite, c.g)
	}
}

// foreignDelta writes, before a delta, to a partition state it changes
// (others.deltaWrite); other calls it leaves alone.
type foreignDelta struct{ always }

func (foreignDelta) name() string { return FaultForeignDelta }

func (foreignDelta) inject(cl *cluster, c coming) []*zktest.Armed {
	if len(c.wk.delta) > 0 {
		cl.others.deltaWrite(rand.New(rand.NewSource(cl.rng.Int63())), c.g, c.wk.delta)
	}
	return nil
}

// abaWrite writes our exact bytes in the way of the coming call, as
// another party would: to /migration, right after the call's transaction
// committed (its reply then dropped), so that the version moves by two
// with our content; or before the transaction reached the server (then
// dropped): once when the call is a batch, whose ops then show that the
// write is not ours, twice for a checkpoint alone, whose version then
// moves by two. Or to a payload znode the batch sets, after the commit.
type abaWrite struct{ always }

func (abaWrite) name() string { return FaultABAWrite }

func (abaWrite) inject(cl *cluster, c coming) []*zktest.Armed {
	w := callWrite()
	w.Action = zktest.DropReply
	times := 1
	if cl.rng.Float64() < 0.5 {
		w.Action = zktest.DropRequest
		if len(c.wk.ops) == 0 {
			times = 2
		}
	}
	path, group, slot, data := p("/migration"), history.MigrationGroup, history.SlotMigration, stateData(c.s)
	if sets := setOps(*c.wk); len(sets) > 0 && cl.rng.Float64() < 0.3 {
		o := sets[cl.rng.Intn(len(sets))]
		w.Action = zktest.DropReply
		path, group, slot, data, times = p(o.Path()), p(o.Path()), 0, o.Data(), 1
	}
	w.Then = func() {
		for i := 0; i < times; i++ {
			cl.others.set(FaultABAWrite, path, group, slot, data)
		}
	}
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// recreateInDoubt, while the outcome of the coming call's batch is in
// doubt (its reply dropped after the commit, and most of the time the
// call then ended by its caller, so that the next call judges it), has
// another party delete a partition state the batch created and create it
// again with the same bytes, rewrite it with the same bytes, or delete
// it; rewrite a partition state the batch set with the same bytes; or
// create again, with the same bytes, a topic the batch deleted. A batch
// with none of these ops gets a topic to create.
type recreateInDoubt struct{ always }

func (recreateInDoubt) name() string { return FaultRecreate }

func (recreateInDoubt) inject(cl *cluster, c coming) []*zktest.Armed {
	targets := recreateTargets(*c.wk)
	if len(targets) == 0 {
		c.withTopic()
		targets = recreateTargets(*c.wk)
	}
	target := targets[cl.rng.Intn(len(targets))]
	path := p(target.Path())
	cancel, how := cl.rng.Float64() < 0.7, cl.rng.Intn(3)
	data := target.Data()
	if isDelete(target) {
		data = topicData
	}
	w := callWrite()
	w.Action = zktest.DropReply
	w.Then = func() {
		if cancel {
			c.call.cancel()
		}
		switch {
		case isDelete(target):
			cl.others.create(FaultRecreate, path, data)
		case how == 0 || !isCreate(target):
			cl.others.set(FaultRecreate, path, path, 0, data)
		case cl.others.delete(FaultRecreate, path) && how == 1:
			cl.others.create(FaultRecreate, path, data)
		}
	}
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// recreateTargets lists the ops of wk that recreateInDoubt can act on:
// the creates and sets of partition states, and the deletes of topic
// znodes.
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

// Ways a foreign writer imitates a transaction in doubt.
const (
	// imitateCreates creates the znodes the transaction creates, with its
	// bytes, then writes its /migration bytes.
	imitateCreates = iota
	// imitateStates writes the partition states it sets, with its bytes,
	// at the version it would have produced.
	imitateStates
	// imitateABA deletes and creates again the znodes it creates or sets,
	// with its bytes: czxid and version start over.
	imitateABA
	imitations
)

// imitateInDoubt has another party imitate the coming call's transaction
// while it is in doubt: when its request is dropped (so that no copy of
// it lands before the resend), the party writes what the transaction
// would have written, in separate writes, one of three ways
// (imitateCreates, imitateStates, imitateABA). The Writer must not take
// any of them for its own transaction. A batch with nothing to imitate
// gets a topic to create.
type imitateInDoubt struct{ always }

func (imitateInDoubt) name() string { return FaultImitate }

func (f imitateInDoubt) inject(cl *cluster, c coming) []*zktest.Armed {
	wk := c.wk
	if wk.vocab != nil || wk.sync != nil {
		// Their ops are the dual-write client's: nothing here to imitate
		// them with. (A checkpoint alone imitated once is the very write
		// no reader can tell apart; it gets a topic to create.)
		return nil
	}
	how := cl.rng.Intn(imitations)
	if how == imitateStates && len(setOps(*wk)) == 0 {
		how = imitateABA
	}
	if len(createOps(*wk)) == 0 && len(setOps(*wk)) == 0 {
		c.withTopic()
	}
	creates, sets, data := createOps(*wk), setOps(*wk), stateData(c.s)
	w := callWrite()
	w.Action = zktest.DropRequest
	w.Then = func() { f.imitate(cl.others, how, creates, sets, data) }
	if wk.delta != nil {
		// A delta's ops are the dual-write Client's, and may be its
		// checkpoint alone when it finds every state held already: a
		// checkpoint alone imitated once is the very write no reader can
		// tell apart. Drawn as above, so that the run's choices stay
		// as they were, but not armed.
		return nil
	}
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// imitate writes, as others, what a transaction of creates and sets that
// writes data to /migration would have written, the way how says.
func (imitateInDoubt) imitate(o *others, how int, creates, sets []migrationzk.Op, data []byte) {
	switch how {
	case imitateCreates:
		for _, op := range creates {
			o.create(FaultImitate, p(op.Path()), op.Data())
		}
		o.set(FaultImitate, p("/migration"), history.MigrationGroup, history.SlotMigration, data)
	case imitateStates:
		for _, op := range sets {
			o.setAt(FaultImitate, p(op.Path()), op.Data(), op.Version())
		}
	default:
		for _, op := range append(creates, sets...) {
			path := p(op.Path())
			if op.Kind() == migrationzk.OpCreate {
				o.create(FaultImitate, path, op.Data())
			}
			if o.delete(FaultImitate, path) {
				o.create(FaultImitate, path, op.Data())
			}
		}
	}
}

// imitateCreate has another party imitate the coming call's create of
// /migration, GetOrCreate's, while it is in doubt: when its request is
// dropped (so that the create lands only with the resend, if at all), the
// party creates /migration with other bytes, another controller's
// checkpoint, then sets the create's own bytes, at version 1. A create
// is ours only at version 0, whatever its bytes: the Writer must find
// /migration another's and read it, not report it created.
type imitateCreate struct{ always }

func (imitateCreate) name() string { return FaultImitateCreate }

func (imitateCreate) inject(cl *cluster, c coming) []*zktest.Armed {
	path, ours := p("/migration"), stateData(c.s)
	other := znode.Migration{KRaftMetadataOffset: c.s.KRaftMetadataOffset, KRaftControllerID: foreignController,
		KRaftMetadataEpoch: c.g.epoch - 1, KRaftControllerEpoch: c.g.epoch - 1}.Encode()
	w := zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpCreate, Path: path, Then: func() {
		if cl.others.createIn(FaultImitateCreate, path, history.MigrationGroup, history.SlotMigration, other) {
			cl.others.set(FaultImitateCreate, path, history.MigrationGroup, history.SlotMigration, ours)
		}
	}}
	return []*zktest.Armed{cl.arm(c.g, w)}
}

// createOps returns the ops of wk that create a znode at a known path.
func createOps(wk work) []migrationzk.Op {
	var creates []migrationzk.Op
	for _, o := range wk.ops {
		if o.Kind() == migrationzk.OpCreate && !o.Sequential() {
			creates = append(creates, o)
		}
	}
	return creates
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
