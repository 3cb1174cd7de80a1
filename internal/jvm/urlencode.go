package jvm

import "unicode/utf8"

// upperHex are the digits java.net.URLEncoder writes, upper case.
const upperHex = "0123456789ABCDEF"

// URLEncode returns java.net.URLEncoder.encode(s, UTF_8): ASCII letters,
// digits and the characters . - * _ as they are, a space as '+', and every
// other character as the %XX escapes of its UTF-8 bytes, with upper-case
// hexadecimal digits. A byte of s that is not valid UTF-8 stands for
// U+FFFD (%EF%BF%BD), as in a Java string decoded from s.
func URLEncode(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && urlUnreserved(byte(r)):
			out = append(out, byte(r))
		case r == ' ':
			out = append(out, '+')
		default:
			var buf [utf8.UTFMax]byte
			for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
				out = append(out, '%', upperHex[b>>4], upperHex[b&0xF])
			}
		}
	}
	return string(out)
}

// urlUnreserved reports whether URLEncoder leaves the ASCII character c
// as it is.
func urlUnreserved(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c == '.' || c == '-' || c == '*' || c == '_'
}
