package jvm

// PropertiesOrder returns the iteration order of a java.util.Properties of
// JDK 9 or later, created with new Properties(), after keys are put in the
// given order; putting a key again does not move it. Java 8's Properties,
// a Hashtable, orders keys differently and is not covered.
//
// Such a Properties keeps its entries in a ConcurrentHashMap created with
// capacity 8, modelled single-threaded:
//   - 16 bins at the first put; a key's bin is
//     (h ^ h>>>16) & 0x7FFFFFFF & (n-1) for the String hash code h; new
//     keys are appended to their bin; iteration is by ascending bin, each
//     front to back.
//   - Once the size reaches 3/4 of n the table doubles. Each bin is moved
//     as Java's transfer moves it: its longest tail of keys that all go to
//     the same half moves as is, and the keys before that tail are
//     prepended one by one to the bin they go to, so that they end up in
//     reverse order in front of it.
//   - Meeting a bin of eight keys or more while putting a key into it, in
//     a table shorter than 64 bins, presizes the table: it doubles until
//     3/4 of its length is at least four times its former length (16
//     bins become 128).
//
// Not modelled: a bin of nine or more keys in a table of 64 bins or more,
// which becomes a tree with an order of its own (see HashMapOrder).
func PropertiesOrder(keys []string) []string {
	var table [][]hashed
	size := 0
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		e := hashed{key: k, hash: StringHash(k)}
		if table == nil {
			table = make([][]hashed, initialTableLen)
		}
		i := concurrentBin(e.hash, len(table))
		depth := binDepth(table[i], k, seen[k])
		if !seen[k] {
			table[i] = append(table[i], e)
		}
		if depth >= treeifyThreshold && len(table) < minTreeifyTableLen {
			table = presize(table)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		size++
		for size >= len(table)-len(table)/4 {
			table = transfer(table)
		}
	}
	return flatten(table)
}

// concurrentBin returns the bin of a hash code in a ConcurrentHashMap
// table of n bins.
func concurrentBin(h int32, n int) int {
	return int(spreadHash(h) & 0x7FFFFFFF & uint32(n-1))
}

// binDepth returns how many keys of bin ConcurrentHashMap.putVal walks
// when putting key: up to and including key when present, else all of
// them.
func binDepth(bin []hashed, key string, present bool) int {
	if present {
		for i, e := range bin {
			if e.key == key {
				return i + 1
			}
		}
	}
	return len(bin)
}

// presize doubles the table of n bins until 3/4 of its length is at least
// 4n, as tryPresize(2n) does.
func presize(table [][]hashed) [][]hashed {
	target := 4 * len(table)
	for len(table)-len(table)/4 < target {
		table = transfer(table)
	}
	return table
}

// transfer doubles a ConcurrentHashMap table the way its transfer moves
// each list bin.
func transfer(table [][]hashed) [][]hashed {
	n := len(table)
	next := make([][]hashed, 2*n)
	for i, bin := range table {
		if len(bin) == 0 {
			continue
		}
		half := func(e hashed) bool { return spreadHash(e.hash)&uint32(n) != 0 }
		runStart := len(bin) - 1
		for runStart > 0 && half(bin[runStart-1]) == half(bin[len(bin)-1]) {
			runStart--
		}
		var low, high []hashed
		if half(bin[runStart]) {
			high = append(high, bin[runStart:]...)
		} else {
			low = append(low, bin[runStart:]...)
		}
		for _, e := range bin[:runStart] {
			if half(e) {
				high = append([]hashed{e}, high...)
			} else {
				low = append([]hashed{e}, low...)
			}
		}
		next[i], next[i+n] = low, high
	}
	return next
}
