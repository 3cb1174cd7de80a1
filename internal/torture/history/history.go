package history

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// MigrationGroup names the group of /migration and /controller_epoch.
const MigrationGroup = "/migration"

// Span is the time a call took, in nanoseconds since the run started.
type Span struct {
	Call, Return int64
}

// ForeignWrite is a write by someone other than the writer under test: the
// test's own conflicting writes. Landed says it was acknowledged; Version
// is the version it produced then.
type ForeignWrite struct {
	Span
	Landed  bool
	Version int32
}

// ConflictReport is a conflict the library reported on Path: for a
// /migration conflict, the state it wrote from was learned by a call that
// started at Since.
type ConflictReport struct {
	Path  string
	Since int64
	At    Span
	What  string
	// Also are the znodes whose foreign writes explain the conflict too:
	// the call's payloads, when /migration was found holding the call's
	// own checkpoint content and the library judged by the ops whether
	// its transaction wrote it (a foreign write to one of them takes
	// that proof away).
	Also []string
}

// Success is a write the library reported landed on Path at Version; the
// version it was conditioned on was learned from a call that returned at
// Learned (-1 when unknown).
type Success struct {
	Path    string
	Version int32
	// Data is what the write put there, when the check needs it.
	Data    string
	Learned int64
	At      Span
	Client  int
	What    string
}

// History records every call and its outcome, as operations of the model
// of each group, and the facts the other checks need.
type History struct {
	// root is the cluster's root path, which the paths recorded start
	// with (/migration's group excepted).
	root  string
	start time.Time

	mu        sync.Mutex
	groups    map[string][]Op
	init      map[string]Slots
	foreign   map[string][]ForeignWrite
	conflicts []ConflictReport
	successes []Success
	claims    []ClaimRecord
}

// New returns an empty history of a cluster under root, whose clock
// starts now.
func New(root string) *History {
	return &History{
		root:    root,
		start:   time.Now(),
		groups:  map[string][]Op{},
		init:    map[string]Slots{},
		foreign: map[string][]ForeignWrite{},
	}
}

// Now is the time since the run started, in nanoseconds.
func (h *History) Now() int64 { return int64(time.Since(h.start)) }

// Add records o in the history of group.
func (h *History) Add(group string, o Op) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.groups[group] = append(h.groups[group], o)
}

// SetInit sets the state group is in when the run starts.
func (h *History) SetInit(group string, s Slots) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init[group] = s
}

// AddForeign records a foreign write on path.
func (h *History) AddForeign(path string, f ForeignWrite) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.foreign[path] = append(h.foreign[path], f)
}

// AddConflict records a conflict the library reported.
func (h *History) AddConflict(c ConflictReport) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conflicts = append(h.conflicts, c)
}

// AddSuccess records a write the library reported landed.
func (h *History) AddSuccess(s Success) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.successes = append(h.successes, s)
}

// ForeignDuring reports whether a foreign write on path overlapped the
// interval [from, to].
func (h *History) ForeignDuring(path string, from, to int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.foreign[path] {
		if f.Call <= to && f.Return >= from {
			return true
		}
	}
	return false
}

// Size returns the number of recorded operations.
func (h *History) Size() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ops := range h.groups {
		n += len(ops)
	}
	return n
}

// Check runs every Check over the recorded history and returns what they
// found.
func (h *History) Check(timeout time.Duration) []Finding {
	h.mu.Lock()
	defer h.mu.Unlock()
	found := h.nonLinearizable(timeout)
	found = append(found, h.falseConflicts()...)
	found = append(found, h.missedConflicts()...)
	return append(found, h.invariants()...)
}

// nonLinearizable checks the linearizability of every group, in the order
// of their names, and describes those that are not. h.mu must be held.
func (h *History) nonLinearizable(timeout time.Duration) []Finding {
	var found []Finding
	names := make([]string, 0, len(h.groups))
	for g := range h.groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		n := 1
		if g == MigrationGroup {
			n = 2
		}
		if msg := checkGroup(g, h.init[g], h.groups[g], n, timeout); msg != "" {
			found = append(found, Finding{CheckLinearizable, msg})
		}
	}
	return found
}

// falseConflicts finds conflicts with no foreign write on their path since
// the writer learned the version it wrote from. h.mu must be held.
func (h *History) falseConflicts() []Finding {
	var found []Finding
	for _, c := range h.conflicts {
		if !h.foreignWriteBetween(c.Since, c.At.Return, append([]string{c.Path}, c.Also...)) {
			group := c.Path
			if group == h.root+MigrationGroup {
				group = MigrationGroup
			}
			recent := h.recent(group, c.At.Return)
			for _, p := range c.Also {
				recent += "\n  on " + p + ":" + h.recent(p, c.At.Return)
			}
			found = append(found, Finding{CheckFalseConflict, fmt.Sprintf("false conflict on %s at [%d, %d] (%s): no foreign write since %d%s",
				c.Path, c.At.Call, c.At.Return, c.What, c.Since, recent)})
		}
	}
	return found
}

// foreignWriteBetween reports whether a foreign write to one of paths
// may have happened between since and until.
func (h *History) foreignWriteBetween(since, until int64, paths []string) bool {
	for _, p := range paths {
		for _, f := range h.foreign[p] {
			if f.Call <= until && f.Return >= since {
				return true
			}
		}
	}
	return false
}

// missedConflicts finds successes although a foreign write landed between
// the moment the writer learned its version and the moment it wrote, and
// lost or duplicated versions: two acknowledged writes producing the same
// version of a znode (that was never deleted: one created again starts
// over). Of /controller_epoch, that is a claim that reported a fence
// another party made. h.mu must be held.
func (h *History) missedConflicts() []Finding {
	var found []Finding
	produced := map[string]map[int32]string{}
	deleted := h.deletedPaths()
	mark := func(path string, v int32, what string, at int64) {
		if v < 0 || deleted[path] {
			return
		}
		if produced[path] == nil {
			produced[path] = map[int32]string{}
		}
		if prev, dup := produced[path][v]; dup {
			check := CheckMissedConflict
			if path == h.epochPath() {
				check = CheckFenceAdopted
			}
			found = append(found, Finding{check, fmt.Sprintf("two writes produced %s version %d: %s and %s; the last operations on it:%s",
				path, v, prev, what, h.recent(path, at))})
		}
		produced[path][v] = what
	}
	for _, s := range h.successes {
		// Versions only grow on a znode never deleted: there a write
		// conditioned on a version learned before another party's write
		// must be refused.
		for _, f := range h.foreign[s.Path] {
			if f.Landed && !deleted[s.Path] && s.Learned >= 0 && f.Call > s.Learned && f.Return < s.At.Call {
				found = append(found, Finding{CheckMissedConflict, fmt.Sprintf("missed conflict on %s: %s succeeded at version %d although a foreign write landed at version %d in between", s.Path, s.What, s.Version, f.Version)})
			}
		}
		mark(s.Path, s.Version, fmt.Sprintf("client %d %s at [%d, %d]", s.Client, s.What, s.At.Call, s.At.Return), s.At.Return)
	}
	for path, fs := range h.foreign {
		for _, f := range fs {
			if f.Landed {
				mark(path, f.Version, fmt.Sprintf("foreign write at [%d, %d]", f.Call, f.Return), f.Return)
			}
		}
	}
	return found
}

// deletedPaths returns the paths a delete landed on or may have landed
// on, the writer's or a foreign one. h.mu must be held.
func (h *History) deletedPaths() map[string]bool {
	deleted := map[string]bool{}
	for _, s := range h.successes {
		if s.Version < 0 {
			deleted[s.Path] = true
		}
	}
	for path, fs := range h.foreign {
		for _, f := range fs {
			if f.Landed && f.Version < 0 {
				deleted[path] = true
			}
		}
	}
	// A delete whose outcome was never known may have happened too.
	for path, ops := range h.groups {
		for _, o := range ops {
			for _, e := range o.Step.Effects {
				if e.Delete {
					deleted[path] = true
				}
			}
		}
	}
	return deleted
}

// Recent describes the last operations on group that were called before
// until, for a report.
func (h *History) Recent(group string, until int64) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recent(group, until)
}

// ForeignPaths returns the paths other parties wrote, or may have written,
// each once.
func (h *History) ForeignPaths() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	paths := make([]string, 0, len(h.foreign))
	for p := range h.foreign {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// recent describes the last operations on group that were called before
// until, for a report. h.mu must be held.
func (h *History) recent(group string, until int64) string {
	var ops []Op
	for _, o := range h.groups[group] {
		if o.Call <= until {
			ops = append(ops, o)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	var b strings.Builder
	for _, o := range ops[max(0, len(ops)-12):] {
		ret := "∞"
		if o.Return != Never {
			ret = fmt.Sprint(o.Return)
		}
		fmt.Fprintf(&b, "\n  client %d [%d, %s] %v", o.Client, o.Call, ret, o.Step)
	}
	return b.String()
}

// ExplainsRefusal reports whether a write to path, or above or below it,
// explains a refusal at at of a transaction a client planned from what it
// remembered of path since since (-1: never learned): a write that may
// have landed after since, and called before at. Of the client's own
// writes (own says which, and when the first attempt of the call that
// made one returned) only one in doubt when its call returned, before
// since: the client must remember what it wrote, and forget what it left
// in doubt.
func (h *History) ExplainsRefusal(path string, since, at int64, own func(Op) (returned int64, ok bool)) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for group, ops := range h.groups {
		if group != path && !strings.HasPrefix(path, group+"/") && !strings.HasPrefix(group, path+"/") {
			continue
		}
		for _, o := range ops {
			if len(o.Step.Effects) == 0 || o.Step.Kind == StepRefused || o.Call >= at {
				continue
			}
			if ret, mine := own(o); mine && ret >= since {
				continue
			}
			if o.Return > since {
				return true
			}
		}
	}
	return false
}
