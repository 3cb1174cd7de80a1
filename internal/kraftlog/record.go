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
}

// Records returns a reader of b's records.
func (b Batch) Records() Records { return Records{batch: b, off: BatchHeaderSize} }

// Next returns the next record and true, or false after the last one the
// batch's count announces; bytes after it are ignored, as Kafka ignores
// them. Each record is checked as Kafka's RecordsIterator checks it: a
// size within the batch, a timestamp delta of 0, no headers, a key for a
// control record and none for a data record, a value that is not empty.
func (rs *Records) Next() (Record, bool, error) {
	if rs.i >= rs.batch.RecordCount {
		return Record{}, false, nil
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
	if v, ok := fastRecordBody(body); ok {
		return nil, v, nil
	}
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

// fastRecordBody reads the common shape of a metadata record: a
// timestamp delta of 0, a null key, a value that ends the record; false
// for any other, which parseRecordBody reads the general way.
func fastRecordBody(body []byte) ([]byte, bool) {
	if len(body) < 5 || body[1] != 0 {
		return nil, false
	}
	off := 2 // the offset delta, a varint of up to 4 bytes here
	for i := 0; body[off]&0x80 != 0; i++ {
		off++
		if i == 3 || off >= len(body) {
			return nil, false
		}
	}
	off++
	if off >= len(body) || body[off] != 1 { // 1 is -1: a null key
		return nil, false
	}
	off++
	size, n := varint(body[off:])
	if n <= 0 || size < 0 || off+n+int(size) != len(body) {
		return nil, false
	}
	return body[off+n : len(body) : len(body)], true
}

// CountAhead counts the records left in rs, from the next one, whose
// values match, up to the first that does not. It reads only the common
// shape of a record (see fastRecordBody) and stops at any other: a count
// that is a hint, for the caller to size what the records fill. It does
// not move rs.
func (rs Records) CountAhead(match func(value []byte) bool) int {
	b, off, n := rs.batch.Bytes, rs.off, 0
	for i := rs.i; i < rs.batch.RecordCount; i++ {
		size, k := varint(b[off:])
		if k <= 0 || size <= 1 || int(size) > len(b)-off-k {
			return n
		}
		start := off + k
		v, ok := fastRecordBody(b[start : start+int(size)-1])
		if !ok || !match(v) {
			return n
		}
		n++
		off = start + int(size)
	}
	return n
}
