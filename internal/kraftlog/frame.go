package kraftlog

// frameVersion is the only ApiMessageAndVersion frame version Kafka 3.9
// reads and writes.
const frameVersion = 1

// Message is a metadata record's body: one of the record types of this
// package.
type Message interface {
	// Type returns the record's apiKey.
	Type() RecordType
	// decode sets the record from r at version, every field overwritten.
	decode(r *reader, version int16)
	// appendBody appends the record's body at version; an error when
	// the record holds a field that version cannot.
	appendBody(dst []byte, version int16) ([]byte, error)
}

// Frame is a metadata record's value split into its ApiMessageAndVersion
// frame and its body.
type Frame struct {
	Type    RecordType
	Version int16
	// Body is a view of the value.
	Body []byte
}

// ParseFrame reads the frame of a metadata record's value as
// MetadataRecordSerde reads it: frame version 1, an apiKey Kafka 3.9
// defines, a version it defines for it.
func ParseFrame(value []byte) (Frame, error) {
	// one byte each: the frame version, the apiKey and the version
	if len(value) >= 3 && value[0] == frameVersion && int(value[1]) < len(types) && value[2] < 0x80 {
		t, v := RecordType(value[1]), int16(value[2])
		if i := &types[t]; i.name != "" && v <= i.maxVersion {
			return Frame{Type: t, Version: v, Body: value[3:]}, nil
		}
	}
	return parseFrame(value)
}

// parseFrame reads a frame whose fields are not all one byte long, or
// one that is refused.
func parseFrame(value []byte) (Frame, error) {
	off := 0
	field := func(what string) (int32, error) {
		v, n := uvarint(value[off:])
		switch {
		case n == 0:
			return 0, errorf(ErrCorrupt, "error while reading %s: the value ends", what)
		case n < 0:
			return 0, errorf(ErrCorrupt, "error while reading %s: varint longer than 5 bytes", what)
		case v > 0x7fff:
			return 0, errorf(ErrCorrupt, "value for %s was too large", what)
		}
		off += n
		return v, nil
	}
	fv, err := field("frame version")
	if err != nil {
		return Frame{}, err
	}
	switch fv {
	case frameVersion:
	case 0:
		return Frame{}, errorf(ErrFrameVersion, "could not deserialize metadata record with frame version 0: upgrades from the preview release of KRaft in 2.8 are not supported")
	default:
		return Frame{}, errorf(ErrFrameVersion, "unknown frame version %d (only frame version 1 is supported)", int16(fv))
	}
	key, err := field("type")
	if err != nil {
		return Frame{}, err
	}
	version, err := field("version")
	if err != nil {
		return Frame{}, err
	}
	t := RecordType(key)
	if !t.Known() {
		return Frame{}, errorf(ErrUnknownType, "no metadata record has apiKey %d", int16(key))
	}
	if v := int16(version); v < 0 || v > t.MaxVersion() {
		return Frame{}, errorf(ErrUnknownVersion, "%s version %d: Kafka 3.9 defines versions 0 to %d", t, v, t.MaxVersion())
	}
	return Frame{Type: t, Version: int16(version), Body: value[off:]}, nil
}

// Decode sets m, a record of f's type, from f's body, allocating from al
// (which may be nil). Bytes after the body are an error, as in Kafka.
func (f Frame) Decode(m Message, al *Alloc) error {
	if m.Type() != f.Type {
		return errorf(ErrUnknownType, "cannot decode a %s into a %s", f.Type, m.Type())
	}
	return decodeBody(m, f.Body, f.Version, al)
}

// decodeBody decodes body into m at version.
func decodeBody(m Message, body []byte, version int16, al *Alloc) error {
	var r *reader
	if al != nil {
		// An interface call makes its reader escape: reuse al's.
		al.r = reader{b: body, al: al}
		r = &al.r
	} else {
		r = &reader{b: body}
	}
	m.decode(r, version)
	r.end(m.Type())
	if r.err != nil {
		return r.err
	}
	return nil
}

// DecodeValue decodes a metadata record's value into a new record of
// its type.
func DecodeValue(value []byte, al *Alloc) (Message, int16, error) {
	f, err := ParseFrame(value)
	if err != nil {
		return nil, 0, err
	}
	m := f.Type.New()
	if err := f.Decode(m, al); err != nil {
		return nil, 0, err
	}
	return m, f.Version, nil
}

// AppendValue appends m's value at version: the frame, then the body.
func AppendValue(dst []byte, m Message, version int16) ([]byte, error) {
	t := m.Type()
	if version < 0 || version > t.MaxVersion() {
		return dst, errorf(ErrUnknownVersion, "%s version %d: Kafka 3.9 defines versions 0 to %d", t, version, t.MaxVersion())
	}
	dst = appendUvarint(dst, frameVersion)
	dst = appendUvarint(dst, uint32(t))
	dst = appendUvarint(dst, uint32(version))
	return m.appendBody(dst, version)
}
