package znode

import (
	"strings"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// Sanitize returns name as Kafka's Sanitizer.sanitize writes it into a
// znode name: java.net.URLEncoder's UTF-8 form (see jvm.URLEncode), with
// '*' then written as %2A and the '+' that stands for a space as %20.
// "User:alice@example.com" becomes "User%3Aalice%40example.com".
func Sanitize(name string) string {
	s := jvm.URLEncode(name)
	if !strings.ContainsAny(s, "*+") {
		return s
	}
	return strings.NewReplacer("*", "%2A", "+", "%20").Replace(s)
}

// Desanitize reverses Sanitize as Kafka's Sanitizer.desanitize does,
// with java.net.URLDecoder: each %XX escape is a byte, runs of them are
// decoded as UTF-8, a '+' is a space and other characters stand for
// themselves. It refuses what URLDecoder refuses, an escape without two
// hexadecimal digits, and also escapes whose bytes are not valid UTF-8,
// which URLDecoder would turn into U+FFFD and no sanitized name holds; its
// error is then a *DecodeError with Reason ErrInvalidValue and an empty
// Path.
func Desanitize(name string) (string, error) {
	if !strings.ContainsAny(name, "%+") && utf8.ValidString(name) {
		return name, nil
	}
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '+':
			out = append(out, ' ')
		case '%':
			if i+2 >= len(name) {
				return "", desanitizeError(name, "incomplete escape at the end")
			}
			hi, okHi := unhex(name[i+1])
			lo, okLo := unhex(name[i+2])
			if !okHi || !okLo {
				return "", desanitizeError(name, "escape without two hexadecimal digits: "+shorten(name[i:i+3]))
			}
			out = append(out, hi<<4|lo)
			i += 2
		default:
			out = append(out, name[i])
		}
	}
	if !utf8.Valid(out) {
		return "", desanitizeError(name, "not UTF-8 once unescaped")
	}
	return string(out), nil
}

// desanitizeError is Desanitize's error about name.
func desanitizeError(name, detail string) error {
	return newError("", "", ErrInvalidValue, detail, []byte(name))
}

// unhex returns the value of a hexadecimal digit of either case.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
