package torture

import (
	"math/rand"
	"slices"
	"testing"
)

// Fault: none (the driver's choice of variants, no server). A run that
// covers a kind with variants draws each variant it has not held before
// any it has, and counts the kind as lacking until it held every one.
func TestVariantsCovered(t *testing.T) {
	const kind = "k"
	d := &driver{cfg: Config{Cover: []string{kind}}, rng: rand.New(rand.NewSource(1)),
		faults: map[string]int{}, variants: map[string][]bool{}}
	d.faults[kind] = 1
	seen := map[int]bool{}
	for range 3 {
		v := d.variant(kind, 3)
		if seen[v] {
			t.Fatalf("variant %d drawn again before the others were held (held %v)", v, seen)
		}
		if !slices.Contains(d.uncovered(), kind) {
			t.Fatalf("kind covered with variants %v held of 3", seen)
		}
		seen[v] = true
		d.heldVariant(kind, v)
	}
	if slices.Contains(d.uncovered(), kind) {
		t.Fatalf("kind still lacking once each variant was held")
	}
	if v := d.variant(kind, 3); v < 0 || v >= 3 {
		t.Fatalf("variant %d of 3", v)
	}
}
