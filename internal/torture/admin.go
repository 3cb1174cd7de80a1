package torture

import (
	"errors"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// barrierPath is a znode outside the root that the admin session writes to
// before it reads: a write is applied by the admin's server in order after
// every write committed before it, so the reads that follow on the same
// session see them all. (A sync does not give that on the leader, which
// answers it at once while it may not have applied the last commit.)
const barrierPath = "/torture-barrier"

// admin is the run's own session, beside the writers under test: it
// reads what ZooKeeper holds after a write barrier, recording each read
// in the history, and it writes for the other parties (others).
type admin struct {
	conn *zk.Conn
	h    *history.History
	log  *anomalies
}

// p returns the full path of path under the cluster's root.
func p(path string) string { return root + path }

// get reads znodes after a write barrier, retrying over lost connections.
// A missing znode reads as nil data and a nil Stat. It returns the time
// the barrier was sent.
func (a *admin) get(paths ...string) (int64, [][]byte, []*zk.Stat, error) {
	var lastErr error
	for i := 0; i < 500; i++ {
		if i > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		call := a.h.Now()
		if _, err := a.conn.Set(barrierPath, nil, -1); err != nil {
			lastErr = err
			if !zkerr.Retryable(err) {
				break
			}
			continue
		}
		datas, stats, errs := a.getAll(paths)
		if err := errors.Join(errs...); err != nil {
			lastErr = err
			if !retryableAll(errs) {
				break
			}
			continue
		}
		return call, datas, stats, nil
	}
	a.log.add(CheckHarness, "harness: admin read of %v failed: %v", paths, lastErr)
	return 0, nil, nil, lastErr
}

// getAll reads paths, the requests going out together, pipelined on the
// one connection.
func (a *admin) getAll(paths []string) ([][]byte, []*zk.Stat, []error) {
	datas := make([][]byte, len(paths))
	stats := make([]*zk.Stat, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for j, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, st, err := a.conn.Get(p)
			if err == nil {
				datas[j], stats[j] = data, st
			} else if !errors.Is(err, zk.ErrNoNode) {
				errs[j] = err
			}
		}()
	}
	wg.Wait()
	return datas, stats, errs
}

// retryableAll reports whether every error in errs (nil ones aside) is one
// that a read may simply be sent again after.
func retryableAll(errs []error) bool {
	for _, err := range errs {
		if err != nil && !zkerr.Retryable(err) {
			return false
		}
	}
	return true
}

// read reads path and records the read in group at slot.
func (a *admin) read(path string, slot int, group string) (history.Value, bool) {
	vs, ok := a.reads([]string{path}, []int{slot}, []string{group})
	if !ok {
		return history.Value{}, false
	}
	return vs[0], true
}

// reads reads paths after one barrier and records each read, of the
// path at the slot of the group of the same index.
func (a *admin) reads(paths []string, slots []int, groups []string) ([]history.Value, bool) {
	call, datas, stats, err := a.get(paths...)
	ret := a.h.Now()
	if err != nil {
		return nil, false
	}
	vs := make([]history.Value, len(paths))
	for i := range paths {
		if stats[i] != nil {
			vs[i] = history.Value{Exists: true, Version: stats[i].Version, Data: string(datas[i])}
		}
		a.h.Add(groups[i], history.Op{Client: 0, Call: call, Return: ret, Step: history.Step{Kind: history.StepRead,
			Obs: []history.Obs{{Slot: slots[i], Val: vs[i]}}, Desc: "admin read " + paths[i]}})
	}
	return vs, true
}

// migration reads /migration, recorded.
func (a *admin) migration() (history.Value, bool) {
	return a.read(p("/migration"), history.SlotMigration, history.MigrationGroup)
}

// epoch reads /controller_epoch, recorded: its version and value.
func (a *admin) epoch() (version, value int32, ok bool) {
	cur, ok := a.read(p("/controller_epoch"), history.SlotEpoch, history.MigrationGroup)
	if !ok || !cur.Exists {
		return 0, 0, false
	}
	value, err := znode.DecodeControllerEpoch([]byte(cur.Data))
	return cur.Version, value, err == nil
}

// controller reads /controller: nil data when it is absent; ok is false
// when the read failed.
func (a *admin) controller() (data []byte, ok bool) {
	_, datas, _, err := a.get(p("/controller"))
	if err != nil {
		return nil, false
	}
	return datas[0], true
}

// names reports whether /controller names KRaft controller id with
// KRaft epoch epoch.
func (a *admin) names(id, epoch int32) bool {
	data, ok := a.controller()
	if !ok {
		return false
	}
	c, err := znode.DecodeController(data)
	return err == nil && c.BrokerID == id && c.KRaftControllerEpoch == epoch
}

// walk returns the full paths of top and every znode below it, listing
// the children of a level's znodes together, pipelined.
func (a *admin) walk(top string) ([]string, error) {
	tree := []string{top}
	level := []string{top}
	for len(level) > 0 {
		next := make([][]string, len(level))
		errs := make([]error, len(level))
		var wg sync.WaitGroup
		for i, p := range level {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next[i], errs[i] = a.children(p)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		level = level[:0:0]
		for _, kids := range next {
			level = append(level, kids...)
		}
		tree = append(tree, level...)
	}
	return tree, nil
}

// children lists the full paths of p's children, retrying over lost
// connections; a znode deleted meanwhile has none.
func (a *admin) children(p string) ([]string, error) {
	var err error
	for i := 0; i < 100; i++ {
		var names []string
		names, _, err = a.conn.Children(p)
		switch {
		case err == nil:
			return childPaths(p, names), nil
		case errors.Is(err, zk.ErrNoNode):
			return nil, nil
		case zkerr.Retryable(err):
			time.Sleep(10 * time.Millisecond)
			continue
		}
		return nil, err
	}
	return nil, err
}

// childPaths returns the paths of parent's children named in names.
func childPaths(parent string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = parent + "/" + n
	}
	return out
}

// notifications counts the change notifications ZooKeeper holds, by
// content.
func (a *admin) notifications() (map[string]int, bool) {
	held := map[string]int{}
	for _, parent := range notificationRoots {
		names, _, err := a.conn.Children(p(parent))
		if err != nil {
			continue // none were written there
		}
		paths := childPaths(p(parent), names)
		for len(paths) > 0 {
			part := paths[:min(len(paths), 200)]
			paths = paths[len(part):]
			_, datas, _, err := a.get(part...)
			if err != nil {
				return nil, false
			}
			for _, data := range datas {
				held[string(data)]++
			}
		}
	}
	return held, true
}

// client returns a dual-write Client of the admin session, which reads
// the image ZooKeeper holds.
func (a *admin) client() *dualwrite.Client {
	return must.Get(dualwrite.New(must.Get(migrationzk.New(a.conn, migrationzk.WithRoot(root)))))
}
