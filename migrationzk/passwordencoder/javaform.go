package passwordencoder

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
)

// errNoColon is a CSV pair without ':'.
var errNoColon = errors.New("a pair has no ':'")

// javaTrim trims what Java's String.trim trims: every character up to
// U+0020 at either end.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// isRegexSpace reports whether r is in Java's regex class \s.
func isRegexSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// parseCSVMap reads "k1:v1,k2:v2" as Kafka's Csv.parseCsvMap does: split
// at commas with the \s characters around each comma, trailing empty
// pieces dropped; each piece split at its last ':', key and value
// trimmed; a later key replacing an earlier one. A piece without ':' is
// an error, as it is in Kafka. The error never quotes the input.
func parseCSVMap(s string) (map[string]string, error) {
	m := map[string]string{}
	if s == "" {
		return m, nil
	}
	pieces := strings.Split(s, ",")
	for i := range pieces {
		if i > 0 {
			pieces[i] = strings.TrimLeftFunc(pieces[i], isRegexSpace)
		}
		if i < len(pieces)-1 {
			pieces[i] = strings.TrimRightFunc(pieces[i], isRegexSpace)
		}
	}
	for len(pieces) > 0 && pieces[len(pieces)-1] == "" {
		pieces = pieces[:len(pieces)-1]
	}
	for _, p := range pieces {
		at := strings.LastIndexByte(p, ':')
		if at < 0 {
			return nil, errNoColon
		}
		m[javaTrim(p[:at])] = javaTrim(p[at+1:])
	}
	return m, nil
}

// formatCSVMap writes pairs in the given key order, as Kafka joins a
// map's entries: "k:v" joined by ",".
func formatCSVMap(keys []string, m map[string]string) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(m[k])
	}
	return b.String()
}

// javaBase64Decode decodes as java.util.Base64.getDecoder does: the
// standard alphabet, padding optional but, when present, complete and
// last, and no line breaks or other characters.
func javaBase64Decode(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("illegal base64 character")
	}
	if strings.Contains(s, "=") {
		return base64.StdEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// javaParseInt parses as Integer.parseInt: an optional sign, then ASCII
// decimal digits, within 32 bits. (Java also takes other Unicode decimal
// digits; Kafka never writes them.)
func javaParseInt(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err
}

// javaLength is the length of s as a Java string, in UTF-16 code units.
func javaLength(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
