package jdktest

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// runeClasses returns the pools random strings draw their characters
// from: what config keys and names usually hold, and what escaping,
// hashing and ordering get wrong most easily.
func runeClasses() [][2]rune {
	return [][2]rune{
		{'a', 'z'}, {'a', 'z'}, {'a', 'z'}, {'A', 'Z'}, {'0', '9'},
		{'.', '.'}, {'_', '_'}, {'-', '-'}, {' ', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'},
		{0x00, 0x1F},     // control characters
		{'"', '"'},       // quote
		{'\\', '\\'},     // backslash
		{0x7F, 0x7F},     // DEL
		{0x80, 0xFF},     // Latin-1 supplement, C1 controls included
		{0x2028, 0x2029}, // line and paragraph separators
		{0x4E00, 0x4E80}, // CJK
		{0xE000, 0xFFFD}, // above the surrogates: sorts after them in Java
		{0x10000, 0x1F64F},
		{0x10FFF0, 0x10FFFF},
	}
}

// RandomString returns a valid UTF-8 string of up to maxLen characters,
// drawn mostly from ASCII letters but from every class of runeClasses.
// It never holds a surrogate, so a Java string holds the same characters.
func RandomString(rng *rand.Rand, maxLen int) string {
	classes := runeClasses()
	n := rng.IntN(maxLen + 1)
	var b strings.Builder
	for range n {
		c := classes[rng.IntN(len(classes))]
		r := c[0] + rng.Int32N(c[1]-c[0]+1)
		if !utf8.ValidRune(r) {
			r = 'x'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// RandomKeys returns n random strings of up to maxLen characters; some
// repeat an earlier one when repeats is true.
func RandomKeys(rng *rand.Rand, n, maxLen int, repeats bool) []string {
	keys := make([]string, 0, n)
	for range n {
		if repeats && len(keys) > 0 && rng.IntN(10) == 0 {
			keys = append(keys, keys[rng.IntN(len(keys))])
			continue
		}
		keys = append(keys, RandomString(rng, maxLen))
	}
	return keys
}

// binMask64 selects the bits that pick one of 64 bins.
const binMask64 = 63

// spread64 returns the bin of s in a 64-bin java.util.HashMap.
func spread64(s string) uint32 {
	h := uint32(jvm.StringHash(s))
	return (h ^ h>>16) & binMask64
}

// ClusteredKeys returns n distinct keys that crowd few bins of a 16-bin
// table, so that bins hold several keys, split on every resize and,
// beyond eight, make a ConcurrentHashMap presize; equal hash codes are
// among them ("Aa" and "BB" hash alike). No more than eight share a bin
// of 64, so that no bin ever becomes a tree, which the models leave out.
func ClusteredKeys(rng *rand.Rand, n int) []string {
	targets := []uint32{rng.Uint32N(16), rng.Uint32N(16), rng.Uint32N(16)}
	perBin := map[uint32]int{}
	seen := map[string]bool{}
	keys := make([]string, 0, n)
	for _, k := range equalHashKeys(rng) {
		if len(keys) < n/2 {
			keys = append(keys, k)
			seen[k] = true
			perBin[spread64(k)]++
		}
	}
	for tries := 0; len(keys) < n && tries < 100000; tries++ {
		k := RandomString(rng, 4)
		b := spread64(k)
		if seen[k] || perBin[b] >= 8 || b&15 != targets[rng.IntN(len(targets))] {
			continue
		}
		seen[k] = true
		perBin[b]++
		keys = append(keys, k)
	}
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

// equalHashKeys returns up to eight distinct strings with one hash code,
// built from the equal-hash pair "Aa" and "BB" behind a random prefix.
func equalHashKeys(rng *rand.Rand) []string {
	prefix := RandomString(rng, 3)
	var keys []string
	for i := range 1 + rng.IntN(8) {
		k := prefix
		for bit := range 3 {
			if i>>bit&1 == 0 {
				k += "Aa"
			} else {
				k += "BB"
			}
		}
		keys = append(keys, k)
	}
	return keys
}
