package jvm

// hashed is a key with its String.hashCode.
type hashed struct {
	key  string
	hash int32
}

// distinctHashed returns the distinct keys in order of first occurrence,
// with their hash codes.
func distinctHashed(keys []string) []hashed {
	seen := make(map[string]bool, len(keys))
	out := make([]hashed, 0, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, hashed{key: k, hash: StringHash(k)})
	}
	return out
}

// spreadHash is the hash by which java.util.HashMap picks a bin: the hash
// code with its upper half folded into its lower half.
func spreadHash(h int32) uint32 {
	u := uint32(h)
	return u ^ u>>16
}

// Sizes shared by java.util.HashMap and ConcurrentHashMap.
const (
	initialTableLen = 16
	// treeifyThreshold is the bin length beyond which a bin becomes a
	// tree once the table is at least minTreeifyTableLen long; below that
	// the table grows instead.
	treeifyThreshold   = 8
	minTreeifyTableLen = 64
)

// HashMapOrder returns the iteration order of a java.util.HashMap created
// with new HashMap<>() after keys are put in the given order; putting a
// key again does not move it.
//
// The model: 16 bins at the first put; a key's bin is (h ^ h>>>16) & (n-1)
// for the String hash code h; new keys are appended to their bin; the
// table doubles when the size exceeds 3/4 of n, each bin splitting into
// the keys that stay and those that move up by n, both in their order;
// appending a ninth key to a bin of a table shorter than 64 doubles it too.
// Iteration is by ascending bin, each front to back.
//
// Not modelled: a bin of nine or more keys in a table of 64 bins or more,
// which Java turns into a red-black tree with an order of its own. Such
// bins need many keys whose hashes agree in their low six bits or more;
// for them the result is the order the bin would have as a list, which
// may differ from Java's.
func HashMapOrder(keys []string) []string {
	var table [][]hashed
	size := 0
	for _, e := range distinctHashed(keys) {
		if table == nil {
			table = make([][]hashed, initialTableLen)
		}
		i := spreadHash(e.hash) & uint32(len(table)-1)
		bin := table[i]
		table[i] = append(bin, e)
		if len(bin) >= treeifyThreshold && len(table) < minTreeifyTableLen {
			table = splitTable(table)
		}
		size++
		if size > len(table)/4*3 {
			table = splitTable(table)
		}
	}
	return flatten(table)
}

// splitTable doubles a HashMap table, keeping the order of the keys of
// each bin in both halves.
func splitTable(table [][]hashed) [][]hashed {
	n := uint32(len(table))
	next := make([][]hashed, 2*n)
	for i, bin := range table {
		for _, e := range bin {
			j := uint32(i)
			if spreadHash(e.hash)&n != 0 {
				j += n
			}
			next[j] = append(next[j], e)
		}
	}
	return next
}

// flatten lists the keys of a table by ascending bin, each bin front to
// back.
func flatten(table [][]hashed) []string {
	var out []string
	for _, bin := range table {
		for _, e := range bin {
			out = append(out, e.key)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}
