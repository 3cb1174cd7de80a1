package kraftlog

import "encoding/binary"

// The common shape of a PartitionRecord, read without the reader's
// checks field by field: arrays of fewer than 127 elements, no tagged
// fields. Anything else, errors included, goes the general way.

// decodePartitionFast decodes b as a PartitionRecord of version v in the
// common shape, and returns false, m unspecified, for any other.
func decodePartitionFast(m *PartitionRecord, b []byte, v int16, al *Alloc) bool {
	if len(b) < 20 {
		return false
	}
	*m = PartitionRecord{
		PartitionID: int32(binary.BigEndian.Uint32(b)),
		TopicID: Uuid{MostSignificantBits: int64(binary.BigEndian.Uint64(b[4:])),
			LeastSignificantBits: int64(binary.BigEndian.Uint64(b[12:]))},
	}
	off, ok := fastReplicaArrays(m, b, al)
	if !ok {
		return false
	}
	if len(b) < off+12 {
		return false
	}
	m.Leader = int32(binary.BigEndian.Uint32(b[off:]))
	m.LeaderEpoch = int32(binary.BigEndian.Uint32(b[off+4:]))
	m.PartitionEpoch = int32(binary.BigEndian.Uint32(b[off+8:]))
	off += 12
	if v >= 1 {
		if m.Directories, off, ok = fastUuids(b, off, al); !ok {
			return false
		}
	}
	return off == len(b)-1 && b[off] == 0 // no tagged fields, nothing after
}

// fastReplicaArrays reads a PartitionRecord's four replica arrays, each
// of fewer than 127 elements, into slices carved from one; it returns
// the offset after them.
func fastReplicaArrays(m *PartitionRecord, b []byte, al *Alloc) (int, bool) {
	var lens [4]int
	off := 20
	for i := range lens {
		if off >= len(b) || b[off] == 0 || b[off]&0x80 != 0 {
			return 0, false
		}
		lens[i] = int(b[off]) - 1
		off += 1 + 4*lens[i]
	}
	if off > len(b) {
		return 0, false
	}
	all := al.Int32s(lens[0] + lens[1] + lens[2] + lens[3])
	off = 20
	for i, dst := range [...]*[]int32{&m.Replicas, &m.Isr, &m.RemovingReplicas, &m.AddingReplicas} {
		n := lens[i]
		a := all[:n:n]
		if a == nil {
			a = []int32{}
		}
		all = all[n:]
		off++
		for j := range a {
			a[j] = int32(binary.BigEndian.Uint32(b[off:]))
			off += 4
		}
		*dst = a
	}
	return off, true
}

// fastUuids reads a compact array of uuids of fewer than 127 elements.
func fastUuids(b []byte, off int, al *Alloc) ([]Uuid, int, bool) {
	if off >= len(b) {
		return nil, off, false
	}
	l := b[off]
	n := int(l) - 1
	if l == 0 || l&0x80 != 0 || len(b)-off-1 < 16*n {
		return nil, off, false
	}
	off++
	out := al.Uuids(n)
	for i := range out {
		out[i] = Uuid{MostSignificantBits: int64(binary.BigEndian.Uint64(b[off:])), LeastSignificantBits: int64(binary.BigEndian.Uint64(b[off+8:]))}
		off += 16
	}
	return out, off, true
}

// DecodePartition decodes f, a PartitionRecord, into m without an
// interface call, so that a caller's m can live on its stack: the
// replay's hottest record.
func (f Frame) DecodePartition(m *PartitionRecord, al *Alloc) error {
	if f.Type != PartitionRecordType {
		return errorf(ErrUnknownType, "cannot decode a %s into a PartitionRecord", f.Type)
	}
	if decodePartitionFast(m, f.Body, f.Version, al) {
		return nil
	}
	r := reader{b: f.Body, al: al}
	m.decode(&r, f.Version)
	r.end(PartitionRecordType)
	if r.err != nil {
		return r.err
	}
	return nil
}
