package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func FuzzJSON(f *testing.F) {
	seeds := [][2]string{
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`},
		{`1`, `1.0`},
		{`1e0`, `10e-1`},
		{`-0`, `0`},
		{`1e1000000000000000000000`, `10e999999999999999999999`},
		{`"\ud800"`, `"\ufffd"`},
		{`"\\ud800"`, `"\u005cud800"`},
		{`"\ud83d\ude00"`, `"\ude00\ud83d"`},
		{`[1e999999999,-0.0]`, `[10E+999999998,0]`},
		{`"😀"`, `"\ud83d\ude00"`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`[1,2]`, `[2,1]`},
		{`[]`, `{}`},
		{`null`, `false`},
		{``, ` `},
		{`{`, `}`},
		{"\"\xff\"", `"a"`},
		{migration, partition},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	oracle := newJSONOracle()
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab, errAB := JSON{}.Landed(a, b)
		ba, errBA := JSON{}.Landed(b, a)
		aa, errAA := JSON{}.Landed(a, a)
		validA := oracle.valid(a)
		validB := oracle.valid(b)

		// Landed(x, x) is true exactly for valid JSON x.
		if validA != (errAA == nil) || (errAA == nil) != aa {
			t.Fatalf("Landed(a, a) = %v, %v; a valid: %v", aa, errAA, validA)
		}
		if errAA != nil {
			var de *znode.DecodeError
			if !errors.As(errAA, &de) || !errors.Is(errAA, ErrIntended) {
				t.Fatalf("Landed(a, a) error %v", errAA)
			}
		}
		if validA && validB {
			checkValidPair(t, a, b)
			return
		}
		if ab || ba {
			t.Fatalf("invalid JSON landed: Landed(a, b) = %v, Landed(b, a) = %v", ab, ba)
		}
		// The intended side is blamed first.
		if !validA && !errors.Is(errAB, ErrIntended) {
			t.Fatalf("invalid a not blamed as intended: %v", errAB)
		}
		if validA && !validB && (errAB == nil || errors.Is(errAB, ErrIntended)) {
			t.Fatalf("invalid b not blamed as current: %v, %v", errAB, errBA)
		}
	})
}

// jsonOracle tells which data JSON accepts, independently of its code.
type jsonOracle struct {
	// escape matches one escape in a JSON text, scanned from the left: a
	// surrogate pair, a lone surrogate (submatch 1), or another escape.
	escape *regexp.Regexp
}

func newJSONOracle() jsonOracle {
	return jsonOracle{escape: regexp.MustCompile(`\\u[dD][89abAB][[:xdigit:]]{2}\\u[dD][c-fC-F][[:xdigit:]]{2}|(\\u[dD][89a-fA-F][[:xdigit:]]{2})|\\.`)}
}

// valid reports whether data is JSON that the checker accepts: valid UTF-8
// and valid JSON for encoding/json, without lone surrogate escapes.
func (o jsonOracle) valid(data []byte) bool {
	if !utf8.Valid(data) || !json.Valid(data) {
		return false
	}
	for _, m := range o.escape.FindAllSubmatchIndex(data, -1) {
		if m[2] >= 0 {
			return false
		}
	}
	return true
}

// checkValidPair checks Landed on a and b, both valid JSON.
func checkValidPair(t *testing.T, a, b []byte) {
	t.Helper()
	ab, errAB := JSON{}.Landed(a, b)
	ba, errBA := JSON{}.Landed(b, a)
	if errAB != nil || errBA != nil {
		t.Fatalf("errors for valid JSON: %v, %v", errAB, errBA)
	}
	if ab != ba {
		t.Fatalf("not symmetric: Landed(a, b) = %v, Landed(b, a) = %v", ab, ba)
	}
	// Texts that differ only in whitespace are equal.
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes()) && !ab {
		t.Fatalf("equal compact forms, Landed(a, b) = false")
	}
	// encoding/json decodes them too, and where numbers are small enough
	// to compare as big.Rat values, that decides the same.
	ra, okA := referenceValue(t, a)
	rb, okB := referenceValue(t, b)
	if okA && okB && reflect.DeepEqual(ra, rb) != ab {
		t.Fatalf("Landed(a, b) = %v, reference %#v vs %#v", ab, ra, rb)
	}
}

// referenceValue decodes data with encoding/json, which must succeed, and
// replaces its numbers with their exact values as rational numbers. ok is
// false if a number's exponent is too large for that.
func referenceValue(t *testing.T, data []byte) (v any, ok bool) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json cannot decode %q: %v", data, err)
	}
	return ratNumbers(v)
}

// exactNumber is the exact value of a JSON number, as big.Rat.RatString
// writes it.
type exactNumber string

// ratNumbers returns v with json.Number values replaced by exactNumber
// values, or false if an exponent has more than four digits.
func ratNumbers(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			r, ok := ratNumbers(e)
			if !ok {
				return nil, false
			}
			v[k] = r
		}
	case []any:
		for i, e := range v {
			r, ok := ratNumbers(e)
			if !ok {
				return nil, false
			}
			v[i] = r
		}
	case json.Number:
		_, exp, _ := strings.Cut(strings.ToLower(string(v)), "e")
		if len(strings.TrimLeft(exp, "+-0")) > 4 {
			return nil, false
		}
		r, ok := new(big.Rat).SetString(string(v))
		if !ok {
			return nil, false
		}
		return exactNumber(r.RatString()), true
	}
	return v, true
}
