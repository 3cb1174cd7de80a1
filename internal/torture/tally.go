package torture

import (
	"maps"
	"math/rand"
	"slices"
	"sync"
)

// tally counts the faults injected, by kind, and which variants of a
// kind with variants the run held, against the kinds the run must hold
// (Config.Cover).
type tally struct {
	cover    []string
	mu       sync.Mutex
	faults   map[string]int
	variants map[string][]bool
}

func newTally(cover []string) *tally {
	return &tally{cover: cover, faults: map[string]int{}, variants: map[string][]bool{}}
}

// count counts one injected fault of kind.
func (t *tally) count(kind string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.faults[kind]++
}

// of returns the number of faults of kind injected so far.
func (t *tally) of(kind string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.faults[kind]
}

// total returns the number of faults injected so far.
func (t *tally) total() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, c := range t.faults {
		n += c
	}
	return n
}

// counts returns the faults injected so far, by kind.
func (t *tally) counts() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.faults)
}

// uncovered returns the kinds of Config.Cover not injected yet, or not
// in each of their variants.
func (t *tally) uncovered() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var missing []string
	for _, kind := range t.cover {
		if t.faults[kind] == 0 || slices.Contains(t.variants[kind], false) {
			missing = append(missing, kind)
		}
	}
	return missing
}

// variant draws from rng which of n variants of a fault of kind to
// inject: one the run has not held yet while there is one, so that a run
// covering kind holds each (uncovered), else any. The fault reports the
// variant it held once it acted (held).
func (t *tally) variant(rng *rand.Rand, kind string, n int) int {
	t.mu.Lock()
	held := t.variants[kind]
	if held == nil {
		held = make([]bool, n)
		t.variants[kind] = held
	}
	var open []int
	for v, ok := range held {
		if !ok {
			open = append(open, v)
		}
	}
	t.mu.Unlock()
	if len(open) == 0 {
		return rng.Intn(n)
	}
	return open[rng.Intn(len(open))]
}

// held records that variant v of a fault of kind acted.
func (t *tally) held(kind string, v int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.variants[kind][v] = true
}
