// Package scalaorder reproduces the iteration order of Scala 2.13 hash maps
// with String keys. Kafka builds most of its ZooKeeper JSON from such maps and
// Jackson writes an object's keys in the map's iteration order, so the order
// is part of the bytes Kafka writes.
//
// The orders depend on Java's String.hashCode and on the map's internal
// layout; both are reproduced here on signed 32-bit arithmetic with
// wrap-around, as on the JVM.
package scalaorder

import (
	"cmp"
	"slices"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// javaStringHash returns Java's String.hashCode of s (jvm.StringHash).
func javaStringHash(s string) int32 { return jvm.StringHash(s) }

// MutableHashMapDefaultCapacity is the initial capacity of a Scala 2.13
// mutable.HashMap created empty, as by mutable.Map[String, V]().
const MutableHashMapDefaultCapacity = 16

// mutableHashMapMaxTableLen is the largest table a Scala 2.13
// mutable.HashMap allocates.
const mutableHashMapMaxTableLen = 1 << 30

// MutableHashMapOrder returns the iteration order of a Scala 2.13
// mutable.HashMap[String, V]() (default capacity 16) after putting keys in
// the given order. A repeated key keeps the place of its first put.
//
// The map spreads a key's hash as h = hashCode ^ (hashCode >>> 16) and
// files it in bucket h & (len-1). Before every put, if size+1 reaches
// 0.75*len, the table doubles. Inside a bucket entries are sorted by h as a
// signed int, equal h keeping insertion order; iteration visits the buckets
// in ascending order. With dense partition ids "0" to "10" this is
// ascending order, and the twelfth key grows the table and changes it.
func MutableHashMapOrder(keys []string) []string {
	return MutableHashMapOrderWithCapacity(MutableHashMapDefaultCapacity, keys)
}

// MutableHashMapOrderWithCapacity is MutableHashMapOrder for a map created
// with the given initial capacity; the table starts at
// 2*highestOneBit(max(capacity-1, 4)) buckets. A literal
// mutable.Map(k1 -> v1, ..., kn -> vn) is created with capacity
// floor((n+1)/0.75), for example 6 and a table of 8 for four pairs.
func MutableHashMapOrderWithCapacity(capacity int, keys []string) []string {
	tableLen := mutableHashMapTableLen(capacity)
	type entry struct {
		key  string
		hash int32
	}
	entries := make([]entry, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		// The growth check precedes the lookup: re-putting a present key
		// can grow the table too.
		if len(entries)+1 >= tableLen*3/4 && tableLen < mutableHashMapMaxTableLen {
			tableLen *= 2
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		h := javaStringHash(k)
		entries = append(entries, entry{k, h ^ int32(uint32(h)>>16)})
	}
	mask := uint32(tableLen - 1)
	slices.SortStableFunc(entries, func(a, b entry) int {
		if ba, bb := uint32(a.hash)&mask, uint32(b.hash)&mask; ba != bb {
			return cmp.Compare(ba, bb)
		}
		return cmp.Compare(a.hash, b.hash)
	})
	order := make([]string, len(entries))
	for i, e := range entries {
		order[i] = e.key
	}
	return order
}

// mutableHashMapTableLen returns the table length Scala 2.13 allocates for
// an initial capacity: 2*highestOneBit(max(capacity-1, 4)), at most 2^30.
func mutableHashMapTableLen(capacity int) int {
	c := max(capacity-1, 4)
	highest := 1
	for highest <= c/2 {
		highest *= 2
	}
	return min(2*highest, mutableHashMapMaxTableLen)
}
