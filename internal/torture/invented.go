package torture

import (
	"errors"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// setupPaths are the znodes the run starts with, and /migration, relative
// to the root.
var setupPaths = []string{"", "/controller_epoch", "/controller", "/brokers", "/brokers/topics", "/migration"}

// ask records that the workload asked for the znodes of wk to be written:
// its ops' paths, and the entities its dual-write changes or Sync edits
// write.
func (wl *workload) ask(wk work) {
	for _, o := range wk.ops {
		wl.asked[o.Path()] = true
	}
	for _, ch := range wk.vocab {
		wl.asked[ch.path] = true
	}
	for _, e := range wk.sync {
		wl.asked[e.path] = true
	}
	for _, ch := range wk.delta {
		wl.asked[ch.path] = true
	}
}

// inventedZnodes returns, sorted, the paths of tree (full paths) that no
// one asked for: neither a path of asked (relative to the root), nor a
// change notification (a child of a notification root), nor a path a
// foreign writer wrote (foreign, full paths), nor an ancestor of one.
func inventedZnodes(tree []string, asked map[string]bool, foreign map[string]bool) []string {
	allowed := map[string]bool{}
	allow := func(full string) {
		for p := full; p != "/" && p != "." && !allowed[p]; p = path.Dir(p) {
			allowed[p] = true
		}
	}
	for _, p := range setupPaths {
		allow(root + p)
	}
	for _, p := range notificationRoots {
		// The parents of the change notifications: every Kafka broker
		// creates them at startup, and a write of a notification may
		// create them before its batch fails.
		allow(root + p)
	}
	for p := range asked {
		allow(root + p)
	}
	for p := range foreign {
		allow(p)
	}
	for _, p := range tree {
		if isNotification(p) {
			allow(p)
		}
	}
	var invented []string
	for _, p := range tree {
		if !allowed[p] {
			invented = append(invented, p)
		}
	}
	sort.Strings(invented)
	return invented
}

// isNotification reports whether full is a change notification Kafka's
// readers look for: a child of a notification root with its prefix.
func isNotification(full string) bool {
	for _, prefix := range []string{znode.ConfigChangePrefix, znode.LiteralACLChangePrefix, znode.ExtendedACLChangePrefix} {
		if strings.HasPrefix(full, root+prefix) && !strings.Contains(strings.TrimPrefix(full, root+prefix), "/") {
			return true
		}
	}
	return false
}

// checkNothingInvented walks the tree under the root and reports every
// znode that neither the workload asked for nor a foreign writer wrote.
func (d *driver) checkNothingInvented() {
	tree, err := d.walk(root)
	if err != nil {
		d.anomaly(CheckHarness, "harness: walk the tree: %v", err)
		return
	}
	foreign := map[string]bool{}
	for _, p := range d.h.ForeignPaths() {
		foreign[p] = true
	}
	for _, p := range inventedZnodes(tree, d.asked, foreign) {
		d.anomaly(CheckInvented, "%s exists, and neither the workload nor another party wrote it", p)
	}
}

// walk returns the full paths of top and every znode below it, listing
// the children of a level's znodes together, pipelined on the admin
// session.
func (d *driver) walk(top string) ([]string, error) {
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
				next[i], errs[i] = d.children(p)
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
func (d *driver) children(p string) ([]string, error) {
	var err error
	for i := 0; i < 100; i++ {
		var names []string
		names, _, err = d.admin.Children(p)
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
