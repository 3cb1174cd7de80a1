package znode

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendSanitizedPrincipal appends s encoded the way Kafka's
// Sanitizer.sanitize encodes the principals of a delegation token: Java's
// URLEncoder with UTF-8, which keeps ASCII letters, digits, '.', '-', '*'
// and '_' and percent-encodes every byte of everything else, a space
// becoming '+'; then '*' becomes "%2A" and '+' "%20". Only ASCII letters,
// digits, '.', '-', '_' and escapes such as "%3A" remain, so the result
// needs no JSON escaping. Hex digits are upper case, as URLEncoder
// writes them. A Java string cannot hold invalid UTF-8; each
// invalid byte of s is encoded as U+FFFD.
func appendSanitizedPrincipal(dst []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == ' ':
			dst = append(dst, "%20"...)
		case r < utf8.RuneSelf && keptBySanitizer(byte(r)):
			dst = append(dst, byte(r))
		default:
			var buf [utf8.UTFMax]byte
			for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
				dst = append(dst, '%', hexDigits[b>>4], hexDigits[b&0xF])
			}
		}
	}
	return dst
}

// sanitizePrincipal returns s encoded as appendSanitizedPrincipal does,
// for example "User%3Aalice" for "User:alice".
func sanitizePrincipal(s string) string {
	return string(appendSanitizedPrincipal(nil, s))
}

// keptBySanitizer reports whether Kafka's Sanitizer.sanitize keeps the
// ASCII character c as it is.
func keptBySanitizer(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_'
}

// desanitizePrincipal reverses sanitizePrincipal the way Kafka's
// Sanitizer.desanitize (Java's URLDecoder with UTF-8) does: "%XX" is the
// byte XX, in either case, '+' is a space, and any other character stands
// for itself. It is stricter than URLDecoder, which replaces invalid UTF-8
// silently: it returns what is wrong with s, or "" when s, its escapes
// decoded, is valid UTF-8.
func desanitizePrincipal(s string) (string, string) {
	if !strings.ContainsAny(s, "%+") && utf8.ValidString(s) {
		return s, ""
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) {
				return "", "incomplete escape at byte " + strconv.Itoa(i)
			}
			hi, lo := unhex(s[i+1]), unhex(s[i+2])
			if hi < 0 || lo < 0 {
				return "", "bad escape " + strconv.Quote(s[i:i+3]) + " at byte " + strconv.Itoa(i)
			}
			b.WriteByte(byte(hi<<4 | lo))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	if !utf8.ValidString(b.String()) {
		return "", "escapes decode to invalid UTF-8"
	}
	return b.String(), ""
}

// unhex returns the value of the hexadecimal digit c, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
