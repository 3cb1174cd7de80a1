package migrationzk

import (
	"bytes"
	"slices"
)

// doubt is a batch's transaction whose outcome a call left unknown: the
// /migration version it expected, the content it wrote there, the fence,
// and its ops. A later call that finds a transaction with this content at
// the next version knows which of its ops that transaction may hold.
type doubt struct {
	expected, fence int32
	content         []byte
	ops             map[opKey]bool // ops of the transaction, by kind, path, data and version
}

// opKey is op as a map key (its data as a string).
type opKey struct {
	kind       opKind
	sequential bool
	path, data string
	version    int32
}

func keyOf(o Op) opKey {
	return opKey{kind: o.kind, sequential: o.sequential, path: o.path, data: string(o.data), version: o.version}
}

// doubtOf is the transaction of attempt a, whose outcome is unknown.
func (b *batch) doubtOf(a *attempt) doubt {
	d := doubt{expected: b.version, fence: b.s.ZkControllerEpochZkVersion, content: a.content, ops: map[opKey]bool{}}
	for _, i := range a.ops {
		d.ops[keyOf(b.plan.ops[i])] = true
	}
	return d
}

// maxDoubts is how many transactions in doubt a Writer remembers: a call
// repeated after an unknown outcome, with ops added each time, leaves one
// in doubt per attempt, and any of them may be the one that landed.
const maxDoubts = 8

// rememberDoubt records the transaction an Apply call left in doubt,
// forgetting the oldest beyond maxDoubts.
func (w *Writer) rememberDoubt(d doubt) {
	w.mu.Lock()
	w.doubtfulBatches = append(w.doubtfulBatches, d)
	if n := len(w.doubtfulBatches); n > maxDoubts {
		w.doubtfulBatches = slices.Delete(w.doubtfulBatches, 0, n-maxDoubts)
	}
	w.mu.Unlock()
}

// candidates are the transactions of ours that /migration, found at the
// next version with a's content, may show, as marks on a's ops (see
// heldOps): with resent, a copy of this very request; each transaction
// earlier calls left in doubt at the same version, content and fence;
// none when neither.
func (a *attempt) candidates(resent bool) [][]bool {
	var out [][]bool
	if resent {
		out = append(out, allOps(len(a.ops)))
	}
	b := a.b
	b.w.mu.Lock()
	doubts := slices.Clone(b.w.doubtfulBatches)
	b.w.mu.Unlock()
	for _, d := range doubts {
		if d.expected != b.version || d.fence != b.s.ZkControllerEpochZkVersion || !bytes.Equal(d.content, a.content) {
			continue
		}
		marks := make([]bool, len(a.ops))
		for j, i := range a.ops {
			marks[j] = d.ops[keyOf(b.plan.ops[i])]
		}
		out = append(out, marks)
	}
	return out
}
