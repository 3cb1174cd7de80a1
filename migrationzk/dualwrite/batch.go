package dualwrite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Rounds a batch may take: of reads while it plans (a topic's delete needs
// its partitions, then their states), and of attempts when another writer
// changes a znode between the read and the write.
const (
	maxReadRounds  = 8
	maxApplyRounds = 8
	// maxMendRounds is how many refused rounds that relied on what the
	// Client remembers do not count toward maxApplyRounds: each forgets
	// what it touched, so the next reads it.
	maxMendRounds = 8
)

// change plans one change into v for the checkpoint s; it reports false
// when a read it needs is missing (v then asks for it).
type change func(v *view, s migrationzk.State) bool

// Batch gathers the changes of one KRaft delta, to be applied by Apply in
// one fenced transaction (more when the size limit splits it) that moves
// the checkpoint. Its methods record a change and return the Batch; each
// method's doc states what its change writes and refuses, and the Client
// method of the same name applies that change alone. An invalid change
// makes Apply fail without writing anything. A Batch is not safe for
// concurrent use.
type Batch struct {
	c       *Client
	changes []change
	err     error
	// overwrite holds paths whose undecodable data the batch may write
	// over.
	overwrite map[string]bool
	// keepHeld makes a batch that changes nothing write no checkpoint
	// when /migration holds it already (Sync).
	keepHeld bool
	// expectedOps is about how many ops the changes may plan, and
	// expectedPaths at how many paths outside the partitions planned by
	// id (createdPartitions), for planning to allocate its room once.
	expectedOps, expectedPaths int
	// synced is set once the call synced for its reads.
	synced bool
}

// Batch returns an empty Batch.
func (c *Client) Batch() *Batch { return &Batch{c: c} }

// add records ch, or the first invalid change's error.
func (b *Batch) add(ch change, err error) *Batch {
	if err != nil && b.err == nil {
		b.err = err
	}
	if err == nil {
		b.changes = append(b.changes, ch)
	}
	return b
}

// Apply plans the batch's changes from what the Client remembers of its
// tenure and, for what it does not, from what it reads after one sync,
// and writes what differs with Writer.ApplyAtomic, checkpoint s last,
// each op conditioned on the version planning knew: SetData at it, a
// create where the znode was seen missing, a delete at it. A batch that
// changes nothing writes the checkpoint alone. When ZooKeeper refuses the
// transaction because a znode is not as planned (another writer changed
// it, or what was remembered is out of date), Apply forgets everything
// the transaction touched, reads it again and tries anew; rounds that
// relied on what was remembered (up to 8 of them) do not count toward
// the rounds another writer may cost. A Batch is applied by one call at a
// time. The results are those of the last ApplyAtomic; the
// State is what ZooKeeper holds, as migrationzk.Writer.Apply documents.
func (b *Batch) Apply(ctx context.Context, s migrationzk.State) (migrationzk.State, []migrationzk.OpResult, error) {
	if b.err != nil {
		return s, nil, b.err
	}
	if b.c == nil {
		return s, nil, invalidf("a Batch not made by Client.Batch")
	}
	b.c.enter(s)
	defer b.c.leave()
	b.synced = false
	v := b.newView()
	for round, mended := 0, 0; ; {
		ops, err := b.plan(ctx, v, s)
		if err != nil {
			return s, nil, err
		}
		if len(ops) == 0 {
			st, err := b.checkpoint(ctx, s)
			return st, nil, err
		}
		st, res, err := b.c.w.ApplyAtomic(ctx, s, ops...)
		b.c.mem.wrote(res, v.targets)
		b.c.report(TraceEvent{Kind: TraceTransaction, Ops: ops, Results: res, Err: err, Remembered: v.usedMemory})
		if v.usedMemory && mended < maxMendRounds {
			mended++
		} else {
			round++
		}
		var refused *migrationzk.OpError
		if !errors.As(err, &refused) || round == maxApplyRounds {
			return st, res, err
		}
		// ZooKeeper holds something else than planned: what the
		// transaction touched was forgotten; read it again.
		s.MigrationZkVersion = st.MigrationZkVersion
		v = b.newView()
	}
}

// checkpoint writes s alone, unless keepHeld is set and /migration holds
// s already.
func (b *Batch) checkpoint(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
	if !b.keepHeld {
		return b.c.w.Update(ctx, s)
	}
	zs, err := b.c.w.Read(ctx, znode.MigrationPath)
	if err != nil {
		return s, err
	}
	if m, err := znode.DecodeMigration(zs[0].Data); err == nil && zs[0].Version == s.MigrationZkVersion && m == s.Checkpoint() {
		return s, nil
	}
	return b.c.w.Update(ctx, s)
}

// expect notes that a change recorded may plan up to ops ops, at up to
// paths paths outside the partitions planned by id.
func (b *Batch) expect(ops, paths int) {
	b.expectedOps, b.expectedPaths = b.expectedOps+ops, b.expectedPaths+paths
}

// newView returns an empty view for b's planning.
func (b *Batch) newView() *view {
	v := newView()
	v.overwrite = b.overwrite
	v.mem = b.c.mem
	v.planned = make(map[string]plannedZnode, b.expectedPaths)
	v.ops = make([]migrationzk.Op, 0, b.expectedOps)
	v.targets = make([]opTarget, 0, b.expectedOps)
	return v
}

// plan plans every change, reading what planning asks for, until nothing
// is missing.
func (b *Batch) plan(ctx context.Context, v *view, s migrationzk.State) ([]migrationzk.Op, error) {
	for round := 0; round < maxReadRounds; round++ {
		v.reset()
		for _, ch := range b.changes {
			ch(v, s)
		}
		if v.err != nil {
			return nil, v.err
		}
		if v.complete() && v.lacking != nil {
			return nil, v.lacking
		}
		if v.complete() {
			return v.ops, nil
		}
		if err := b.read(ctx, v); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("dualwrite: planning needed more than %d rounds of reads", maxReadRounds)
}

// read reads what v asked for, the znodes and the listings at once,
// after the call's one sync, and remembers what it found.
func (b *Batch) read(ctx context.Context, v *view) error {
	data, children := v.wanted()
	if !b.synced {
		if err := b.c.w.Sync(ctx, append(data, children...)...); err != nil {
			return err
		}
		b.synced = true
		b.c.report(TraceEvent{Kind: TraceSync})
	}
	if b.c.cfg.trace != nil {
		b.c.report(TraceEvent{Kind: TraceReadWave, Reads: len(data), Listings: len(children), Paths: append(slices.Clip(data), children...)})
	}
	var zs []migrationzk.Znode
	var ls []migrationzk.Listing
	var dataErr, childrenErr error
	var wg sync.WaitGroup
	if len(data) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			zs, dataErr = b.c.w.ReadAfterSync(ctx, data...)
		}()
	}
	if len(children) > 0 {
		ls, childrenErr = b.c.w.ChildrenAfterSync(ctx, children...)
	}
	wg.Wait()
	if err := errors.Join(dataErr, childrenErr); err != nil {
		return err
	}
	for _, z := range zs {
		v.znodes[z.Path] = z
		b.c.mem.learn(z)
	}
	for _, l := range ls {
		v.children[l.Path] = l.Names
		b.c.mem.learnListing(l)
	}
	return nil
}

// apply applies b and returns its State.
func (c *Client) apply(ctx context.Context, s migrationzk.State, b *Batch) (migrationzk.State, error) {
	st, _, err := b.Apply(ctx, s)
	return st, err
}
