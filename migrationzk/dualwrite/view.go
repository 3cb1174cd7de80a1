package dualwrite

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// view is what a batch knows of ZooKeeper while it plans: the znodes and
// child lists read so far, what the ops planned so far will change, and
// the reads planning found it needs.
type view struct {
	znodes   map[string]migrationzk.Znode
	children map[string][]string // nil slice for a missing znode
	// planned holds what the ops planned so far leave at the paths they
	// write, but for the partitions of created.
	planned map[string]plannedZnode
	// created holds, by topic, the partitions planned as new under a
	// partitions znode the batch creates, with their states: thousands
	// for a new topic, which planned would hold path by path.
	created map[string]*createdPartitions
	// wantData and wantChildren are reads planning needs and has not got.
	wantData, wantChildren map[string]bool
	ops                    []migrationzk.Op
	// targets says, aligned with ops, which partition znode or state each
	// op writes when planning knew it, so that what the transaction
	// leaves is remembered without parsing paths.
	targets []opTarget
	// err is the first znode found that a change must not overwrite, or
	// the first new name refused once a read proved it new.
	err error
	// overwrite holds the paths whose undecodable data may be written
	// over.
	overwrite map[string]bool
	// lacking reports the first znode a change needs that is missing
	// once the ops planned before it apply. It counts only once planning
	// is complete: until then an earlier change may not have planned the
	// create of that znode yet.
	lacking error
	// mem is what the Client remembers, consulted for what this batch
	// has not read; nil for none.
	mem *memory
	// digests are the partition states served from mem: their data is
	// not known, only its digest.
	digests map[string]uint64
	// usedMemory is set once planning relied on mem.
	usedMemory bool
}

// plannedZnode is what the ops planned so far leave at a path: kept
// small, as a change may plan thousands.
type plannedZnode struct {
	data    []byte
	version int32 // -1 once deleted
	exists  bool
}

// createdPartitions are the partitions of one topic planned as new under
// a partitions znode the batch creates.
type createdPartitions struct {
	// op holds, by partition id, 1 + the index in ops of the create of
	// the partition znode, whose state's create comes next; 0 for none.
	op []int32
	// mapped is set once planned holds a path below the partitions
	// znode: op then no longer tells alone what is planned there.
	mapped bool
}

// opTarget is the partition znode or state an op writes, when planning
// knew it; topic is "" for another znode, or one that planning did not
// mark.
type opTarget struct {
	topic     string
	partition int32
	state     bool
}

// at returns z as the Znode at p.
func (z plannedZnode) at(p string) migrationzk.Znode {
	return migrationzk.Znode{Path: p, Exists: z.exists, Data: z.data, Version: z.version}
}

func newView() *view {
	return &view{znodes: map[string]migrationzk.Znode{}, children: map[string][]string{},
		planned: map[string]plannedZnode{}, created: map[string]*createdPartitions{},
		digests: map[string]uint64{}, wantData: map[string]bool{}, wantChildren: map[string]bool{}}
}

// reset forgets the ops planned, keeping what was read.
func (v *view) reset() {
	v.ops, v.targets, v.err, v.lacking = v.ops[:0], v.targets[:0], nil, nil
	clear(v.planned)
	clear(v.created)
	clear(v.digests)
	clear(v.wantData)
	clear(v.wantChildren)
}

// complete reports whether planning read everything it needed.
func (v *view) complete() bool { return len(v.wantData) == 0 && len(v.wantChildren) == 0 }

// znode returns what p holds as far as the batch knows, and whether that
// is known: read, or proven missing by what was read (provenMissing); an
// unknown znode is asked for.
func (v *view) znode(p string) (migrationzk.Znode, bool) {
	if z, ok := v.znodes[p]; ok {
		return z, true
	}
	if z, ok := v.remembered(p); ok {
		return z, true
	}
	if v.provenMissing(p) {
		return migrationzk.Znode{Path: p, Version: -1}, true
	}
	v.wantData[p] = true
	return migrationzk.Znode{}, false
}

// provenMissing reports whether what was read proves p missing. The
// nearest ancestor listed or read decides: p is missing when the listing
// of its children lacks the child on p's way, or when it was read as
// missing. A listing is read after a sync as a znode is, so the proof is
// as good as a read of p (and should p appear before the write, the
// transaction's create of it is refused and the batch reads again). It
// spares a change that creates many znodes under one parent, such as a
// topic's partitions, a read of each.
func (v *view) provenMissing(p string) bool {
	for child, dir := p, parent(p); child != "/"; child, dir = dir, parent(dir) {
		name := child[strings.LastIndexByte(child, '/')+1:]
		if names, listed := v.children[dir]; listed {
			_, found := slices.BinarySearch(names, name)
			return !found
		}
		if v.mem != nil {
			if found, listed := v.mem.hasChild(dir, name); listed {
				v.usedMemory = true
				return !found
			}
		}
		if z, read := v.znodes[dir]; read {
			return !z.Exists
		}
		if v.mem == nil {
			continue
		}
		if z, _, _, ok := v.mem.lookup(dir); ok {
			v.usedMemory = true
			return !z.Exists
		}
	}
	return false
}

// remembered returns what the Client remembers of p.
func (v *view) remembered(p string) (migrationzk.Znode, bool) {
	if v.mem == nil {
		return migrationzk.Znode{}, false
	}
	z, d, hasDigest, ok := v.mem.lookup(p)
	if !ok {
		return z, false
	}
	v.usedMemory = true
	if hasDigest {
		v.digests[p] = d
	}
	return z, true
}

// current returns what p holds once the ops planned so far apply, and
// whether that is known.
func (v *view) current(p string) (migrationzk.Znode, bool) {
	if z, ok := v.plannedAt(p); ok {
		return z.at(p), true
	}
	return v.znode(p)
}

// plannedAt returns what the ops planned so far leave at p, and whether
// they write p.
func (v *view) plannedAt(p string) (plannedZnode, bool) {
	if z, ok := v.planned[p]; ok {
		return z, true
	}
	if len(v.created) == 0 {
		return plannedZnode{}, false
	}
	topic, id, state, isPart := partitionPath(p)
	c := v.created[topic]
	if !isPart || c == nil || int(id) >= len(c.op) || c.op[id] == 0 {
		return plannedZnode{}, false
	}
	if state {
		return plannedZnode{data: v.ops[c.op[id]].Data(), exists: true}, true
	}
	return plannedZnode{exists: true}, true
}

// exists reports whether p exists once the ops planned so far apply, and
// whether that is known.
func (v *view) exists(p string) (bool, bool) {
	_, planned := v.plannedAt(p)
	_, read := v.znodes[p]
	if !planned && !read && v.mem != nil && v.mem.listed(p) {
		v.usedMemory = true // a listing of p proves it exists
		return true, true
	}
	z, ok := v.current(p)
	return z.Exists, ok
}

// childrenOf returns the children of p, sorted, and whether they were read.
func (v *view) childrenOf(p string) ([]string, bool) {
	if c, ok := v.children[p]; ok {
		return c, true
	}
	if z, planned := v.plannedAt(p); planned && (!z.exists || z.version == 0) {
		return nil, true // deleted, or created, by this batch
	}
	if v.provenMissing(p) {
		return nil, true
	}
	if v.mem != nil {
		if c, ok := v.mem.children(p); ok {
			v.usedMemory = true
			return c, true
		}
	}
	v.wantChildren[p] = true
	return nil, false
}

// ensureParents plans the creates, with null data, of the missing
// ancestors of p, from the top.
func (v *view) ensureParents(p string) bool {
	var missing []string
	for dir := parent(p); dir != "/"; dir = parent(dir) {
		exists, known := v.exists(dir)
		if !known {
			return false
		}
		if exists {
			break
		}
		missing = append(missing, dir)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		v.create(missing[i], nil)
	}
	return true
}

// parent returns the parent of p, a clean absolute path, as path.Dir does
// but without allocating: planning walks up paths for every znode.
func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "/"
}

// put plans for p to hold data: a create of p (and its missing parents)
// when it is absent, a SetData at the version read when compare finds it
// holding something else, nothing when compare finds it equal. Data
// compare cannot decode is left alone: the batch fails with compare's
// error. It reports whether p changes, and false when what p holds is not
// known yet.
func (v *view) put(p string, data []byte, compare func(current []byte) (bool, error)) (changed, known bool) {
	z, ok := v.current(p)
	if !ok {
		// Should p be missing, its parent is needed too: ask for both in
		// one round.
		if dir := parent(p); dir != "/" {
			v.current(dir)
		}
		return false, false
	}
	return v.putOver(p, z, data, compare)
}

// putOver plans for p to hold data as put does, z being what p holds
// once the ops planned so far apply, as the caller looked it up.
func (v *view) putOver(p string, z migrationzk.Znode, data []byte, compare func(current []byte) (bool, error)) (changed, known bool) {
	if !z.Exists {
		if !v.ensureParents(p) {
			return false, false
		}
		v.create(p, data)
		return true, true
	}
	same, err := v.same(p, data, z, compare)
	if same && err == nil && !v.fresh(p) {
		// Nothing to write, as far as the Client remembers: a change
		// left out must not rest on memory, so p is read.
		v.wantData[p] = true
		return false, false
	}
	switch {
	case err != nil && v.overwrite[p]:
		v.addOp(migrationzk.SetData(p, data, z.Version))
		v.plan(p, plannedZnode{data: data, version: z.Version + 1, exists: true})
	case err != nil:
		v.fail(p, err)
		return false, true
	case same:
		return false, true
	default:
		v.addOp(migrationzk.SetData(p, data, z.Version))
		v.plan(p, plannedZnode{data: data, version: z.Version + 1, exists: true})
	}
	return true, true
}

// same reports whether p, holding z, holds what data means: by digest
// for a partition state whose data only the Client's memory knows, else
// by compare. What a read found to mean data is remembered by data's
// digest, so that later changes compare exactly.
func (v *view) same(p string, data []byte, z migrationzk.Znode, compare func(current []byte) (bool, error)) (bool, error) {
	if _, planned := v.plannedAt(p); !planned {
		if d, ok := v.digests[p]; ok {
			return d == v.mem.digest(data), nil
		}
	}
	same, err := compare(z.Data)
	if same && err == nil && v.mem != nil {
		if _, read := v.znodes[p]; read {
			if _, _, isState, ok := partitionPath(p); ok && isState {
				v.mem.learnDigest(p, z.Version, v.mem.digest(data))
			}
		}
	}
	return same, err
}

// fail records that p holds data a change must not overwrite.
func (v *view) fail(p string, err error) {
	err = withholdConfigData(p, err)
	var de *znode.DecodeError
	if errors.As(err, &de) {
		de.Path = p
	}
	if v.err == nil {
		v.err = fmt.Errorf("dualwrite: %s holds data that does not decode; it is left as it is: %w", p, err)
	}
}

// createdHere reports whether the ops planned so far create p: it was
// missing before them, and so were its children.
func (v *view) createdHere(p string) bool {
	z, planned := v.plannedAt(p)
	return planned && z.exists && z.version == 0
}

// create plans a create of p holding data.
func (v *view) create(p string, data []byte) {
	if topic, isList := partitionsListOf(p); isList {
		v.createList(topic, p)
	}
	v.addOp(migrationzk.Create(p, data))
	v.plan(p, plannedZnode{data: data, exists: true})
}

// createList notes that the ops planned so far create the partitions
// znode p of topic. Only a batch that deleted p before can have planned
// anything below it.
func (v *view) createList(topic, p string) {
	c := v.created[topic]
	if c == nil {
		c = &createdPartitions{}
		v.created[topic] = c
	}
	_, deleted := v.planned[p]
	c.mapped = c.mapped || deleted
}

// plan records that the ops planned so far leave z at p.
func (v *view) plan(p string, z plannedZnode) {
	v.planned[p] = z
	if len(v.created) == 0 {
		return
	}
	if topic, _, _, isPart := partitionPath(p); isPart && v.created[topic] != nil {
		v.created[topic].mapped = true
	}
}

// addOp plans op, on a znode planning does not mark (opTarget).
func (v *view) addOp(op migrationzk.Op) {
	v.ops = append(v.ops, op)
	v.targets = append(v.targets, opTarget{})
}

// remove plans the delete of p, if it exists; its children must be gone
// by then.
func (v *view) remove(p string) bool {
	exists, known := v.exists(p)
	if known && !exists && !v.fresh(p) {
		v.wantData[p] = true // a delete left out must not rest on memory
		return false
	}
	if known && exists {
		z, _ := v.current(p)
		v.addOp(migrationzk.Delete(p, z.Version))
		v.plan(p, plannedZnode{version: -1})
	}
	return known
}

// notify plans a sequential create under prefix holding data, the parent
// created first when missing.
func (v *view) notify(prefix string, data []byte) bool {
	if !v.ensureParents(prefix) {
		return false
	}
	v.addOp(migrationzk.CreateSequential(prefix, data))
	return true
}

// wanted returns the reads planning asked for, sorted.
func (v *view) wanted() (data, children []string) {
	for p := range v.wantData {
		data = append(data, p)
	}
	for p := range v.wantChildren {
		children = append(children, p)
	}
	sort.Strings(data)
	sort.Strings(children)
	return data, children
}

// childPaths returns the paths of p's children named in names.
func childPaths(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSuffix(p, "/") + "/" + n
	}
	return out
}

// decodeTopic decodes the topic znode z, through what the Client
// remembers when it can.
func (v *view) decodeTopic(z migrationzk.Znode) (znode.Topic, error) {
	if v.mem == nil {
		return znode.DecodeTopic(z.Data)
	}
	return v.mem.decodeTopic(z)
}

// fresh reports whether what the batch knows of p comes from this call:
// planned, read, or proven missing by what was read, not from what the
// Client remembers.
func (v *view) fresh(p string) bool {
	if _, ok := v.plannedAt(p); ok {
		return true
	}
	if _, ok := v.znodes[p]; ok {
		return true
	}
	mem, used := v.mem, v.usedMemory
	v.mem = nil
	proven := v.provenMissing(p)
	v.mem, v.usedMemory = mem, used
	return proven
}
