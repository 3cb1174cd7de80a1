package kraftlog

import (
	"encoding/binary"
	"math"
	"strconv"
)

// RawTaggedField is a tagged field of a tag no version of its struct
// defines: Kafka keeps its bytes and writes them back after the known
// ones.
type RawTaggedField struct {
	Tag  uint32
	Data []byte
}

// reader reads a flexible message body as Kafka's generated readers do,
// over a ByteBufferAccessor. The first problem is kept in err; after it,
// every read returns a zero value and loops end.
type reader struct {
	b   []byte
	off int
	err *Error
	al  *Alloc
}

// fail records the first problem, at the current position.
func (r *reader) fail(reason error, detail string) {
	if r.err == nil {
		r.err = &Error{Offset: -1, Pos: -1, Reason: reason, Detail: detail + " (body byte " + itoa(r.off) + ")"}
	}
}

// ok reports whether nothing failed.
func (r *reader) ok() bool { return r.err == nil }

// need reports whether n more bytes are there, failing otherwise.
func (r *reader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if n > len(r.b)-r.off {
		r.fail(ErrCorrupt, what+": body ends early")
		return false
	}
	return true
}

func (r *reader) int8(what string) int8 {
	if !r.need(1, what) {
		return 0
	}
	v := int8(r.b[r.off])
	r.off++
	return v
}

func (r *reader) bool(what string) bool { return r.int8(what) != 0 }

func (r *reader) int16(what string) int16 {
	if !r.need(2, what) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.b[r.off:]))
	r.off += 2
	return v
}

func (r *reader) uint16(what string) uint16 { return uint16(r.int16(what)) }

func (r *reader) int32(what string) int32 {
	if !r.need(4, what) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.off:]))
	r.off += 4
	return v
}

func (r *reader) int64(what string) int64 {
	if !r.need(8, what) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.b[r.off:]))
	r.off += 8
	return v
}

func (r *reader) float64(what string) float64 { return math.Float64frombits(uint64(r.int64(what))) }

func (r *reader) uuid(what string) Uuid {
	if !r.need(16, what) {
		return Uuid{}
	}
	u := Uuid{
		MostSignificantBits:  int64(binary.BigEndian.Uint64(r.b[r.off:])),
		LeastSignificantBits: int64(binary.BigEndian.Uint64(r.b[r.off+8:])),
	}
	r.off += 16
	return u
}

// uvarint reads an unsigned varint, a Java int that may be negative.
func (r *reader) uvarint(what string) int32 {
	if r.err != nil {
		return 0
	}
	v, n := uvarint(r.b[r.off:])
	switch {
	case n == 0:
		r.fail(ErrCorrupt, what+": body ends early")
		return 0
	case n < 0:
		r.fail(ErrCorrupt, what+": varint longer than 5 bytes")
		return 0
	}
	r.off += n
	return v
}

// length reads a compact length, -1 for null. A null that the field
// cannot hold fails, as does a length beyond what is left; per is the
// least size of one element.
func (r *reader) length(what string, nullable bool, per int) int {
	n := int(r.uvarint(what)) - 1
	switch {
	case r.err != nil:
		return -1
	case n < 0:
		if !nullable {
			r.fail(ErrCorrupt, "non-nullable field "+what+" was serialized as null")
		}
		return -1
	case n > (len(r.b)-r.off)/per:
		r.fail(ErrCorrupt, what+": length "+itoa(n)+" runs past the body")
		return -1
	}
	return n
}

// bytesView returns the next n bytes without copying them.
func (r *reader) bytesView(n int) []byte {
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// nstring reads a nullable compact string.
func (r *reader) nstring(what string) *string {
	s, null := r.str(what, true)
	if null {
		return nil
	}
	return &s
}

// string reads a non-nullable compact string.
func (r *reader) string(what string) string {
	s, _ := r.str(what, false)
	return s
}

// str reads a compact string; Kafka refuses one longer than 32767 bytes.
func (r *reader) str(what string, nullable bool) (s string, null bool) {
	n := r.length(what, nullable, 1)
	if n < 0 {
		return "", true
	}
	if n > math.MaxInt16 {
		r.fail(ErrCorrupt, "string field "+what+" had invalid length "+itoa(n))
		return "", true
	}
	return javaUTF8(r.al, r.bytesView(n)), false
}

// bytes reads non-nullable compact bytes, copied.
func (r *reader) bytes(what string) []byte {
	n := r.length(what, false, 1)
	if n < 0 {
		return nil
	}
	return append([]byte{}, r.bytesView(n)...)
}

// int32s reads a compact array of int32; nil for null, a non-nil empty
// slice for an empty array.
func (r *reader) int32s(what string, nullable bool) []int32 {
	n := r.length(what, nullable, 4)
	if n < 0 {
		return nil
	}
	out := r.al.Int32s(n)
	if n == 0 && out == nil {
		out = []int32{}
	}
	for i := range out {
		out[i] = int32(binary.BigEndian.Uint32(r.b[r.off:]))
		r.off += 4
	}
	return out
}

// uuids reads a compact array of uuids.
func (r *reader) uuids(what string, nullable bool) []Uuid {
	n := r.length(what, nullable, 16)
	if n < 0 {
		return nil
	}
	out := r.al.Uuids(n)
	for i := range out {
		out[i] = r.uuid(what)
	}
	return out
}

// strings reads a compact array of non-nullable strings.
func (r *reader) strings(what string) []string {
	n := r.length(what, false, 1)
	if n < 0 {
		return nil
	}
	out := make([]string, 0, min(n, 16)) // a string takes a byte at least: n is checked, its memory not
	for i := 0; i < n && r.ok(); i++ {
		out = append(out, r.string(what+" element"))
	}
	return out
}

// arrayLen reads the length of a compact array of structs, each at least
// one byte (its tagged-field count).
func (r *reader) arrayLen(what string) int { return r.length(what, false, 1) }

// tagCount reads the number of tagged fields of a struct; a count that
// reads as a negative Java int loops zero times, as in Kafka.
func (r *reader) tagCount() int {
	n := int(r.uvarint("tagged field count"))
	if n < 0 {
		return 0
	}
	return n
}

// tag reads a tagged field's tag and size.
func (r *reader) tag() (tag int32, size int32) {
	tag = r.uvarint("tag")
	size = r.uvarint("tagged field size")
	return tag, size
}

// unknownTag keeps the bytes of a tagged field no version defines.
func (r *reader) unknownTag(fields []RawTaggedField, tag, size int32) []RawTaggedField {
	if r.err != nil {
		return fields
	}
	if size < 0 || int(size) > len(r.b)-r.off {
		r.fail(ErrCorrupt, "tagged field "+itoa(int(tag))+": size "+itoa(int(size))+" runs past the body")
		return fields
	}
	return append(fields, RawTaggedField{Tag: uint32(tag), Data: append([]byte{}, r.bytesView(int(size))...)})
}

// invalidTag fails on a tag a later version defines.
func (r *reader) invalidTag(tag int32, version int16) {
	r.fail(ErrInvalidTag, "tag "+itoa(int(tag))+" is not valid for version "+itoa(int(version)))
}

// end fails when bytes are left after the body of a record of type t.
func (r *reader) end(t RecordType) {
	if r.err == nil && r.off != len(r.b) {
		r.fail(ErrTrailingBytes, "found "+itoa(len(r.b)-r.off)+" byte(s) of garbage after "+t.String())
	}
}

// itoa formats i.
func itoa(i int) string { return strconv.Itoa(i) }

// unknownOnly reads the tagged-field section of a struct that defines no
// tagged field: every tag is unknown.
func (r *reader) unknownOnly(fields []RawTaggedField) []RawTaggedField {
	for i, n := 0, r.tagCount(); i < n && r.ok(); i++ {
		tag, size := r.tag()
		fields = r.unknownTag(fields, tag, size)
	}
	return fields
}
