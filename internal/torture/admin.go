package torture

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/torture/history"
	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

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
		call := d.h.Now()
		if _, err := d.admin.Set(barrierPath, nil, -1); err != nil {
			lastErr = err
			if !zkerr.Retryable(err) {
				break
			}
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
			if !retryableAll(errs) {
				break
			}
			continue
		}
		return call, datas, stats, nil
	}
	d.anomaly(CheckHarness, "harness: admin read of %v failed: %v", paths, lastErr)
	return 0, nil, nil, lastErr
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

// adminRead reads path through the admin session and records the read in
// group at slot.
func (d *driver) adminRead(path string, slot int, group string) (history.Value, bool) {
	vs, ok := d.adminReads([]string{path}, []int{slot}, []string{group})
	if !ok {
		return history.Value{}, false
	}
	return vs[0], true
}

// adminReads reads paths after one barrier and records each read.
func (d *driver) adminReads(paths []string, slotsOf []int, groups []string) ([]history.Value, bool) {
	call, datas, stats, err := d.adminGet(paths...)
	ret := d.h.Now()
	if err != nil {
		return nil, false
	}
	vs := make([]history.Value, len(paths))
	for i := range paths {
		if stats[i] != nil {
			vs[i] = history.Value{Exists: true, Version: stats[i].Version, Data: string(datas[i])}
		}
		d.h.Add(groups[i], history.Op{Client: 0, Call: call, Return: ret, Step: history.Step{Kind: history.StepRead,
			Obs: []history.Obs{{Slot: slotsOf[i], Val: vs[i]}}, Desc: "admin read " + paths[i]}})
	}
	return vs, true
}

// checkMigration reads /migration and /controller_epoch right after call
// rc returned s, and compares.
func (d *driver) checkMigration(g *generation, s migrationzk.State, rc history.Record) {
	vs, ok := d.adminReads([]string{d.p("/migration"), d.p("/controller_epoch")}, []int{history.SlotMigration, history.SlotEpoch}, []string{history.MigrationGroup, history.MigrationGroup})
	if !ok {
		return
	}
	v := vs[0]
	if d.h.ForeignDuring(d.p("/migration"), rc.Call, rc.Return) {
		return // a foreign write during the call may have moved it since
	}
	want := string(stateData(s))
	switch {
	case !v.Exists || v.Data != want:
		d.anomaly(CheckLostWrite, "lost write: controller %d was told /migration holds %s at version %d; ZooKeeper holds %v", g.id, want, s.MigrationZkVersion, v)
	case v.Version != s.MigrationZkVersion:
		d.anomaly(CheckVersion, "version mismatch: controller %d was told /migration is at version %d; ZooKeeper holds %v", g.id, s.MigrationZkVersion, v)
	}
}

// payloadCheck is what a call said a payload znode holds: data at
// version, or nothing once deleted.
type payloadCheck struct {
	path    string
	data    []byte
	version int32
	desc    string
	deleted bool
}

// checkPayloads reads payload znodes right after call rc said they hold
// the given data at the given versions.
func (d *driver) checkPayloads(checks []payloadCheck, rc history.Record) {
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
		if d.h.ForeignDuring(c.path, rc.Call, rc.Return) {
			continue
		}
		switch {
		case c.deleted && v.Exists:
			d.anomaly(CheckLostWrite, "lost delete: %s: ZooKeeper holds %v", c.desc, v)
		case c.deleted:
		case !v.Exists || v.Data != string(c.data):
			d.anomaly(CheckLostWrite, "lost write: %s: ZooKeeper holds %v", c.desc, v)
		case v.Version != c.version:
			d.anomaly(CheckVersion, "version mismatch: %s reported version %d; ZooKeeper holds %v", c.desc, c.version, v)
		}
	}
}

// readFinalState reads through the admin session what ZooKeeper holds at
// the end: /migration, /controller_epoch, and every payload znode the
// workload or a foreign write touched, two hundred to a barrier.
func (d *driver) readFinalState() {
	d.adminRead(d.p("/migration"), history.SlotMigration, history.MigrationGroup)
	d.adminRead(d.p("/controller_epoch"), history.SlotEpoch, history.MigrationGroup)
	paths := d.touchedPayloads()
	for len(paths) > 0 {
		batch := paths[:min(len(paths), 200)]
		paths = paths[len(batch):]
		d.adminReads(batch, make([]int, len(batch)), batch)
	}
}

// touchedPayloads returns, sorted and each once, the full paths of the
// payload znodes the driver wrote or learned of, and of those a foreign
// write touched.
func (d *driver) touchedPayloads() []string {
	paths := make([]string, 0, len(d.payloads))
	for p := range d.payloads {
		paths = append(paths, d.p(p))
	}
	for _, p := range d.h.ForeignPaths() {
		if strings.HasPrefix(p, root+znode.TopicsPath) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return slices.Compact(paths)
}
