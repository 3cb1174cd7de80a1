package migrationzk

import (
	"context"
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/go-zookeeper/zk"
)

// sequentialCreated finds, for each sequential create among ops, the
// znode the transaction at zxid created for it: among the children of its
// prefix's parent named after the prefix, those created at zxid, matched
// to the ops in order (ZooKeeper numbers a transaction's creates in the
// order of its ops) and kept when they hold the op's bytes. An op with no
// such znode is absent from the map.
func (b *batch) sequentialCreated(ctx context.Context, ops []int, zxid int64) (map[int]opZnode, error) {
	byParent := map[string][]int{}
	for _, i := range ops {
		if b.plan.ops[i].sequential {
			parent := path.Dir(b.plan.paths[i])
			byParent[parent] = append(byParent[parent], i)
		}
	}
	found := map[int]opZnode{}
	for parent, seqOps := range byParent {
		children, err := b.createdAt(ctx, parent, zxid)
		if err != nil {
			return nil, err
		}
		b.matchCreated(seqOps, children, found)
	}
	return found, nil
}

// matchCreated pairs each op of seqOps, in order, with the next child of
// created named after its prefix, and records the pairs holding the op's
// bytes in found.
func (b *batch) matchCreated(seqOps []int, created []opZnode, found map[int]opZnode) {
	next := map[string]int{} // by prefix: how many children were matched
	for _, i := range seqOps {
		prefix := b.plan.paths[i]
		k := 0
		for c := range created {
			if !strings.HasPrefix(created[c].path, prefix) {
				continue
			}
			if k == next[prefix] {
				next[prefix]++
				if string(created[c].data) == string(b.plan.ops[i].data) {
					found[i] = created[c]
				}
				break
			}
			k++
		}
	}
}

// createdAt returns the children of parent created at zxid, in the order
// of their names (their sequence numbers). It reads the children from
// the newest name down and stops at the first created before zxid.
func (b *batch) createdAt(ctx context.Context, parent string, zxid int64) ([]opZnode, error) {
	names, err := b.exec.children(ctx, parent)
	if err != nil {
		return nil, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var created []opZnode
	for _, name := range names {
		full := parent + "/" + name
		cur, err := b.exec.get(ctx, b.exec.retrier(), full)
		if err != nil {
			return nil, err
		}
		if cur.exists && cur.czxid < zxid {
			break
		}
		if cur.exists && cur.czxid == zxid {
			created = append(created, opZnode{znodeState: cur, path: full})
		}
	}
	sort.Slice(created, func(i, j int) bool { return created[i].path < created[j].path })
	return created, nil
}

// children lists the children of path; a missing znode has none.
func (e *executor) children(ctx context.Context, path string) ([]string, error) {
	names, _, err := e.childrenOf(ctx, e.retrier(), path)
	return names, err
}

// childrenOf lists the children of path, and whether it exists.
func (e *executor) childrenOf(ctx context.Context, r *retrier, path string) ([]string, bool, error) {
	var names []string
	err := e.read(ctx, r, func() error {
		var err error
		names, _, err = e.conn.Children(path)
		return err
	})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, false, nil
	case err != nil:
		// names is not read: a request ctx abandoned may still set it.
		return nil, false, withAuthPath(err, path)
	}
	return names, true, nil
}
