package migrationzk

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/checker"
	"github.com/kraftmigration/zkwriter/internal/wire"
)

// Update writes the checkpoint s to /migration, conditioned on
// s.MigrationZkVersion, and fenced by /controller_epoch at
// s.ZkControllerEpochZkVersion when that is 0 or more. It returns s with the
// new znode version.
//
// A lost acknowledgement is recovered: the write is resent and, if the
// resend is rejected, /migration is reread; when it holds s at exactly the
// next version (and the fence still holds) the write landed, and the
// returned State says Recovered. Otherwise the error is a *ConflictError
// with the version ZooKeeper holds, or a *FencedError when another
// controller took over (the Writer is then retired). If ctx ends while the
// outcome is unknown the error is ErrOutcomeUnknown, and calling Update
// again with the same s is safe. On a Writer that claimed leadership, s
// must name the claim's controller and KRaft epoch (see IdentityError).
func (w *Writer) Update(ctx context.Context, s State) (State, error) {
	return w.do(ctx, "checkpoint", w.migrationPath, s, migrationVersion, w.update)
}

func (w *Writer) update(ctx context.Context, s State) (State, verdict, error) {
	c, err := w.newCheckpoint(s)
	if err != nil {
		return s, verdictNotLanded, err
	}
	v, err := w.exec.run(ctx, w.exec.retrier(), write{
		path:     w.migrationPath,
		expected: s.MigrationZkVersion,
		send:     c.send,
		verify:   c.verify,
		refused:  c.refused,
	})
	if err != nil {
		return s, v, err
	}
	st := s
	st.MigrationZkVersion, st.LastUpdated, st.Recovered = c.version, time.UnixMilli(c.mtime), v == verdictLanded
	w.confirm(st, c.mine.data)
	return st, v, nil
}

// checkpoint is one Update call's write of /migration.
type checkpoint struct {
	w     *Writer
	s     State
	mine  intent
	fence int32 // the /controller_epoch version that fences it; -1 for none
	// version and mtime are /migration's once the write is in.
	version int32
	mtime   int64
	res     []zk.MultiResponse // of the last fenced request
}

// newCheckpoint checks s and sizes its write.
func (w *Writer) newCheckpoint(s State) (*checkpoint, error) {
	if err := w.checkState(s); err != nil {
		return nil, err
	}
	if s.MigrationZkVersion < 0 {
		return nil, invalidf("MigrationZkVersion %d: Update needs the version of %s (from GetOrCreate)", s.MigrationZkVersion, w.migrationPath)
	}
	c := &checkpoint{w: w, s: s, fence: s.ZkControllerEpochZkVersion,
		mine: intent{kind: kindSetData, expected: s.MigrationZkVersion, data: s.Checkpoint().Encode(), chk: checker.MigrationState{}}}
	size := wire.SetDataSize(w.migrationPath, c.mine.data)
	if c.fence >= 0 {
		size = wire.MultiSize(wire.VersionOpSize(w.epochPath) + wire.SetDataOpSize(w.migrationPath, c.mine.data))
	}
	if max := w.exec.opts.maxRequestBytes; size > max {
		return nil, fmt.Errorf("%w: writing %s takes %d bytes, limit %d", ErrTooLarge, w.migrationPath, size, max)
	}
	return c, nil
}

// refused names what ZooKeeper refused of the checkpoint's request.
func (c *checkpoint) refused(error) (string, string) {
	if c.fence < 0 {
		return c.w.migrationPath, "setData"
	}
	return multiRefused(c.res, []string{c.w.epochPath, c.w.migrationPath}, []string{"check", "setData"})
}

// send writes the checkpoint once: a multi with the fencing check, or a
// plain SetData when unfenced.
func (c *checkpoint) send() error {
	w, data, expected := c.w, c.mine.data, c.mine.expected
	if c.fence < 0 {
		stat, err := w.exec.conn.Set(w.migrationPath, data, expected)
		if err == nil {
			c.version, c.mtime = stat.Version, stat.Mtime
		}
		return err
	}
	res, err := w.exec.conn.Multi(
		&zk.CheckVersionRequest{Path: w.epochPath, Version: c.fence},
		&zk.SetDataRequest{Path: w.migrationPath, Data: data, Version: expected})
	c.res = res
	if err == nil {
		c.version, c.mtime = res[1].Stat.Version, res[1].Stat.Mtime
	}
	return err
}

// verify rereads /migration, and /controller_epoch when fenced, after a
// rejection.
func (c *checkpoint) verify(ctx context.Context, r *retrier, _ error, _ bool) (verdict, error) {
	w := c.w
	paths := []string{w.migrationPath}
	if c.fence >= 0 {
		paths = append(paths, w.epochPath)
	}
	zs, err := w.exec.reread(ctx, r, paths...)
	if err != nil {
		return verdictNotLanded, err
	}
	epoch := absent
	if c.fence >= 0 {
		epoch = zs[1]
	}
	v, err := w.transactionVerdict(c.s, c.mine, c.fence, zs[0], epoch)
	if v == verdictLanded {
		c.version, c.mtime = zs[0].version, zs[0].mtime
	}
	return v, err
}
