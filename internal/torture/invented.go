package torture

import (
	"path"
	"sort"
	"strings"

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
