package kraftlog

// Varints as Kafka's ByteUtils reads them: an unsigned varint is at most
// five bytes and wraps to a Java int, so that its value can be negative; a
// varlong is at most ten bytes.

// uvarint reads an unsigned varint from b as ByteUtils.readUnsignedVarint
// does. n is the number of bytes read; 0 when b ends first, -1 when the
// fifth byte has its continuation bit set.
func uvarint(b []byte) (v int32, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return int32(b[0]), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		return int32(b[0]&0x7f) | int32(b[1])<<7, 2
	}
	return uvarintSlow(b)
}

// uvarintSlow reads a varint of three bytes or more, or a bad one.
func uvarintSlow(b []byte) (v int32, n int) {
	var x uint32
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0
		}
		c := b[i]
		if i == 4 {
			x |= uint32(c&0x7f) << 28 // bits beyond 32 are lost, as in Java
			if c&0x80 != 0 {
				return 0, -1
			}
			return int32(x), 5
		}
		x |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int32(x), i + 1
		}
	}
	panic("unreachable")
}

// varint reads a zigzag varint as ByteUtils.readVarint does.
func varint(b []byte) (int32, int) {
	u, n := uvarint(b)
	x := uint32(u)
	return int32(x>>1) ^ -int32(x&1), n
}

// varlong reads a zigzag varlong as ByteUtils.readVarlong does: n is 0
// when b ends first, -1 when it runs past ten bytes.
func varlong(b []byte) (int64, int) {
	var x uint64
	shift := uint(0)
	for i := 0; ; i++ {
		if i >= len(b) {
			return 0, 0
		}
		c := b[i]
		if c&0x80 == 0 {
			x |= uint64(c) << shift
			return int64(x>>1) ^ -int64(x&1), i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
		if shift > 63 {
			return 0, -1
		}
	}
}

// appendUvarint appends v as an unsigned varint.
func appendUvarint(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// appendVarint appends v as a zigzag varint.
func appendVarint(dst []byte, v int32) []byte {
	return appendUvarint(dst, uint32(v<<1)^uint32(v>>31))
}

// appendVarlong appends v as a zigzag varlong.
func appendVarlong(dst []byte, v int64) []byte {
	x := uint64(v<<1) ^ uint64(v>>63)
	for x >= 0x80 {
		dst = append(dst, byte(x)|0x80)
		x >>= 7
	}
	return append(dst, byte(x))
}

// uvarintLen is the length of v as an unsigned varint.
func uvarintLen(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// varintLen is the length of v as a zigzag varint.
func varintLen(v int32) int { return uvarintLen(uint32(v<<1) ^ uint32(v>>31)) }
