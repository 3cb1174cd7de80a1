package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// JSON is a Checker for semantic JSON equality: key order and whitespace
// are ignored, arrays are compared in order, and numbers are equal when
// their exact decimal values are, whatever their exponents (1, 1.0, 10e-1
// and 1e0 are equal, and so are 0 and -0; no floating-point rounding is
// involved). Of duplicate keys the last one wins. Strings are compared
// after unescaping, so "\u00e9" equals "é" and "\ud83d\ude00" equals "😀".
//
// Data that is not valid JSON cannot be decoded. Besides syntax errors
// and anything but whitespace after the value, that includes invalid
// UTF-8, a \u escape of a lone UTF-16 surrogate (one that is not the high
// half followed by the low half of a pair, such as "\ud800" or
// "\udc00\ud800"), and nesting deeper than 10000 levels. Landed then
// returns a *znode.DecodeError with Reason znode.ErrInvalidJSON and an
// empty Path, or znode.ErrNullData or znode.ErrEmptyData for null or empty
// data. Errors about the intended data match ErrIntended with errors.Is.
type JSON struct{}

// Landed reports whether intended and current are the same JSON value.
func (JSON) Landed(intended, current []byte) (bool, error) {
	want, err := decodeJSON(intended)
	if err != nil {
		return false, intendedError(err)
	}
	got, err := decodeJSON(current)
	if err != nil {
		return false, err
	}
	return sameJSON(want, got), nil
}

// decodeJSON decodes data, which must be exactly one JSON value with
// optional surrounding whitespace, numbers decoded as json.Number.
func decodeJSON(data []byte) (any, error) {
	switch {
	case data == nil:
		return nil, &znode.DecodeError{Reason: znode.ErrNullData}
	case len(data) == 0:
		return nil, &znode.DecodeError{Reason: znode.ErrEmptyData, Data: []byte{}}
	case !utf8.Valid(data):
		return nil, invalidJSON(data, "invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalidJSON(data, decodeErrorDetail(err))
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[end:], " \t\n\r"); len(rest) > 0 {
		at := len(data) - len(rest)
		return nil, invalidJSON(data, fmt.Sprintf("unexpected %q at offset %d after the top-level value", data[at], at))
	}
	if at := loneSurrogateEscape(data); at >= 0 {
		return nil, invalidJSON(data, fmt.Sprintf("lone surrogate %s at offset %d", data[at:at+6], at))
	}
	return v, nil
}

// invalidJSON returns the error for data that is not valid JSON.
func invalidJSON(data []byte, detail string) error {
	return &znode.DecodeError{Reason: znode.ErrInvalidJSON, Detail: detail, Data: bytes.Clone(data)}
}

// decodeErrorDetail describes an error of json.Decoder.Decode.
func decodeErrorDetail(err error) string {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		// Offset counts the bytes read, up to and including the culprit.
		return fmt.Sprintf("%s at offset %d", syntax, syntax.Offset-1)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of data"
	case errors.Is(err, io.EOF):
		return "no value, only whitespace"
	}
	return err.Error()
}

// loneSurrogateEscape returns the offset of the first \u escape in data
// that encodes a UTF-16 surrogate other than as a high surrogate directly
// followed by a low one, or -1 if there is none. data must be valid JSON,
// where backslashes occur only in strings, as the start of escapes.
func loneSurrogateEscape(data []byte) int {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		switch r := unicodeEscape(data, i); {
		case r < 0: // a two-byte escape such as \\ or \"
			i += 2
		case !utf16.IsSurrogate(r):
			i += 6
		case r < 0xdc00 && isLowSurrogate(unicodeEscape(data, i+6)):
			i += 12
		default:
			return i
		}
	}
	return -1
}

// unicodeEscape returns the UTF-16 code unit of the \uXXXX escape at
// data[i:], or -1 if there is none.
func unicodeEscape(data []byte, i int) rune {
	if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return -1
	}
	u, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(u)
}

func isLowSurrogate(r rune) bool { return 0xdc00 <= r && r <= 0xdfff }

// sameJSON reports whether a and b, values decoded by decodeJSON, are the
// same JSON value.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			if bv, ok := b[k]; !ok || !sameJSON(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		return ok && canonicalNumber(a) == canonicalNumber(b)
	}
	return a == b // nil, bool or string
}

// canonicalNumber returns a form of the valid JSON number n that is the
// same for numbers of equal value: "0" for zero, otherwise the sign, the
// significant digits without leading or trailing zeros, "e" and the power
// of ten that scales them to the value.
func canonicalNumber(n json.Number) string {
	text := string(n)
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	mantissa, exp, _ := strings.Cut(strings.ToLower(text), "e")
	intPart, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	// The value is digits * 10^(exp - len(frac)), or trimmed * 10^shift.
	shift := int64(len(digits)-len(trimmed)) - int64(len(frac))
	expNeg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + addExponent(expNeg, exp, shift)
}

// addExponent returns the decimal form of e + shift, where e is mag, or
// -mag if neg, and mag is a decimal magnitude without leading zeros that
// may be too long for an int64. It takes time linear in the length of mag.
func addExponent(neg bool, mag string, shift int64) string {
	if len(mag) <= 18 {
		e, _ := strconv.ParseInt(mag, 10, 64) // "" is 0
		if neg {
			e = -e
		}
		return strconv.FormatInt(e+shift, 10)
	}
	// e + shift = ±(mag + d) with d = ±shift, and mag + d > 0 because
	// |shift| < 10^18 <= mag.
	if neg {
		return "-" + addDecimal(mag, -shift)
	}
	return addDecimal(mag, shift)
}

// addDecimal returns the decimal form of mag + d, where mag is a decimal
// magnitude without leading zeros greater than -d.
func addDecimal(mag string, d int64) string {
	out := []byte(mag)
	carry := d
	for i := len(out) - 1; i >= 0 && carry != 0; i-- {
		v := int64(out[i]-'0') + carry
		digit, next := v%10, v/10
		if digit < 0 { // floor division, so that 0 <= digit <= 9
			digit, next = digit+10, next-1
		}
		out[i], carry = '0'+byte(digit), next
	}
	if carry > 0 {
		out = append(strconv.AppendInt(nil, carry, 10), out...)
	}
	return strings.TrimLeft(string(out), "0")
}
