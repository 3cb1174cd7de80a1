package scalaorder

import "slices"

// MutableHashMapOrderOfDecimals returns the order MutableHashMapOrder gives
// the decimal strings of ids (strconv.Itoa) put in ascending order of the
// ids, as positions in ids: the keys of Kafka's partition-id maps, which it
// builds from integers in that order. ids must be distinct and may come in
// any order; they are neither formatted nor sorted first. It takes time
// linear in len(ids).
func MutableHashMapOrderOfDecimals(ids []int32) []int32 {
	tableLen := mutableHashMapTableLen(MutableHashMapDefaultCapacity)
	for n := 1; n <= len(ids); n++ {
		if n >= tableLen*3/4 && tableLen < mutableHashMapMaxTableLen {
			tableLen *= 2
		}
	}
	mask := uint32(tableLen - 1)
	hashes := decimalHashes(ids)
	starts := make([]int32, tableLen+1) // the first position of each bucket
	for i, h := range hashes {
		hashes[i] = h ^ int32(uint32(h)>>16)
		starts[uint32(hashes[i])&mask+1]++
	}
	for b := 1; b <= tableLen; b++ {
		starts[b] += starts[b-1]
	}
	order := make([]int32, len(ids))  // positions in ids
	spread := make([]int32, len(ids)) // the spread hash of order[i]
	next := slices.Clone(starts)      // the next free position of each bucket
	for i, id := range ids {
		b := uint32(hashes[i]) & mask
		at := next[b]
		next[b]++
		// Inside a bucket, by hash, then by id (the order of the puts).
		for at > starts[b] && (spread[at-1] > hashes[i] || spread[at-1] == hashes[i] && ids[order[at-1]] > id) {
			order[at], spread[at] = order[at-1], spread[at-1]
			at--
		}
		order[at], spread[at] = int32(i), hashes[i]
	}
	return order
}

// decimalHashes returns decimalHash of each of ids. Ids 0 to n-1 in
// order, as a topic's partitions mostly are, hash from the hash of their
// decimal string less its last digit, found before them.
func decimalHashes(ids []int32) []int32 {
	hashes := make([]int32, len(ids))
	for i, id := range ids {
		if id != int32(i) {
			for j, id := range ids[i:] {
				hashes[i+j] = decimalHash(id)
			}
			break
		}
		if i < 10 {
			hashes[i] = '0' + id
		} else {
			hashes[i] = 31*hashes[i/10] + '0' + id%10
		}
	}
	return hashes
}

// decimalHash is Java's String.hashCode of the decimal string of id.
func decimalHash(id int32) int32 {
	var buf [11]byte
	i := len(buf)
	u := int64(id)
	if u < 0 {
		u = -u
	}
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if id < 0 {
		i--
		buf[i] = '-'
	}
	var h int32
	for _, c := range buf[i:] {
		h = 31*h + int32(c)
	}
	return h
}
