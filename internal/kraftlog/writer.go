package kraftlog

import (
	"encoding/binary"
	"math"
)

// writer appends a flexible message body.
type writer struct{ b []byte }

func (w *writer) int8(v int8) { w.b = append(w.b, byte(v)) }
func (w *writer) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *writer) int16(v int16)     { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *writer) uint16(v uint16)   { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) int32(v int32)     { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *writer) int64(v int64)     { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }
func (w *writer) float64(v float64) { w.int64(int64(math.Float64bits(v))) }
func (w *writer) uvarint(v int)     { w.b = appendUvarint(w.b, uint32(v)) }

func (w *writer) uuid(u Uuid) {
	w.int64(u.MostSignificantBits)
	w.int64(u.LeastSignificantBits)
}

// string appends a compact string.
func (w *writer) string(s string) {
	w.uvarint(len(s) + 1)
	w.b = append(w.b, s...)
}

// nstring appends a nullable compact string.
func (w *writer) nstring(s *string) {
	if s == nil {
		w.uvarint(0)
		return
	}
	w.string(*s)
}

// bytes appends compact bytes.
func (w *writer) bytes(b []byte) {
	w.uvarint(len(b) + 1)
	w.b = append(w.b, b...)
}

// int32s appends a compact array; nil is null for a nullable field,
// empty for another.
func (w *writer) int32s(a []int32, nullable bool) {
	if a == nil && nullable {
		w.uvarint(0)
		return
	}
	w.uvarint(len(a) + 1)
	for _, v := range a {
		w.int32(v)
	}
}

// uuids appends a compact uuid array, nil being null when nullable.
func (w *writer) uuids(a []Uuid, nullable bool) {
	if a == nil && nullable {
		w.uvarint(0)
		return
	}
	w.uvarint(len(a) + 1)
	for _, u := range a {
		w.uuid(u)
	}
}

// strings appends a compact array of strings.
func (w *writer) strings(a []string) {
	w.uvarint(len(a) + 1)
	for _, s := range a {
		w.string(s)
	}
}

// tagged appends a struct's tagged-field section: known fields, in
// ascending tag order, each given as its tag and a function appending its
// value, then the unknown ones as read.
func (w *writer) tagged(known []taggedField, unknown []RawTaggedField) {
	n := len(unknown)
	for _, f := range known {
		if f.present {
			n++
		}
	}
	w.uvarint(n)
	for _, f := range known {
		if !f.present {
			continue
		}
		var v writer
		f.write(&v)
		w.uvarint(int(f.tag))
		w.uvarint(len(v.b))
		w.b = append(w.b, v.b...)
	}
	for _, u := range unknown {
		w.uvarint(int(u.Tag))
		w.uvarint(len(u.Data))
		w.b = append(w.b, u.Data...)
	}
}

// noTags appends a section of only the unknown tagged fields.
func (w *writer) noTags(unknown []RawTaggedField) { w.tagged(nil, unknown) }

// taggedField is a known tagged field to write, when present.
type taggedField struct {
	tag     uint32
	present bool
	write   func(*writer)
}
