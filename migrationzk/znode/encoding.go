package znode

import (
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// jacksonText returns data as UTF-8 text, its encoding detected as
// Jackson's ByteSourceJsonBootstrapper detects it from the first four
// bytes: a byte order mark of UTF-8, UTF-16 or UTF-32, or else the zero
// bytes that ASCII characters have in UTF-32 or UTF-16, or else UTF-8. The
// mark is dropped. UTF-16 or UTF-32 that does not decode is an error,
// where Jackson's reader for UTF-16 would put U+FFFD in its place.
func jacksonText(data []byte) ([]byte, error) {
	if len(data) < 2 {
		return data, nil
	}
	if len(data) >= 4 {
		q := binary.BigEndian.Uint32(data)
		switch {
		case q == 0x0000FEFF:
			return fromUTF32(data[4:], binary.BigEndian)
		case q == 0xFFFE0000:
			return fromUTF32(data[4:], binary.LittleEndian)
		case q>>16 == 0xFEFF:
			return fromUTF16(data[2:], binary.BigEndian)
		case q>>16 == 0xFFFE:
			return fromUTF16(data[2:], binary.LittleEndian)
		case q>>8 == 0xEFBBBF:
			return data[3:], nil
		case q>>8 == 0:
			return fromUTF32(data, binary.BigEndian)
		case q&0x00FFFFFF == 0:
			return fromUTF32(data, binary.LittleEndian)
		case q&^0x00FF0000 == 0 || q&^0x0000FF00 == 0 || q == 0x0000FFFE || q == 0xFEFF0000:
			return nil, errors.New("UCS-4 in an unusual byte order")
		}
	}
	switch {
	case data[0] == 0:
		return fromUTF16(data, binary.BigEndian)
	case data[1] == 0:
		return fromUTF16(data, binary.LittleEndian)
	}
	return data, nil
}

// fromUTF16 decodes UTF-16 strictly.
func fromUTF16(data []byte, order binary.ByteOrder) ([]byte, error) {
	if len(data)%2 != 0 {
		return nil, errors.New("UTF-16 of an odd length")
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i += 2 {
		r := rune(order.Uint16(data[i:]))
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 || i+4 > len(data) {
				return nil, errors.New("UTF-16 with an unpaired surrogate")
			}
			if r = utf16.DecodeRune(r, rune(order.Uint16(data[i+2:]))); r == utf8.RuneError {
				return nil, errors.New("UTF-16 with an unpaired surrogate")
			}
			i += 2
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// fromUTF32 decodes UTF-32 strictly.
func fromUTF32(data []byte, order binary.ByteOrder) ([]byte, error) {
	if len(data)%4 != 0 {
		return nil, errors.New("UTF-32 of a length not a multiple of 4")
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i += 4 {
		r := rune(order.Uint32(data[i:]))
		if !utf8.ValidRune(r) {
			return nil, errors.New("UTF-32 holding no character")
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}
