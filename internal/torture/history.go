package torture

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// migrationGroup names the group of /migration and /controller_epoch.
const migrationGroup = "/migration"

// span is the time a call took, in nanoseconds since the run started.
type span struct {
	Call, Return int64
}

// foreignWrite is a write by someone other than the writer under test: the
// test's own conflicting writes. Landed says it was acknowledged; Version
// is the version it produced then.
type foreignWrite struct {
	span
	Landed  bool
	Version int32
}

// conflictReport is a conflict the library reported on Path: for a
// /migration conflict, the state it wrote from was learned by a call that
// started at Since.
type conflictReport struct {
	Path  string
	Since int64
	At    span
	What  string
}

// success is a write the library reported landed on Path at Version; the
// version it was conditioned on was learned from a call that returned at
// Learned (-1 when unknown).
type success struct {
	Path    string
	Version int32
	Learned int64
	At      span
	Client  int
	What    string
}

// history records every call and its outcome, as operations of the model
// of each group, and the facts the other checks need.
type history struct {
	start time.Time

	mu        sync.Mutex
	groups    map[string][]op
	init      map[string]slots
	foreign   map[string][]foreignWrite
	conflicts []conflictReport
	successes []success
}

// newHistory returns an empty history whose clock starts now.
func newHistory() *history {
	return &history{
		start:   time.Now(),
		groups:  map[string][]op{},
		init:    map[string]slots{},
		foreign: map[string][]foreignWrite{},
	}
}

// now is the time since the run started, in nanoseconds.
func (h *history) now() int64 { return int64(time.Since(h.start)) }

// add records o in the history of group.
func (h *history) add(group string, o op) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.groups[group] = append(h.groups[group], o)
}

// setInit sets the state group is in when the run starts.
func (h *history) setInit(group string, s slots) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init[group] = s
}

// addForeign records a foreign write on path.
func (h *history) addForeign(path string, f foreignWrite) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.foreign[path] = append(h.foreign[path], f)
}

// addConflict records a conflict the library reported.
func (h *history) addConflict(c conflictReport) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conflicts = append(h.conflicts, c)
}

// addSuccess records a write the library reported landed.
func (h *history) addSuccess(s success) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.successes = append(h.successes, s)
}

// foreignDuring reports whether a foreign write on path overlapped the
// interval [from, to].
func (h *history) foreignDuring(path string, from, to int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.foreign[path] {
		if f.Call <= to && f.Return >= from {
			return true
		}
	}
	return false
}

// size returns the number of recorded operations.
func (h *history) size() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ops := range h.groups {
		n += len(ops)
	}
	return n
}

// check runs every check over the recorded history and returns the
// anomalies found.
func (h *history) check(timeout time.Duration) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	anomalies := h.nonLinearizable(timeout)
	anomalies = append(anomalies, h.falseConflicts()...)
	anomalies = append(anomalies, h.missedConflicts()...)
	return anomalies
}

// nonLinearizable checks the linearizability of every group, in the order
// of their names, and describes those that are not. h.mu must be held.
func (h *history) nonLinearizable(timeout time.Duration) []string {
	var anomalies []string
	names := make([]string, 0, len(h.groups))
	for g := range h.groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		n := 1
		if g == migrationGroup {
			n = 2
		}
		if msg := checkGroup(g, h.init[g], h.groups[g], n, timeout); msg != "" {
			anomalies = append(anomalies, msg)
		}
	}
	return anomalies
}

// falseConflicts finds conflicts with no foreign write on their path since
// the writer learned the version it wrote from. h.mu must be held.
func (h *history) falseConflicts() []string {
	var anomalies []string
	for _, c := range h.conflicts {
		legit := false
		for _, f := range h.foreign[c.Path] {
			if f.Call <= c.At.Return && f.Return >= c.Since {
				legit = true
				break
			}
		}
		if !legit {
			anomalies = append(anomalies, fmt.Sprintf("false conflict on %s at [%d, %d] (%s): no foreign write since %d", c.Path, c.At.Call, c.At.Return, c.What, c.Since))
		}
	}
	return anomalies
}

// missedConflicts finds successes although a foreign write landed between
// the moment the writer learned its version and the moment it wrote, and
// lost or duplicated versions: two acknowledged writes producing the same
// version of a znode. h.mu must be held.
func (h *history) missedConflicts() []string {
	var anomalies []string
	produced := map[string]map[int32]string{}
	mark := func(path string, v int32, what string) {
		if produced[path] == nil {
			produced[path] = map[int32]string{}
		}
		if prev, dup := produced[path][v]; dup {
			anomalies = append(anomalies, fmt.Sprintf("missed conflict: two writes produced %s version %d: %s and %s", path, v, prev, what))
		}
		produced[path][v] = what
	}
	for _, s := range h.successes {
		for _, f := range h.foreign[s.Path] {
			if f.Landed && s.Learned >= 0 && f.Call > s.Learned && f.Return < s.At.Call {
				anomalies = append(anomalies, fmt.Sprintf("missed conflict on %s: %s succeeded at version %d although a foreign write landed at version %d in between", s.Path, s.What, s.Version, f.Version))
			}
		}
		mark(s.Path, s.Version, fmt.Sprintf("client %d %s at [%d, %d]", s.Client, s.What, s.At.Call, s.At.Return))
	}
	for path, fs := range h.foreign {
		for _, f := range fs {
			if f.Landed {
				mark(path, f.Version, fmt.Sprintf("foreign write at [%d, %d]", f.Call, f.Return))
			}
		}
	}
	return anomalies
}
