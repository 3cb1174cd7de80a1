package migrationzk

import (
	"fmt"
	"strings"

	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// plan is a batch made ready to send: its ops checked, placed under the
// root, sized and packed into transactions.
type plan struct {
	ops   []Op
	paths []string // full paths of ops
	sizes []int    // encoded sizes of ops inside a multi
	txns  [][]int  // indices of the ops of each transaction
	// final is /migration's content in the last transaction; prev, the
	// content it has before the batch, in the others (nil until needed).
	final, prev []byte
	limit       int // the maximum request size
	// The paths of the fencing check and the /migration write.
	epochPath, migrationPath string
}

// newPlan checks ops and packs them for a batch that writes final to
// /migration last. A refused op is reported by its index.
func (w *Writer) newPlan(ops []Op, final []byte) (*plan, int, error) {
	p := &plan{ops: ops, paths: make([]string, len(ops)), sizes: make([]int, len(ops)), final: final,
		limit: w.exec.opts.maxRequestBytes, epochPath: w.epochPath, migrationPath: w.migrationPath}
	full := fullPaths(w.exec.opts.root, ops)
	var paths pathChecker
	for i, op := range ops {
		if err := validateOp(i, op, &paths); err != nil {
			return nil, i, err
		}
		p.paths[i] = full(i)
		p.sizes[i] = w.opSize(op, p.paths[i])
	}
	var err error
	if p.txns, err = p.pack(len(final)); err != nil {
		return nil, -1, err
	}
	return p, -1, nil
}

// fullPaths returns the path under root of the op at each index of ops,
// all written into one string rather than allocated one by one.
func fullPaths(root string, ops []Op) func(i int) string {
	if root == "" {
		return func(i int) string { return ops[i].path }
	}
	n := 0
	for _, op := range ops {
		n += len(root) + len(op.path)
	}
	var b strings.Builder
	b.Grow(n)
	ends := make([]int, len(ops))
	for i, op := range ops {
		b.WriteString(root)
		b.WriteString(op.path)
		ends[i] = b.Len()
	}
	all := b.String()
	return func(i int) string { return all[ends[i]-len(root)-len(ops[i].path) : ends[i]] }
}

// opSize is the encoded size of op on path inside a multi.
func (w *Writer) opSize(op Op, path string) int {
	switch op.kind {
	case kindCreate:
		return wire.CreateOpSize(path, op.data, w.exec.opts.aclFor(path))
	case kindSetData:
		return wire.SetDataOpSize(path, op.data)
	}
	return wire.VersionOpSize(path)
}

// usePrev sets the content the transactions before the last keep in
// /migration, and packs again if it takes more room than final.
func (p *plan) usePrev(prev []byte) error {
	p.prev = prev
	if len(prev) <= len(p.final) {
		return nil
	}
	var err error
	p.txns, err = p.pack(len(prev))
	return err
}

func validateOp(i int, op Op, paths *pathChecker) error {
	switch op.kind {
	case kindCreate, kindSetData, kindDelete:
	default:
		return invalidf("op %d: not made by Create, SetData or Delete", i)
	}
	if err := paths.check(op.path); err != nil {
		return invalidf("op %d (%s): path %q: %v", i, op.kind, op.path, err)
	}
	if op.path == "/" {
		return invalidf("op %d (%s): the root znode", i, op.kind)
	}
	switch op.path {
	case znode.MigrationPath, znode.ControllerEpochPath:
		return invalidf("op %d (%s): %s is written by the Writer itself", i, op.kind, op.path)
	}
	if op.version < -1 {
		return invalidf("op %d (%s %s): version %d", i, op.kind, op.path, op.version)
	}
	return nil
}

// pathChecker checks the paths of a batch's ops in turn, as
// validatePath does, without checking again the directory they share
// with a path checked before: a batch's ops mostly write below one
// znode, such as a new topic's partitions and their states.
type pathChecker struct {
	// dirs are the directories of the last two valid paths, the latest
	// first, each ending with '/': a path that starts with one has no
	// problem there, for every segment of it is a whole segment of a
	// valid path and no character straddles its end.
	dirs [2]string
}

// check checks p as validatePath does.
func (c *pathChecker) check(p string) error {
	skip, latest := 0, false // the length of the directory p is known valid in, and whether it is dirs[0]
	switch {
	case c.below(p, c.dirs[0]):
		skip, latest = len(c.dirs[0]), true
	case c.below(p, c.dirs[1]):
		skip = len(c.dirs[1])
	}
	if err := validatePath(p[max(skip-1, 0):]); err != nil {
		return err
	}
	// p's directory, found past what p shares with the one it matched.
	if end := skip + strings.LastIndexByte(p[skip:], '/') + 1; end != skip || !latest {
		c.dirs[0], c.dirs[1] = p[:end], c.dirs[0]
	}
	return nil
}

// below reports whether p is a path below dir, a directory of a valid
// path.
func (c *pathChecker) below(p, dir string) bool {
	return dir != "" && len(p) > len(dir) && strings.HasPrefix(p, dir)
}

// overhead is the size of a transaction without its ops, with contentLen
// bytes of /migration content: header, fencing check, /migration SetData
// and trailer.
func (p *plan) overhead(contentLen int) int {
	return wire.MultiSize(wire.VersionOpSize(p.epochPath) + wire.SetDataOpSize(p.migrationPath, nil) + contentLen)
}

// partLimit is the room for ops in a request that holds part of a
// transaction (one that keeps /migration's content).
func (p *plan) partLimit() int { return p.limit - p.overhead(len(p.prev)) }

// pack splits the ops, in order, into transactions no larger than the
// maximum request size.
func (p *plan) pack(contentLen int) ([][]int, error) {
	base := p.overhead(contentLen)
	var txns [][]int
	var cur []int
	size := base
	for i, n := range p.sizes {
		if base+n > p.limit {
			return nil, fmt.Errorf("%w: op %d (%s %s) takes %d bytes in a transaction of at most %d", ErrTooLarge, i, p.ops[i].kind, p.ops[i].path, base+n, p.limit)
		}
		if size+n > p.limit {
			txns = append(txns, cur)
			cur, size = nil, base
		}
		cur = append(cur, i)
		size += n
	}
	return append(txns, cur), nil
}
