package checker

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// JSON is a Checker for semantic JSON equality: key order and whitespace
// are ignored, arrays are compared in order, and numbers are equal when
// their exact decimal values are (1, 1.0, 10e-1 and 1e0 are equal; no
// floating-point rounding is involved). Of duplicate keys the last one
// wins. Strings are compared after unescaping, so "\u00e9" equals "é",
// but a lone surrogate escape is kept apart from U+FFFD.
//
// Data that is not valid JSON, including invalid UTF-8 and nesting deeper
// than 10000 levels, cannot be decoded: Landed returns a
// *znode.DecodeError with Reason znode.ErrInvalidJSON and an empty Path,
// or znode.ErrNullData or znode.ErrEmptyData for null or empty data.
type JSON struct{}

// Landed reports whether intended and current are the same JSON value.
func (JSON) Landed(intended, current []byte) (bool, error) {
	want, err := parseJSON(intended)
	if err != nil {
		return false, intendedError(err)
	}
	got, err := parseJSON(current)
	if err != nil {
		return false, err
	}
	return want.equal(got), nil
}

// maxDepth is the deepest nesting of arrays and objects accepted, the same
// as encoding/json's.
const maxDepth = 10000

// kind is the type of a JSON value.
type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a decoded JSON value.
type value struct {
	kind kind
	// text is the unescaped string, or the canonical form of the number.
	text  string
	elems []value
	// members maps the keys of an object to their last value.
	members map[string]value
}

// equal reports whether v and w are the same JSON value.
func (v *value) equal(w *value) bool {
	if v.kind != w.kind || v.text != w.text || len(v.elems) != len(w.elems) || len(v.members) != len(w.members) {
		return false
	}
	for i := range v.elems {
		if !v.elems[i].equal(&w.elems[i]) {
			return false
		}
	}
	for k, vm := range v.members {
		wm, ok := w.members[k]
		if !ok || !vm.equal(&wm) {
			return false
		}
	}
	return true
}

// parseJSON decodes data, which must be exactly one JSON value with
// optional surrounding whitespace.
func parseJSON(data []byte) (*value, error) {
	if data == nil {
		return nil, &znode.DecodeError{Reason: znode.ErrNullData}
	}
	if len(data) == 0 {
		return nil, &znode.DecodeError{Reason: znode.ErrEmptyData, Data: []byte{}}
	}
	p := parser{data: data}
	if !utf8.Valid(data) {
		return nil, p.invalid("invalid UTF-8")
	}
	p.skipSpace()
	var v value
	if err := p.value(&v, 0); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.unexpected("after top-level value")
	}
	return &v, nil
}

// parser reads one JSON value from data.
type parser struct {
	data []byte
	pos  int
}

// invalid returns an error saying that the data is not valid JSON.
func (p *parser) invalid(detail string) error {
	return &znode.DecodeError{Reason: znode.ErrInvalidJSON, Detail: detail, Data: bytes.Clone(p.data)}
}

// unexpected reports the byte at the current position, or the end of the
// data.
func (p *parser) unexpected(context string) error {
	if p.pos >= len(p.data) {
		return p.invalid("unexpected end of data " + context)
	}
	return p.invalid(fmt.Sprintf("unexpected %q at offset %d %s", p.data[p.pos], p.pos, context))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// consume advances past c if it is the next byte.
func (p *parser) consume(c byte) bool {
	if p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// value parses the value at the current position, nested depth levels
// deep, into v.
func (p *parser) value(v *value, depth int) error {
	if p.pos >= len(p.data) {
		return p.unexpected("looking for a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(v, depth+1)
	case c == '[':
		return p.array(v, depth+1)
	case c == '"':
		s, err := p.string()
		*v = value{kind: kindString, text: s}
		return err
	case c == '-' || '0' <= c && c <= '9':
		n, err := p.number()
		*v = value{kind: kindNumber, text: n}
		return err
	}
	for _, lit := range [...]struct {
		text string
		kind kind
	}{{"null", kindNull}, {"false", kindFalse}, {"true", kindTrue}} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(lit.text)) {
			p.pos += len(lit.text)
			*v = value{kind: lit.kind}
			return nil
		}
	}
	return p.unexpected("looking for a value")
}

func (p *parser) object(v *value, depth int) error {
	if depth > maxDepth {
		return p.invalid("nesting deeper than " + strconv.Itoa(maxDepth))
	}
	p.pos++ // '{'
	*v = value{kind: kindObject, members: make(map[string]value)}
	p.skipSpace()
	if p.consume('}') {
		return nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.unexpected("looking for an object key")
		}
		key, err := p.string()
		if err != nil {
			return err
		}
		p.skipSpace()
		if !p.consume(':') {
			return p.unexpected("after an object key")
		}
		p.skipSpace()
		var m value
		if err := p.value(&m, depth); err != nil {
			return err
		}
		v.members[key] = m
		p.skipSpace()
		if p.consume('}') {
			return nil
		}
		if !p.consume(',') {
			return p.unexpected("after an object member")
		}
		p.skipSpace()
	}
}

func (p *parser) array(v *value, depth int) error {
	if depth > maxDepth {
		return p.invalid("nesting deeper than " + strconv.Itoa(maxDepth))
	}
	p.pos++ // '['
	*v = value{kind: kindArray}
	p.skipSpace()
	if p.consume(']') {
		return nil
	}
	for {
		var e value
		if err := p.value(&e, depth); err != nil {
			return err
		}
		v.elems = append(v.elems, e)
		p.skipSpace()
		if p.consume(']') {
			return nil
		}
		if !p.consume(',') {
			return p.unexpected("after an array element")
		}
		p.skipSpace()
	}
}

// string parses the string at the current position and returns it
// unescaped. A lone surrogate escape is kept as the three bytes that
// would encode it in UTF-8, which cannot occur in valid UTF-8 text and
// therefore stays distinct from every other string.
func (p *parser) string() (string, error) {
	p.pos++ // '"'
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	var b strings.Builder
	b.Write(p.data[start:p.pos])
	for {
		if p.pos >= len(p.data) {
			return "", p.unexpected("in a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.unexpected("in a string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		p.pos++ // '\\'
		if p.pos >= len(p.data) {
			return "", p.unexpected("in a string escape")
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.unexpected("in a \\u escape")
			}
			if utf16.IsSurrogate(r) && r < 0xdc00 && p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				r2, ok := p.hex4()
				if ok {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						b.WriteRune(pair)
						continue
					}
				}
				p.pos = save
			}
			if utf16.IsSurrogate(r) {
				b.Write([]byte{0xe0 | byte(r>>12), 0x80 | byte(r>>6)&0x3f, 0x80 | byte(r)&0x3f})
			} else {
				b.WriteRune(r)
			}
		default:
			p.pos--
			return "", p.unexpected("in a string escape")
		}
	}
}

// hex4 parses four hexadecimal digits.
func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// number parses the number at the current position and returns a
// canonical form that is the same for numbers of equal value: "0" for
// zero, otherwise the sign, the significant digits without leading or
// trailing zeros, "e" and the power of ten that scales them to an integer.
func (p *parser) number() (string, error) {
	neg := p.consume('-')
	intStart := p.pos
	switch {
	case p.consume('0'):
	case p.pos < len(p.data) && '1' <= p.data[p.pos] && p.data[p.pos] <= '9':
		p.digits()
	default:
		return "", p.unexpected("in a number")
	}
	intPart := p.data[intStart:p.pos]
	var frac []byte
	if p.consume('.') {
		start := p.pos
		if p.digits() == 0 {
			return "", p.unexpected("in a number")
		}
		frac = p.data[start:p.pos]
	}
	var expNeg bool
	var exp []byte
	if p.consume('e') || p.consume('E') {
		if !p.consume('+') {
			expNeg = p.consume('-')
		}
		start := p.pos
		if p.digits() == 0 {
			return "", p.unexpected("in a number")
		}
		exp = p.data[start:p.pos]
	}

	digits := make([]byte, 0, len(intPart)+len(frac))
	digits = append(append(digits, intPart...), frac...)
	digits = bytes.TrimLeft(digits, "0")
	if len(digits) == 0 {
		return "0", nil
	}
	trimmed := bytes.TrimRight(digits, "0")
	// The value is digits * 10^(exp - len(frac)), or trimmed * 10^shift.
	shift := int64(len(digits)-len(trimmed)) - int64(len(frac))

	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.Write(trimmed)
	b.WriteByte('e')
	exp = bytes.TrimLeft(exp, "0")
	if len(exp) <= 18 {
		e, _ := strconv.ParseInt(string(exp), 10, 64) // "" is 0
		if expNeg {
			e = -e
		}
		b.WriteString(strconv.FormatInt(e+shift, 10))
	} else {
		appendSum(&b, expNeg, exp, shift)
	}
	return b.String(), nil
}

// appendSum writes the decimal form of e + shift, where e is mag, or -mag
// if neg, and mag is a decimal magnitude of more than 18 digits without
// leading zeros, so that |shift| is smaller than mag. It takes time linear
// in the length of mag, however long.
func appendSum(b *strings.Builder, neg bool, mag []byte, shift int64) {
	// e + shift = ±(mag + d) with d = shift for positive e and -shift for
	// negative e; mag + d is positive because |d| < mag.
	d := shift
	if neg {
		d = -d
	}
	out := make([]byte, len(mag), len(mag)+20)
	copy(out, mag)
	if d >= 0 {
		carry := uint64(d)
		for i := len(out) - 1; i >= 0 && carry > 0; i-- {
			v := uint64(out[i]-'0') + carry
			out[i] = '0' + byte(v%10)
			carry = v / 10
		}
		if carry > 0 {
			out = append(strconv.AppendUint(nil, carry, 10), out...)
		}
	} else {
		sub := uint64(-d)
		borrow := uint64(0)
		for i := len(out) - 1; i >= 0 && (sub > 0 || borrow > 0); i-- {
			x := sub%10 + borrow
			sub /= 10
			v := uint64(out[i] - '0')
			if v < x {
				v += 10
				borrow = 1
			} else {
				borrow = 0
			}
			out[i] = '0' + byte(v-x)
		}
		out = bytes.TrimLeft(out, "0")
	}
	if neg {
		b.WriteByte('-')
	}
	b.Write(out)
}

// digits advances past decimal digits and returns how many there were.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}
