package jvm

import (
	"unicode/utf16"
	"unicode/utf8"
)

// StringHash returns String.hashCode of the Java string holding s: the
// wrapping 32-bit sum h = 31*h + u over its UTF-16 code units u, from 0.
// A character beyond the Basic Multilingual Plane counts as its two
// surrogates.
func StringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + hi
			h = 31*h + lo
			continue
		}
		h = 31*h + r
	}
	return h
}

// CompareStrings compares a and b as String.compareTo does: by UTF-16 code
// units, so that a character beyond the Basic Multilingual Plane (a
// surrogate pair, 0xD800 to 0xDFFF) sorts before U+E000 to U+FFFF, unlike
// in a byte-wise comparison of UTF-8. It returns -1, 0 or +1.
func CompareStrings(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ua, ub := firstUnit(ra), firstUnit(rb)
		less := ua < ub
		if ua == ub {
			// Two supplementary characters with the same high surrogate:
			// their low surrogates order them as their code points do.
			less = ra < rb
		}
		if less {
			return -1
		}
		return 1
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// firstUnit returns the first UTF-16 code unit of r.
func firstUnit(r rune) uint16 {
	if r > 0xFFFF {
		hi, _ := utf16.EncodeRune(r)
		return uint16(hi)
	}
	return uint16(r)
}
