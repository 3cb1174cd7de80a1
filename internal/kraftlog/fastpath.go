package kraftlog

import "encoding/binary"

// The common shape of a PartitionRecord, read without the reader's
// checks field by field: arrays of fewer than 127 elements, no tagged
// fields. Anything else, errors included, goes the general way, which
// reads what this reads to the same record.

// PartitionHead is a PartitionRecord of the common shape read without
// building the record: its fields but the arrays, which ReplicaArrays
// returns, and the directories, all MIGRATING. A replay reads most of
// its partitions so: nothing is copied but what the image keeps, and h
// can live on its reader's stack.
type PartitionHead struct {
	PartitionID    int32
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	TopicID        Uuid
	// Directories is how many directories the record lists, each the
	// zero Uuid (MIGRATING); -1 for version 0, which has none.
	Directories int
	// ints holds the four replica arrays one after another, lens their
	// lengths; fixed is where the leader lies in the body, after them.
	ints  []int32
	lens  [4]uint8
	fixed int
}

// ReadPartitionHead sets h from f, a PartitionRecord, when it has the
// common shape (arrays of fewer than 127 elements, no tagged fields) and
// every directory it lists is MIGRATING, its arrays carved from al; it
// returns false, h unspecified and nothing allocated, for any other
// record, which DecodePartition decodes, or refuses.
func (f Frame) ReadPartitionHead(h *PartitionHead, al *Alloc) bool {
	return f.Type == PartitionRecordType && h.read(f.Body, f.Version, true, al)
}

// Replicas returns h's replicas.
func (h *PartitionHead) Replicas() []int32 {
	return nonNil(h.ints[:h.lens[0]:h.lens[0]])
}

// Isr returns h's in-sync replicas.
func (h *PartitionHead) Isr() []int32 {
	n0, n1 := int(h.lens[0]), int(h.lens[1])
	return nonNil(h.ints[n0 : n0+n1 : n0+n1])
}

// Reassignment returns h's RemovingReplicas and AddingReplicas, nil
// rather than empty: the replicas a reassignment in progress removes
// and adds.
func (h *PartitionHead) Reassignment() (removing, adding []int32) {
	n, n2 := int(h.lens[0])+int(h.lens[1]), int(h.lens[2])
	return nilIfEmpty(h.ints[n : n+n2 : n+n2]), nilIfEmpty(h.ints[n+n2:])
}

// read sets h from b, the body of a PartitionRecord of version v in the
// common shape, its arrays carved from al; false, nothing allocated, for
// any other, or for one with a directory other than MIGRATING when
// migrating is set.
func (h *PartitionHead) read(b []byte, v int16, migrating bool, al *Alloc) bool {
	// partition id and topic id, then four arrays of int32
	n0, p1 := compactLen(b, 20, 4)
	n1, p2 := compactLen(b, p1, 4)
	n2, p3 := compactLen(b, p2, 4)
	n3, fixed := compactLen(b, p3, 4)
	if n0|n1|n2|n3 < 0 {
		return false
	}
	dirs, end := -1, fixed+12 // after the leader, leader epoch, partition epoch
	if v >= 1 {
		if dirs, end = compactLen(b, end, 16); dirs < 0 {
			return false
		}
	}
	if end != len(b)-1 || b[end] != 0 { // no tagged fields, nothing after
		return false
	}
	if migrating && dirs > 0 && !zeroUuids(b[fixed+13:end]) {
		return false
	}
	f := b[fixed : fixed+12]
	h.PartitionID = int32(binary.BigEndian.Uint32(b[:4]))
	h.TopicID = uuidAt(b[4:20])
	h.Leader = int32(binary.BigEndian.Uint32(f[0:4]))
	h.LeaderEpoch = int32(binary.BigEndian.Uint32(f[4:8]))
	h.PartitionEpoch = int32(binary.BigEndian.Uint32(f[8:12]))
	h.Directories, h.fixed = dirs, fixed
	h.lens = [4]uint8{uint8(n0), uint8(n1), uint8(n2), uint8(n3)}
	all := al.Int32s(n0 + n1 + n2 + n3)
	int32sAt(all[:n0], b[21:])
	int32sAt(all[n0:n0+n1], b[p1+1:])
	if n2+n3 > 0 {
		int32sAt(all[n0+n1:n0+n1+n2], b[p2+1:])
		int32sAt(all[n0+n1+n2:], b[p3+1:])
	}
	h.ints = all
	return true
}

// int32sAt sets dst from the big-endian int32s src holds, as many.
func int32sAt(dst []int32, src []byte) {
	switch len(dst) {
	case 0:
	case 3: // three replicas, the most common
		s, d := src[:12], dst[:3]
		d[0], d[1], d[2] = int32(binary.BigEndian.Uint32(s[0:4])), int32(binary.BigEndian.Uint32(s[4:8])), int32(binary.BigEndian.Uint32(s[8:12]))
	default:
		for i := range dst {
			dst[i] = int32(binary.BigEndian.Uint32(src[4*i:]))
		}
	}
}

// record returns the PartitionRecord of b, the body of version v h was
// read from, its directories carved from al.
func (h *PartitionHead) record(b []byte, v int16, al *Alloc) PartitionRecord {
	m := PartitionRecord{PartitionID: h.PartitionID, TopicID: h.TopicID, Leader: h.Leader,
		LeaderEpoch: h.LeaderEpoch, PartitionEpoch: h.PartitionEpoch}
	removing, adding := h.Reassignment()
	m.Replicas, m.Isr, m.RemovingReplicas, m.AddingReplicas = h.Replicas(), h.Isr(), nonNil(removing), nonNil(adding)
	if v >= 1 {
		m.Directories = uuidsAt(al.Uuids(h.Directories), b[h.fixed+13:])
	}
	return m
}

// zeroUuids reports whether the Uuids b holds are all zero: MIGRATING.
func zeroUuids(b []byte) bool {
	if len(b) == 48 { // three replicas' directories, the most common
		s := b[:48]
		return binary.LittleEndian.Uint64(s[0:8])|binary.LittleEndian.Uint64(s[8:16])|binary.LittleEndian.Uint64(s[16:24])|
			binary.LittleEndian.Uint64(s[24:32])|binary.LittleEndian.Uint64(s[32:40])|binary.LittleEndian.Uint64(s[40:48]) == 0
	}
	var or uint64
	for i := 0; i+16 <= len(b); i += 16 {
		or |= binary.LittleEndian.Uint64(b[i:i+8]) | binary.LittleEndian.Uint64(b[i+8:i+16])
	}
	return or == 0
}

// compactLen reads the length of a compact array of elements of size
// bytes at off, and returns it with the offset after the array; -1 for
// a null array, one of 127 elements or more, or one that does not fit
// in b.
func compactLen(b []byte, off, size int) (int, int) {
	if off >= len(b) || b[off] == 0 || b[off] >= 0x80 {
		return -1, 0
	}
	n := int(b[off]) - 1
	next := off + 1 + size*n
	if next > len(b) {
		return -1, 0
	}
	return n, next
}

// nonNil returns a, or an empty slice for nil: a decoded array that is
// not nullable is never nil.
func nonNil(a []int32) []int32 {
	if a == nil {
		return []int32{}
	}
	return a
}

// nilIfEmpty returns a, or nil when it is empty.
func nilIfEmpty(a []int32) []int32 {
	if len(a) == 0 {
		return nil
	}
	return a
}

// uuidsAt fills dst with the Uuids at the start of src, which holds
// enough of them, and returns it.
func uuidsAt(dst []Uuid, src []byte) []Uuid {
	for i := range dst {
		dst[i] = uuidAt(src)
		src = src[16:]
	}
	return dst
}

// uuidAt reads the Uuid at the start of b, which holds at least 16 bytes.
func uuidAt(b []byte) Uuid {
	return Uuid{MostSignificantBits: int64(binary.BigEndian.Uint64(b)), LeastSignificantBits: int64(binary.BigEndian.Uint64(b[8:16]))}
}

// DecodePartition decodes f, a PartitionRecord, into m without an
// interface call.
func (f Frame) DecodePartition(m *PartitionRecord, al *Alloc) error {
	if f.Type != PartitionRecordType {
		return errorf(ErrUnknownType, "cannot decode a %s into a PartitionRecord", f.Type)
	}
	r := reader{b: f.Body, al: al}
	m.decode(&r, f.Version)
	r.end(PartitionRecordType)
	if r.err != nil {
		return r.err
	}
	return nil
}
