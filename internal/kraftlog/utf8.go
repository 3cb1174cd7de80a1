package kraftlog

import "unicode/utf8"

// javaUTF8 returns b decoded as Java's new String(b, UTF_8) decodes it,
// through a: valid UTF-8 as it is, each malformed sequence replaced by
// U+FFFD as the JDK replaces it (a lead byte without its continuation
// bytes, an overlong form, a surrogate, a code point above U+10FFFF).
// Kafka never writes such bytes; this only decides what a damaged string
// reads as, where Kafka does not refuse it.
func javaUTF8(a *Alloc, b []byte) string {
	if utf8.Valid(b) {
		return a.String(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += javaMalformedLen(b[i:])
	}
	return a.String(out)
}

// javaMalformedLen returns how many bytes at the start of b, which does
// not start with a valid UTF-8 sequence, the JDK's decoder replaces with
// one U+FFFD.
func javaMalformedLen(b []byte) int {
	c := b[0]
	cont := func(i int) bool { return i < len(b) && b[i]&0xC0 == 0x80 }
	switch {
	case c >= 0xC2 && c <= 0xDF: // two bytes, the second missing or wrong
		return 1
	case c >= 0xE0 && c <= 0xEF:
		if !cont(1) || c == 0xE0 && b[1] < 0xA0 {
			return 1
		}
		if len(b) < 3 {
			return len(b)
		}
		if !cont(2) {
			return 2
		}
		return 3 // a surrogate
	case c >= 0xF0 && c <= 0xF4:
		if !cont(1) || c == 0xF0 && b[1] < 0x90 || c == 0xF4 && b[1] > 0x8F {
			return 1
		}
		if len(b) < 3 {
			return len(b)
		}
		if !cont(2) {
			return 2
		}
		if len(b) < 4 {
			return len(b)
		}
		return 3
	}
	return 1
}
