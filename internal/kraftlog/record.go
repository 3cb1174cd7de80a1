package kraftlog

// Record is one record of a batch, as Kafka's Raft layer reads it.
type Record struct {
	// Offset is the batch's base offset plus the record's index in it:
	// Kafka's Raft layer numbers records by position, not by their
	// offset delta.
	Offset int64
	// Pos is the byte position of the record in its file.
	Pos int64
	// Key is nil for a null key; Key and Value are views of the batch's
	// bytes.
	Key, Value []byte
}

// Records reads the records of a batch one at a time.
type Records struct {
	batch Batch
	off   int // in batch.Bytes
	i     int32
	// ahead holds where the values of the records from i on lie, as
	// CountPartitionsAhead read them, from aheadAt on: Next returns
	// them without reading their framing again.
	ahead   []span
	aheadAt int
}

// span is where a record's value lies in its batch's bytes; the record
// ends one byte after it, with its header count.
type span struct{ start, end int32 }

// Records returns a reader of b's records.
func (b Batch) Records() Records { return Records{batch: b, off: BatchHeaderSize} }

// Reset makes rs a reader of b's records, keeping its memory.
func (rs *Records) Reset(b Batch) {
	*rs = Records{batch: b, off: BatchHeaderSize, ahead: rs.ahead[:0]}
}

// Next returns the next record and true, or false after the last one the
// batch's count announces; bytes after it are ignored, as Kafka ignores
// them. Each record is checked as Kafka's RecordsIterator checks it: a
// size within the batch, a timestamp delta of 0, no headers, a key for a
// control record and none for a data record, a value that is not empty.
func (rs *Records) Next() (Record, bool, error) {
	if rs.i >= rs.batch.RecordCount {
		return Record{}, false, nil
	}
	if rs.aheadAt < len(rs.ahead) {
		v := rs.ahead[rs.aheadAt]
		rec := Record{Offset: rs.batch.BaseOffset + int64(rs.i), Pos: rs.batch.Pos + int64(rs.off), Value: rs.batch.Bytes[v.start:v.end:v.end]}
		rs.off, rs.i, rs.aheadAt = int(v.end)+1, rs.i+1, rs.aheadAt+1
		return rec, true, nil
	}
	if rs.batch.Attributes&controlFlag == 0 {
		if value, end, ok := fastRecord(rs.batch.Bytes, rs.off); ok {
			rec := Record{Offset: rs.batch.BaseOffset + int64(rs.i), Pos: rs.batch.Pos + int64(rs.off), Value: value}
			rs.off, rs.i = end, rs.i+1
			return rec, true, nil
		}
	}
	rec, err := rs.next()
	if err != nil {
		return Record{}, false, at(err, rs.batch.BaseOffset+int64(rs.i), rs.batch.Pos+int64(rs.off))
	}
	rs.i++
	return rec, true, nil
}

func (rs *Records) next() (Record, error) {
	b := rs.batch.Bytes
	size, n := varint(b[rs.off:])
	if n <= 0 {
		return Record{}, errorf(ErrCorrupt, "unable to read the record size")
	}
	switch {
	case size <= 0:
		return Record{}, errorf(ErrCorrupt, "invalid non-positive record size %d", size)
	case int64(size) > rs.batch.Size():
		return Record{}, errorf(ErrCorrupt, "record size %d is larger than its batch, %d bytes", size, rs.batch.Size())
	case int(size) > len(b)-rs.off-n:
		return Record{}, errorf(ErrCorrupt, "record of %d bytes runs past its batch", size)
	}
	start := rs.off + n
	body := b[start : start+int(size)-1]
	if h := b[start+int(size)-1]; h != 0 {
		return Record{}, errorf(ErrCorrupt, "record has %d headers: metadata records have none", int8(h))
	}
	key, value, err := parseRecordBody(body)
	if err == nil {
		err = checkKeyValue(key, value, rs.batch.Attributes&controlFlag != 0)
	}
	if err != nil {
		return Record{}, err
	}
	pos := rs.batch.Pos + int64(rs.off)
	rs.off = start + int(size)
	return Record{Offset: rs.batch.BaseOffset + int64(rs.i), Pos: pos, Key: key, Value: value}, nil
}

// parseRecordBody reads a record's attributes, timestamp and offset
// deltas, key and value from body, the record without its length and its
// header count.
func parseRecordBody(body []byte) (key, value []byte, err error) {
	off := 1 // attributes, unused
	if len(body) < off {
		return nil, nil, errorf(ErrCorrupt, "record ends before its attributes")
	}
	tsDelta, n := varlong(body[off:])
	if n <= 0 {
		return nil, nil, errorf(ErrCorrupt, "record ends in its timestamp delta")
	}
	if tsDelta != 0 {
		return nil, nil, errorf(ErrCorrupt, "record has a timestamp delta of %d: metadata records have 0", tsDelta)
	}
	off += n
	if _, n = varint(body[off:]); n <= 0 {
		return nil, nil, errorf(ErrCorrupt, "record ends in its offset delta")
	}
	off += n
	if key, off, err = sizedBytes(body, off, "key"); err != nil {
		return nil, nil, err
	}
	if value, _, err = sizedBytes(body, off, "value"); err != nil {
		return nil, nil, err
	}
	return key, value, nil
}

// sizedBytes reads a varint size and that many bytes; nil for a negative
// size.
func sizedBytes(b []byte, off int, what string) ([]byte, int, error) {
	size, n := varint(b[off:])
	if n <= 0 {
		return nil, off, errorf(ErrCorrupt, "record ends in its %s size", what)
	}
	off += n
	if size < 0 {
		return nil, off, nil
	}
	if int(size) > len(b)-off {
		return nil, off, errorf(ErrCorrupt, "record's %s of %d bytes runs past the record", what, size)
	}
	return b[off : off+int(size) : off+int(size)], off + int(size), nil
}

// checkKeyValue checks a record's key and value as RecordsIterator does.
func checkKeyValue(key, value []byte, control bool) error {
	switch {
	case control && key == nil:
		return errorf(ErrCorrupt, "control record without a key")
	case control && len(key) == 0:
		return errorf(ErrCorrupt, "control record with an empty key")
	case !control && key != nil:
		return errorf(ErrCorrupt, "data record with a key: metadata records have none")
	case value == nil:
		return errorf(ErrCorrupt, "record without a value")
	case len(value) == 0:
		return errorf(ErrCorrupt, "record with an empty value")
	}
	return nil
}

// fastRecord reads the record at off in b, a batch's bytes, when it has
// the common shape of a data record of the metadata log: a size and a
// value size of one or two bytes, a timestamp delta of 0, an offset delta
// of one to three bytes, a null key, a value that is not empty and ends
// where the header count (0) starts. It returns the value and where the
// record ends; false for any other shape, which Records.next reads the
// general way, and refuses when Kafka does. Every record it accepts,
// Records.next accepts with the same value.
func fastRecord(b []byte, off int) (value []byte, end int, ok bool) {
	if off < 0 || off >= len(b)-1 {
		return nil, 0, false
	}
	size, start := int(b[off]), off+1
	if size >= 0x80 {
		c := int(b[off+1])
		if c >= 0x80 {
			return nil, 0, false
		}
		size, start = size&0x7f|c<<7, off+2
	}
	if size&1 != 0 { // zigzag: a negative size
		return nil, 0, false
	}
	size >>= 1
	// attributes, timestamp delta, offset delta, key size, value size,
	// a byte of value, header count
	if size < 7 || size > len(b)-start {
		return nil, 0, false
	}
	body := b[start : start+size]
	if body[1] != 0 || body[size-1] != 0 {
		return nil, 0, false
	}
	i := 3 // after an offset delta of one byte
	if body[2] >= 0x80 {
		if i = 4; body[3] >= 0x80 {
			if i = 5; body[4] >= 0x80 {
				return nil, 0, false
			}
		}
	}
	if body[i] != 1 { // 1 is -1: a null key
		return nil, 0, false
	}
	vs, v := int(body[i+1]), i+2
	if vs >= 0x80 {
		if v >= size-1 || body[v] >= 0x80 {
			return nil, 0, false
		}
		vs, v = vs&0x7f|int(body[v])<<7, v+1
	}
	// a negative size, an empty value, or bytes between the value and
	// the header count
	if vs&1 != 0 || vs == 0 || v+(vs>>1) != size-1 {
		return nil, 0, false
	}
	return body[v : size-1 : size-1], start + size, true
}

// NextPartitionHead reads the next record into h, its arrays carved from
// al, when it is one of the PartitionRecords CountPartitionsAhead counted
// and ReadPartitionHead reads it, and returns its offset and position;
// false, rs unmoved, for any other record, which Next reads.
func (rs *Records) NextPartitionHead(h *PartitionHead, al *Alloc) (offset, pos int64, ok bool) {
	if rs.aheadAt >= len(rs.ahead) || rs.i >= rs.batch.RecordCount {
		return 0, 0, false
	}
	v := rs.ahead[rs.aheadAt]
	value := rs.batch.Bytes[v.start:v.end]
	// CountPartitionsAhead saw the frame version and the apiKey
	if len(value) < 3 || int16(value[2]) > types[PartitionRecordType].maxVersion || !h.read(value[3:], int16(value[2]), true, al) {
		return 0, 0, false
	}
	offset, pos = rs.batch.BaseOffset+int64(rs.i), rs.batch.Pos+int64(rs.off)
	rs.off, rs.i, rs.aheadAt = int(v.end)+1, rs.i+1, rs.aheadAt+1
	return offset, pos, true
}

// CountPartitionsAhead counts the PartitionRecords of topic in rs, from
// the next record on, up to the first other record: a count that is a
// hint, for the caller to size what the records fill. It reads only the
// common shape of a data record (see fastRecord) and stops at any other.
// It does not move rs, but remembers where the values of the records it
// counted lie, for Next.
func (rs *Records) CountPartitionsAhead(topic Uuid) int {
	ahead, b, off := rs.ahead[:0], rs.batch.Bytes, rs.off
	for i := rs.i; i < rs.batch.RecordCount && rs.batch.Attributes&controlFlag == 0; i++ {
		v, end, ok := fastRecord(b, off)
		// frame version 1, apiKey 3, a version of one byte; the
		// partition id, the topic id
		if !ok || len(v) < 23 || v[0] != frameVersion || v[1] != byte(PartitionRecordType) || v[2] >= 0x80 || uuidAt(v[7:]) != topic {
			break
		}
		ahead = append(ahead, span{start: int32(end - 1 - len(v)), end: int32(end - 1)})
		off = end
	}
	rs.ahead, rs.aheadAt = ahead, 0
	return len(ahead)
}
