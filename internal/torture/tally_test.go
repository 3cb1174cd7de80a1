package torture

import (
	"math/rand"
	"slices"
	"testing"
)

// Fault: none (the choice of variants, no server). A run that covers a
// kind with variants draws each variant it has not held before any it
// has, and counts the kind as lacking until it held every one.
func TestVariantsCovered(t *testing.T) {
	const kind = "k"
	tl, rng := newTally([]string{kind}), rand.New(rand.NewSource(1))
	tl.count(kind)
	seen := map[int]bool{}
	for range 3 {
		v := tl.variant(rng, kind, 3)
		if seen[v] {
			t.Fatalf("variant %d drawn again before the others were held (held %v)", v, seen)
		}
		if !slices.Contains(tl.uncovered(), kind) {
			t.Fatalf("kind covered with variants %v held of 3", seen)
		}
		seen[v] = true
		tl.held(kind, v)
	}
	if slices.Contains(tl.uncovered(), kind) {
		t.Fatalf("kind still lacking once each variant was held")
	}
	if v := tl.variant(rng, kind, 3); v < 0 || v >= 3 {
		t.Fatalf("variant %d of 3", v)
	}
}
