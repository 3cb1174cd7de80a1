package znode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxDetailValue is how many bytes of an offending value a detail shows.
const maxDetailValue = 40

// jsonSpace holds the bytes JSON, and Jackson, take for whitespace.
const jsonSpace = " \t\r\n"

// decoder is the state of one decode: the znode's path and data, and the
// first error met, which every later read keeps.
type decoder struct {
	path string
	data []byte
	err  error
}

// member is one member of a JSON object, its value still raw.
type member struct {
	key   string
	value json.RawMessage
}

// object is a decoded JSON object whose members are still raw. A key
// given twice is held once, at its first place, with its last value, as
// Jackson's ObjectNode holds it.
type object struct {
	d *decoder
	// prefix names the enclosing fields of a nested object, "outer.".
	prefix  string
	members []member
	index   map[string]int
}

// checkData reports null and empty data.
func checkData(path string, data []byte) error {
	if data == nil {
		return newError(path, "", ErrNullData, "", nil)
	}
	if len(data) == 0 {
		return newError(path, "", ErrEmptyData, "", data)
	}
	return nil
}

// parseObject decodes data as Kafka's Json.parseBytes reads it, Jackson
// with its defaults: text in UTF-8, UTF-16 or UTF-32 (see jacksonText),
// then one JSON value, which must be an object; whatever follows that
// value is never read. Strings must be valid UTF-8 without unpaired surrogate escapes,
// which a Go string cannot hold. The returned object is never nil; when
// the data cannot be decoded, it is empty and holds the error.
func parseObject(path string, data []byte) *object {
	d := &decoder{path: path, data: data}
	o := &object{d: d}
	if d.err = checkData(path, data); d.err != nil {
		return o
	}
	var raw json.RawMessage
	text, err := jacksonText(data)
	if err == nil {
		raw, err = firstValue(text)
	}
	if err != nil {
		d.err = newError(path, "", ErrInvalidJSON, err.Error(), data)
		return o
	}
	if k := kind(raw); k != "object" {
		d.err = newError(path, "", ErrWrongType, "top-level value is "+k+", want object", data)
		return o
	}
	return d.object("", "", raw)
}

// firstValue returns the first JSON value of data and checks its strings.
func firstValue(data []byte) (json.RawMessage, error) {
	raw := json.RawMessage(bytes.Trim(data, jsonSpace))
	if !json.Valid(raw) {
		raw = nil
		// Not JSON as a whole: read the first value only.
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
			return nil, err
		}
	}
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("invalid UTF-8")
	}
	if hasLoneSurrogate(raw) {
		return nil, fmt.Errorf("escape of an unpaired UTF-16 surrogate")
	}
	return raw, checkReadConstraints(raw)
}

// The default limits of Jackson 2.16's StreamReadConstraints, which
// Kafka 3.9's Json.parseBytes applies.
const (
	maxJacksonDepth      = 1000
	maxJacksonNumberLen  = 1000
	maxJacksonNameLength = 50000
)

// checkReadConstraints reports what Jackson refuses in raw, valid JSON,
// under its default StreamReadConstraints: objects and arrays nested more
// than 1000 deep, numbers of more than 1000 digits, names of more than
// 50000 bytes in UTF-8.
func checkReadConstraints(raw []byte) error {
	var open []byte
	name := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '{' || c == '[':
			if open = append(open, c); len(open) > maxJacksonDepth {
				return fmt.Errorf("nested more than %d deep", maxJacksonDepth)
			}
			name = c == '{'
		case c == '}' || c == ']':
			open, name = open[:len(open)-1], false
		case c == ',':
			name = open[len(open)-1] == '{'
		case c == '"':
			end := stringEnd(raw, i)
			if name && end-i > maxJacksonNameLength && len(decodeName(raw[i:end+1])) > maxJacksonNameLength {
				return fmt.Errorf("a name longer than %d bytes", maxJacksonNameLength)
			}
			i, name = end, false
		case c == '-' || '0' <= c && c <= '9':
			end, digits := numberEnd(raw, i)
			if digits > maxJacksonNumberLen {
				return fmt.Errorf("a number of more than %d digits", maxJacksonNumberLen)
			}
			i = end - 1
		}
	}
	return nil
}

// stringEnd returns the index of the quote that ends the JSON string
// starting at raw[start].
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(raw) - 1
}

// decodeName decodes a JSON string known to be valid.
func decodeName(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// numberEnd returns the index after the JSON number starting at
// raw[start], and how many digits it holds.
func numberEnd(raw []byte, start int) (end, digits int) {
	for end = start; end < len(raw); end++ {
		c := raw[end]
		if '0' <= c && c <= '9' {
			digits++
		} else if c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
	}
	return end, digits
}

// hasLoneSurrogate reports whether raw, valid JSON, holds a \u escape of
// a surrogate that is not half of a pair.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if raw[i] != 'u' {
			continue
		}
		u, _ := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
		i += 4
		switch {
		case u >= 0xDC00 && u <= 0xDFFF:
			return true
		case u >= 0xD800 && u <= 0xDBFF:
			if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
				return true
			}
			lo, _ := strconv.ParseUint(string(raw[i+3:i+7]), 16, 16)
			if lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 6
		}
	}
	return false
}

// object decodes raw, a JSON object known to be valid, for the fields of
// field, which it names as prefix+field.
func (d *decoder) object(prefix, field string, raw []byte) *object {
	o := &object{d: d, prefix: prefix, index: map[string]int{}}
	if field != "" {
		o.prefix += field + "."
	}
	for i := skipSpace(raw, 1); i < len(raw) && raw[i] != '}'; {
		end := stringEnd(raw, i)
		key := decodeName(raw[i : end+1])
		start := skipSpace(raw, skipSpace(raw, end+1)+1)
		i = valueEnd(raw, start)
		if j, ok := o.index[key]; ok {
			o.members[j].value = raw[start:i]
		} else {
			o.index[key] = len(o.members)
			o.members = append(o.members, member{key, raw[start:i]})
		}
		if i = skipSpace(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return o
}

// elements splits raw, a JSON array known to be valid, into its elements.
func elements(raw []byte) []json.RawMessage {
	elems := []json.RawMessage{}
	for i := skipSpace(raw, 1); i < len(raw) && raw[i] != ']'; {
		start := i
		i = valueEnd(raw, start)
		elems = append(elems, raw[start:i])
		if i = skipSpace(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return elems
}

// valueEnd returns the index after the JSON value starting at raw[i], in
// valid JSON.
func valueEnd(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			if i = stringEnd(raw, i); depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth <= 0 {
				return i + 1 + depth
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// skipSpace returns the index of the first byte from raw[i] on that is
// not JSON whitespace.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// fail records a *DecodeError about field unless an error is recorded
// already.
func (d *decoder) fail(field string, reason error, detail string) {
	if d.err == nil {
		d.err = newError(d.path, field, reason, detail, d.data)
	}
}

// err returns the first error of the decode, nil if none.
func (o *object) err() error { return o.d.err }

// failed reports whether an error is recorded.
func (o *object) failed() bool { return o.d.err != nil }

// fail records a *DecodeError about field, a key of o.
func (o *object) fail(field string, reason error, detail string) {
	o.d.fail(o.prefix+field, reason, detail)
}

// has reports whether o holds field.
func (o *object) has(field string) bool {
	_, ok := o.index[field]
	return ok
}

// lookup returns the raw value of field, nil when it is absent.
func (o *object) lookup(field string) []byte {
	i, ok := o.index[field]
	if !ok {
		return nil
	}
	return bytes.Trim(o.members[i].value, jsonSpace)
}

// get returns the raw value of a required field, nil after an error.
func (o *object) get(field string) []byte {
	if o.failed() {
		return nil
	}
	raw := o.lookup(field)
	if raw == nil {
		o.fail(field, ErrMissingField, "")
	}
	return raw
}

// version checks the required version field against the accepted
// versions and returns it. Any integer that is not accepted, however
// large, is an unknown version.
func (o *object) version(accepted ...int32) int32 {
	const field = "version"
	raw := o.get(field)
	if raw == nil || !o.checkInteger(field, raw) {
		return 0
	}
	v, err := strconv.ParseInt(string(raw), 10, 32)
	if err == nil {
		for _, a := range accepted {
			if int32(v) == a {
				return a
			}
		}
	}
	detail := "version " + shorten(string(raw)) + ", want "
	for i, a := range accepted {
		if i > 0 {
			detail += " or "
		}
		detail += strconv.FormatInt(int64(a), 10)
	}
	o.fail(field, ErrUnknownVersion, detail)
	return 0
}

// int32 returns a required field read as Kafka's to[Int] reads it: an
// integer literal that fits in int32.
func (o *object) int32(field string) int32 {
	return int32(o.parseInt(field, o.get(field), 32))
}

// int64 returns a required field read as Kafka's to[Long] reads it.
func (o *object) int64(field string) int64 {
	return o.parseInt(field, o.get(field), 64)
}

// optInt32 returns an optional int32 field, def when it is absent.
func (o *object) optInt32(field string, def int32) int32 {
	if !o.has(field) {
		return def
	}
	return o.int32(field)
}

// parseInt parses raw, a JSON value, as an integer of bitSize bits: a
// number without fraction or exponent, as Jackson makes an IntNode or a
// LongNode of it. It returns 0 after an error.
func (o *object) parseInt(field string, raw []byte, bitSize int) int64 {
	if raw == nil || !o.checkInteger(field, raw) {
		return 0
	}
	v, err := strconv.ParseInt(string(raw), 10, bitSize)
	if err != nil {
		o.fail(field, ErrOutOfRange, fmt.Sprintf("%s does not fit in int%d", shorten(string(raw)), bitSize))
	}
	return v
}

// checkInteger reports whether raw, a JSON value, is a number written as
// an integer: no fraction and no exponent.
func (o *object) checkInteger(field string, raw []byte) bool {
	if k := kind(raw); k != "number" {
		o.fail(field, ErrWrongType, "got "+k+", want integer")
		return false
	}
	if bytes.ContainsAny(raw, ".eE") {
		o.fail(field, ErrWrongType, "got "+shorten(string(raw))+", want integer")
		return false
	}
	return true
}

// int32s returns a required field holding an array of int32, as
// to[Seq[Int]] reads it; never nil unless after an error.
func (o *object) int32s(field string) []int32 {
	elems := o.elems(field)
	if elems == nil {
		return nil
	}
	vs := make([]int32, 0, len(elems))
	for i, e := range elems {
		vs = append(vs, int32(o.parseInt(field, bytes.TrimSpace(e), 32)))
		if o.failed() {
			withElement(o.d.err, i)
			return nil
		}
	}
	return vs
}

// str returns a required string field.
func (o *object) str(field string) string {
	return o.parseString(field, o.get(field))
}

// parseString decodes raw, a JSON value, as a string.
func (o *object) parseString(field string, raw []byte) string {
	if raw == nil {
		return ""
	}
	if k := kind(raw); k != "string" {
		o.fail(field, ErrWrongType, "got "+k+", want string")
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		o.fail(field, ErrInvalidJSON, err.Error())
	}
	return s
}

// sub returns a required field holding an object, decoded for its own
// fields; errors about them name the field as "field.key". After an error
// it returns an empty object.
func (o *object) sub(field string) *object {
	raw := o.get(field)
	if raw != nil && kind(raw) != "object" {
		o.fail(field, ErrWrongType, "got "+kind(raw)+", want object")
	}
	if o.failed() {
		return &object{d: o.d, prefix: o.prefix + field + "."}
	}
	return o.d.object(o.prefix, field, raw)
}

// elems returns a required field holding an array, its elements raw; nil
// after an error.
func (o *object) elems(field string) []json.RawMessage {
	raw := o.get(field)
	if raw == nil {
		return nil
	}
	if k := kind(raw); k != "array" {
		o.fail(field, ErrWrongType, "got "+k+", want array")
		return nil
	}
	return elements(raw)
}

// kind names the type of the JSON value raw.
func kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// parseJavaInt parses s as Java's Integer.parseInt (bitSize 32) and
// Long.parseLong (bitSize 64) do: an optional '+' or '-', then one or more
// decimal digits of any script of the Basic Multilingual Plane (Unicode
// category Nd, as Character.digit takes them), and a value that fits. It
// reports whether s is such a number and whether it fits.
func parseJavaInt(s string, bitSize int) (v int64, isNumber, fits bool) {
	ascii := make([]byte, 0, len(s))
	rest := s
	if len(rest) > 0 && (rest[0] == '+' || rest[0] == '-') {
		ascii, rest = append(ascii, rest[0]), rest[1:]
	}
	if rest == "" {
		return 0, false, false
	}
	for _, r := range rest {
		d, ok := javaDigit(r)
		if !ok {
			return 0, false, false
		}
		ascii = append(ascii, byte('0'+d))
	}
	v, err := strconv.ParseInt(string(ascii), 10, bitSize)
	return v, true, err == nil
}

// javaDigit returns the value of r as a decimal digit, as Java's
// Character.digit(char, 10) does. Decimal digits come in runs of ten, 0
// to 9, so the value is r's distance from the start of its run, modulo
// ten (some runs follow each other).
func javaDigit(r rune) (int, bool) {
	if '0' <= r && r <= '9' {
		return int(r - '0'), true
	}
	if r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10, true
}

// shorten cuts s for inclusion in an error detail.
func shorten(s string) string {
	if len(s) <= maxDetailValue {
		return s
	}
	return s[:maxDetailValue] + "..."
}
