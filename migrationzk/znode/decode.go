package znode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxDetailValue is how many bytes of an offending value a detail shows.
const maxDetailValue = 40

// object is a decoded JSON object whose members are still raw. Duplicate
// keys have been resolved, the last one winning.
type object struct {
	path string
	data []byte
	// prefix names the enclosing fields of a nested object, "outer.".
	prefix  string
	members map[string]json.RawMessage
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

// parseObject decodes data, which must be exactly one JSON object with
// optional surrounding whitespace.
func parseObject(path string, data []byte) (*object, error) {
	if err := checkData(path, data); err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, newError(path, "", ErrInvalidJSON, "invalid UTF-8", data)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			detail := "top-level value is " + typeErr.Value + ", want object"
			return nil, newError(path, "", ErrWrongType, detail, data)
		}
		return nil, newError(path, "", ErrInvalidJSON, err.Error(), data)
	}
	if members == nil {
		return nil, newError(path, "", ErrWrongType, "top-level value is null, want object", data)
	}
	return &object{path: path, data: data, members: members}, nil
}

// fail returns a *DecodeError about field.
func (o *object) fail(field string, reason error, detail string) error {
	return newError(o.path, o.prefix+field, reason, detail, o.data)
}

// get returns the raw value of a required field.
func (o *object) get(field string) ([]byte, error) {
	raw, ok := o.members[field]
	if !ok {
		return nil, o.fail(field, ErrMissingField, "")
	}
	return bytes.TrimSpace(raw), nil
}

// version checks the version field against the accepted versions and
// returns it. Any integer that is not accepted, however large, is an
// unknown version.
func (o *object) version(accepted ...int32) (int32, error) {
	const field = "version"
	raw, err := o.get(field)
	if err != nil {
		return 0, err
	}
	if err := o.checkInteger(field, raw); err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(raw), 10, 32)
	if err == nil {
		for _, a := range accepted {
			if int32(v) == a {
				return a, nil
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
	return 0, o.fail(field, ErrUnknownVersion, detail)
}

// int returns a required integer field that must fit in bitSize bits.
func (o *object) int(field string, bitSize int) (int64, error) {
	raw, err := o.get(field)
	if err != nil {
		return 0, err
	}
	return o.parseInt(field, raw, bitSize)
}

// optInt returns an optional integer field that must fit in bitSize bits,
// or def when the field is absent.
func (o *object) optInt(field string, bitSize int, def int64) (int64, error) {
	if _, ok := o.members[field]; !ok {
		return def, nil
	}
	return o.int(field, bitSize)
}

// parseInt parses raw, a JSON value, as an integer of bitSize bits.
func (o *object) parseInt(field string, raw []byte, bitSize int) (int64, error) {
	if err := o.checkInteger(field, raw); err != nil {
		return 0, err
	}
	return o.parseDecimal(field, string(raw), bitSize)
}

// checkInteger reports whether raw, a JSON value, is a number written as
// an integer: no fraction and no exponent.
func (o *object) checkInteger(field string, raw []byte) error {
	if k := kind(raw); k != "number" {
		return o.fail(field, ErrWrongType, "got "+k+", want integer")
	}
	if bytes.ContainsAny(raw, ".eE") {
		return o.fail(field, ErrWrongType, "got "+shorten(string(raw))+", want integer")
	}
	return nil
}

// parseDecimal parses s, known to be an optional minus sign and decimal
// digits, as an integer of bitSize bits.
func (o *object) parseDecimal(field, s string, bitSize int) (int64, error) {
	v, err := strconv.ParseInt(s, 10, bitSize)
	if err != nil {
		return 0, o.fail(field, ErrOutOfRange, fmt.Sprintf("%s does not fit in int%d", shorten(s), bitSize))
	}
	return v, nil
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

// isDecimal reports whether s is an optional minus sign followed by one or
// more ASCII digits.
func isDecimal[S string | []byte](s S) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shorten cuts s for inclusion in an error detail.
func shorten(s string) string {
	if len(s) <= maxDetailValue {
		return s
	}
	return s[:maxDetailValue] + "..."
}

// str returns a required string field.
func (o *object) str(field string) (string, error) {
	raw, err := o.get(field)
	if err != nil {
		return "", err
	}
	return o.parseString(field, raw)
}

// parseString decodes raw, a JSON value, as a string.
func (o *object) parseString(field string, raw []byte) (string, error) {
	if k := kind(raw); k != "string" {
		return "", o.fail(field, ErrWrongType, "got "+k+", want string")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", o.fail(field, ErrInvalidJSON, err.Error())
	}
	return s, nil
}

// sub returns a required field holding an object, decoded for its own
// fields; errors about them name the field as "field.key".
func (o *object) sub(field string) (*object, error) {
	raw, err := o.get(field)
	if err != nil {
		return nil, err
	}
	if k := kind(raw); k != "object" {
		return nil, o.fail(field, ErrWrongType, "got "+k+", want object")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, o.fail(field, ErrInvalidJSON, err.Error())
	}
	return &object{path: o.path, data: o.data, prefix: o.prefix + field + ".", members: members}, nil
}

// elems returns a required field holding an array, its elements raw.
func (o *object) elems(field string) ([]json.RawMessage, error) {
	raw, err := o.get(field)
	if err != nil {
		return nil, err
	}
	if k := kind(raw); k != "array" {
		return nil, o.fail(field, ErrWrongType, "got "+k+", want array")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, o.fail(field, ErrInvalidJSON, err.Error())
	}
	return elems, nil
}
