package checker

import (
	"bytes"
	"encoding/json"
	"errors"
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
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab, errAB := JSON{}.Landed(a, b)
		ba, errBA := JSON{}.Landed(b, a)
		aa, errAA := JSON{}.Landed(a, a)
		validA := utf8.Valid(a) && json.Valid(a)
		validB := utf8.Valid(b) && json.Valid(b)

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
			t.Fatalf("invalid b not blamed as current: %v", errAB)
		}
	})
}
