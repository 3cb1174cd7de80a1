package kraftlog

import "github.com/kraftmigration/zkwriter/migrationzk/znode"

// Uuid is Kafka's 128-bit identifier, as package znode holds it.
type Uuid = znode.Uuid

// intChunk is how many int32s Alloc carves its small slices from at once.
const intChunk = 1024

// Alloc provides the memory decoded records hold. The zero Alloc, and a
// nil one, allocate every string and slice on its own. An Alloc made by
// NewAlloc interns strings and carves small []int32 out of shared chunks,
// so that a replay of many records allocates little; with ReuseUUIDs set,
// the []Uuid it returns are valid only until the next record is decoded.
// An Alloc is not safe for concurrent use.
type Alloc struct {
	intern map[string]string
	// ints is the chunk small []int32 are carved from, its first used
	// ints taken: a count moves on, not a slice, so that no write
	// barrier runs for each slice carved.
	ints  []int32
	used  int
	uuids []Uuid
	// ReuseUUIDs makes Uuids return a slice of one buffer, overwritten
	// by the next call: for a caller that copies what it keeps.
	ReuseUUIDs bool
	// r is the reader of the record being decoded.
	r reader
}

// NewAlloc returns an Alloc that interns strings and carves []int32 from
// chunks.
func NewAlloc() *Alloc { return &Alloc{intern: map[string]string{}} }

// String returns b as a string, the same string for equal bytes when a
// is interning. The string never shares memory with b.
func (a *Alloc) String(b []byte) string {
	if a == nil || a.intern == nil {
		return string(b)
	}
	if s, ok := a.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	a.intern[s] = s
	return s
}

// Int32s returns a slice of n zero int32s whose capacity is n, so that an
// append to it never writes into another slice.
func (a *Alloc) Int32s(n int) []int32 {
	if a == nil || a.intern == nil || n > intChunk/4 {
		return make([]int32, n)
	}
	if len(a.ints)-a.used < n {
		a.ints, a.used = make([]int32, intChunk), 0
	}
	s := a.ints[a.used : a.used+n : a.used+n]
	a.used += n
	return s
}

// Uuids returns a slice of n Uuids; with ReuseUUIDs, one valid only until
// the next call.
func (a *Alloc) Uuids(n int) []Uuid {
	if a == nil || !a.ReuseUUIDs {
		return make([]Uuid, n)
	}
	if cap(a.uuids) < n {
		a.uuids = make([]Uuid, n)
	}
	return a.uuids[:n]
}
