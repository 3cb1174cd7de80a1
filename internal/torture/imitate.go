package torture

import (
	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

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

// injectImitate has another party imitate the call's transaction while it
// is in doubt: when its request is dropped (so that no copy of it lands
// before the resend), the party writes what the transaction would have
// written, in separate writes, one of three ways (imitateCreates,
// imitateStates, imitateABA). The Writer must not take any of them for
// its own transaction. A batch with nothing to imitate gets a topic to
// create.
func (d *driver) injectImitate(g *generation, wk *work, s migrationzk.State) []*zktest.Armed {
	if wk.vocab != nil || wk.sync != nil {
		// Their ops are the dual-write client's: nothing here to imitate
		// them with. (A checkpoint alone imitated once is the very write
		// no reader can tell apart; it gets a topic to create.)
		return nil
	}
	how := d.rng.Intn(imitations)
	if how == imitateStates && len(setOps(*wk)) == 0 {
		how = imitateABA
	}
	if len(createOps(*wk)) == 0 && len(setOps(*wk)) == 0 {
		wk.ops = append(wk.ops, d.newTopic(g.epoch)...)
	}
	creates, sets, data := createOps(*wk), setOps(*wk), stateData(s)
	f := d.callWrite()
	f.Action = zktest.DropRequest
	f.Then = func() {
		switch how {
		case imitateCreates:
			for _, o := range creates {
				d.foreignCreate(FaultImitate, d.p(o.Path()), o.Data())
			}
			d.foreignSet(FaultImitate, d.p("/migration"), history.MigrationGroup, history.SlotMigration, data)
		case imitateStates:
			for _, o := range sets {
				d.foreignSetAt(FaultImitate, d.p(o.Path()), o.Data(), o.Version())
			}
		default:
			for _, o := range append(creates, sets...) {
				path := d.p(o.Path())
				if o.Kind() == migrationzk.OpCreate {
					d.foreignCreate(FaultImitate, path, o.Data())
				}
				if d.foreignDelete(FaultImitate, path) {
					d.foreignCreate(FaultImitate, path, o.Data())
				}
			}
		}
	}
	if wk.delta != nil {
		// A delta's ops are the dual-write Client's, and may be its
		// checkpoint alone when it finds every state held already: a
		// checkpoint alone imitated once is the very write no reader can
		// tell apart. Drawn as above, so that the run's choices stay
		// as they were, but not armed.
		return nil
	}
	return []*zktest.Armed{d.arm(g, f)}
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

// foreignSetAt writes data to path if at version, as another party would.
func (d *driver) foreignSetAt(kind, path string, data []byte, version int32) bool {
	return landed(d.foreign(kind, path, path, 0, history.Cond{Kind: history.CondVersion, Version: version}, history.Effect{Data: string(data)},
		func() (int32, error) { return setData(d.admin, path, data, version) }))
}
