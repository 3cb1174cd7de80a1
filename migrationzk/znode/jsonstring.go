package znode

import (
	"unicode/utf16"
	"unicode/utf8"
)

// hexDigits are the digits of a \u escape, upper case as Jackson writes
// them.
const hexDigits = "0123456789ABCDEF"

// appendString appends s as a JSON string the way Kafka's Jackson writes
// it: '"' and '\' escaped, control characters below 0x20 escaped (\b, \f,
// \n, \r and \t in short form, the others as \u00XX), '/' and DEL written
// as they are, other characters of the Basic Multilingual Plane written
// raw in UTF-8 (U+2028 and U+2029 included), and characters beyond it as
// an escaped UTF-16 surrogate pair (\uD83D\uDE00). A Java string cannot
// hold invalid UTF-8; each invalid byte of s is written as U+FFFD.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = appendEscapedASCII(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			dst = appendUnicodeEscape(appendUnicodeEscape(dst, hi), lo)
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// appendEscapedASCII appends the escape of an ASCII character that a JSON
// string cannot hold raw.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return appendUnicodeEscape(dst, rune(c))
}

// appendUnicodeEscape appends \uXXXX for the UTF-16 code unit u.
func appendUnicodeEscape(dst []byte, u rune) []byte {
	return append(dst, '\\', 'u', hexDigits[u>>12&0xF], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
}
