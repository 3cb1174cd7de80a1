package scalaorder

// champBitsPerLevel is how many hash bits select a slot at each level of a
// Scala 2.13 immutable.HashMap trie.
const champBitsPerLevel = 5

// champHashBits is the width of the hash; below it, keys with equal hashes
// share a collision node.
const champHashBits = 32

// champEntry is a key and its improved hash.
type champEntry struct {
	key  string
	hash int32
}

// improveHash is the bit mixer Scala 2.13 applies to a key's hashCode
// before filing it in an immutable.HashMap:
// h = x + ~(x << 9); h ^= h >>> 14; h += h << 4; h ^= h >>> 10.
func improveHash(x int32) int32 {
	h := x + ^(x << 9)
	h ^= int32(uint32(h) >> 14)
	h += h << 4
	return h ^ int32(uint32(h)>>10)
}

// champSlot returns the slot, 0 to 31, of an improved hash at a trie level
// (0 at the root): (h >>> 5*level) & 31.
func champSlot(hash int32, level int) int {
	return int(uint32(hash) >> (champBitsPerLevel * level) & 31)
}

// ImmutableHashMapOrder returns the iteration order of a Scala 2.13
// immutable.HashMap (a CHAMP trie) holding keys, put in the given order. A
// repeated key keeps its place. Maps of one to four keys are Map1 to Map4,
// which iterate in insertion order instead; this function is for five keys
// or more, such as an immutable map made with toMap from a larger map.
//
// Each key is filed by its improved hash (see improveHash), five bits per
// level from the least significant. A node emits first the keys alone in
// their slot, in ascending slot order, then the sub-nodes of shared slots,
// in ascending slot order, each in the same way: a pre-order walk. Keys with
// equal hashes share a collision node in insertion order. Otherwise the
// order depends on the set of keys only.
func ImmutableHashMapOrder(keys []string) []string {
	entries := make([]champEntry, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		entries = append(entries, champEntry{k, improveHash(javaStringHash(k))})
	}
	return appendChampNode(make([]string, 0, len(entries)), entries, 0)
}

// appendChampNode appends the keys of the trie node holding entries at a
// level, in iteration order.
func appendChampNode(order []string, entries []champEntry, level int) []string {
	if len(entries) <= 1 || champBitsPerLevel*level >= champHashBits {
		// A single key, or a collision node: insertion order.
		for _, e := range entries {
			order = append(order, e.key)
		}
		return order
	}
	var slots [32][]champEntry
	for _, e := range entries {
		s := champSlot(e.hash, level)
		slots[s] = append(slots[s], e)
	}
	for _, slot := range slots {
		if len(slot) == 1 {
			order = append(order, slot[0].key)
		}
	}
	for _, slot := range slots {
		if len(slot) > 1 {
			order = appendChampNode(order, slot, level+1)
		}
	}
	return order
}
