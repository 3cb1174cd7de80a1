package migrationzk

import (
	"math/bits"
	"math/rand"
	"testing"
)

// paced is what writing one transaction through a pacer cost.
type paced struct {
	requests int // requests sent
	sent     int // ops sent, summed over the requests
	refused  int
}

// pace writes a transaction of n ops of the given sizes through a pacer
// against a ZooKeeper that refuses the ops for which refuse says so, and
// checks that the ops land in order and that each lands or is refused
// exactly once.
func pace(t *testing.T, n int, sizes []int, partLimit int, refuse func(i int) bool) paced {
	t.Helper()
	txn := make([]int, n)
	for i := range txn {
		txn[i] = i
	}
	p := newPacer(txn)
	var c paced
	settled := make([]bool, n)
	lastLanded := -1
	for {
		ops, all := p.request(sizes, partLimit)
		c.requests++
		c.sent += len(ops)
		if c.requests > 4*n+10 {
			t.Fatalf("%d requests for %d ops", c.requests, n)
		}
		bytes := 0
		for _, i := range ops {
			bytes += sizes[i]
		}
		if !all && bytes > partLimit {
			t.Fatalf("part of %d bytes, limit %d", bytes, partLimit)
		}
		k := -1
		for j, i := range ops {
			if refuse(i) {
				k = j
				break
			}
		}
		if k >= 0 {
			i := p.refuse(k)
			if i != ops[k] || settled[i] {
				t.Fatalf("refuse(%d) = %d, request held %d (settled before: %v)", k, i, ops[k], settled[i])
			}
			settled[i] = true
			c.refused++
			continue
		}
		for _, i := range ops {
			if settled[i] || i < lastLanded {
				t.Fatalf("op %d landed twice or out of order (after %d)", i, lastLanded)
			}
			settled[i], lastLanded = true, i
		}
		p.landed()
		if p.done() {
			if !all {
				t.Fatal("done after a request that was not all that was left")
			}
			break
		}
	}
	for i, ok := range settled {
		if !ok {
			t.Fatalf("op %d never landed nor was refused", i)
		}
	}
	return c
}

func uniform(n, size int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = size
	}
	return s
}

// A transaction without refusals goes in one request; the first
// freeResends refusals each cost one request that resends the rest.
func TestPacerFewRefusals(t *testing.T) {
	const n = 1000
	sizes := uniform(n, 100)
	for f := 0; f <= freeResends; f++ {
		c := pace(t, n, sizes, 1<<30, func(i int) bool { return i%400 == 399 && i/400 < f })
		if c.refused != f || c.requests != 1+f {
			t.Fatalf("%d refusals: %+v, want %d requests", f, c, 1+f)
		}
	}
}

// Whatever ZooKeeper refuses, the ops sent stay within a constant factor
// of the transaction: no pattern makes the work quadratic. Each refusal
// costs the refused request, at most one request for the ops known to
// pass, and the requests that grow the window back after it.
func TestPacerBoundedWork(t *testing.T) {
	const n = 5000
	sizes := uniform(n, 150)
	rng := rand.New(rand.NewSource(1))
	random := make([]bool, n)
	for i := range random {
		random[i] = rng.Intn(20) == 0
	}
	patterns := map[string]func(i int) bool{
		"every 100th": func(i int) bool { return i%100 == 50 },
		"every 10th":  func(i int) bool { return i%10 == 5 },
		"every 2nd":   func(i int) bool { return i%2 == 1 },
		"all":         func(i int) bool { return true },
		"last half":   func(i int) bool { return i >= n/2 },
		"first half":  func(i int) bool { return i < n/2 },
		"random 5%":   func(i int) bool { return random[i] },
		"bursts":      func(i int) bool { return i%1000 < 20 },
		"growing gaps": func(i int) bool {
			for g := 1; g <= i; g *= 2 {
				if i == g {
					return true
				}
			}
			return false
		},
	}
	for name, refuse := range patterns {
		c := pace(t, n, sizes, 1<<30, refuse)
		if c.sent > (freeResends+5)*n {
			t.Errorf("%s: %d ops sent for %d: %+v", name, c.sent, n, c)
		}
		if c.requests > c.refused*(2+bits.Len(n))+1 {
			t.Errorf("%s: %d requests for %d refusals", name, c.requests, c.refused)
		}
		t.Logf("%-12s %5d refused: %5d requests, %6d ops sent (%.1f per op)", name, c.refused, c.requests, c.sent, float64(c.sent)/n)
	}
}

// A part of a transaction holds no more bytes than allowed; one that could
// not hold even one op goes whole.
func TestPacerPartLimit(t *testing.T) {
	const n = 300
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = 50 + i%7*30
	}
	pace(t, n, sizes, 2000, func(i int) bool { return i%3 == 0 })
	pace(t, n, sizes, 10, func(i int) bool { return i%3 == 0 })
}
