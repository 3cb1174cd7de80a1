package scalaorder

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// MutableHashMapOrderOfDecimals gives the positions of the ids the order
// MutableHashMapOrder gives their decimal strings put in ascending order of the ids: dense ids
// across every table growth up to 3,000 keys, sparse and negative ids, ids
// of up to ten digits, whose hashes wrap and collide, each set given in
// ascending, descending and shuffled order.
func TestMutableHashMapOrderOfDecimals(t *testing.T) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 1))
	var cases [][]int32
	for n := 0; n <= 3000; n += 1 + n/8 {
		cases = append(cases, denseIDs(n))
	}
	for range 200 {
		ids := map[int32]bool{}
		for n := rng.IntN(2000); len(ids) < n; {
			switch rng.IntN(3) {
			case 0:
				ids[rng.Int32N(5000)] = true
			case 1:
				ids[rng.Int32()] = true
			default:
				ids[-rng.Int32N(math.MaxInt32)-1] = true
			}
		}
		c := make([]int32, 0, len(ids))
		for id := range ids {
			c = append(c, id)
		}
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		cases = append(cases, c)
	}
	cases = append(cases, collidingIDs(), []int32{math.MinInt32, math.MaxInt32, 0, -1})
	for k, ids := range cases {
		ascending := slices.Sorted(slices.Values(ids))
		keys := make([]string, len(ids))
		for i, id := range ascending {
			keys[i] = strconv.Itoa(int(id))
		}
		want := MutableHashMapOrder(keys)
		given := slices.Clone(ids)
		switch k % 3 {
		case 0:
			given = ascending
		case 1:
			slices.Reverse(given)
		}
		got := MutableHashMapOrderOfDecimals(given)
		gotKeys := make([]string, len(got))
		for i, at := range got {
			gotKeys[i] = strconv.Itoa(int(given[at]))
		}
		if !slices.Equal(gotKeys, want) {
			t.Fatalf("seed %d: %d ids %v...: got %v..., want %v...", seed, len(ids), ids[:min(len(ids), 5)], gotKeys[:min(len(got), 5)], want[:min(len(want), 5)])
		}
	}
}

// collidingIDs returns ids in pairs whose decimal strings share one
// String.hashCode (found by a search over ten-digit ids), among other
// ids, so that the order of the puts decides.
func collidingIDs() []int32 {
	return []int32{1400090000, 7, 1093703041, 1800104007, 12, 1024090230, 1400088130, 1098200005, 0}
}

func denseIDs(n int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	return ids
}
