package znode

import (
	"errors"
	"strings"
	"testing"
)

// scriptedRandom returns a reader that fills each read with the next of
// blocks, then fails.
func scriptedRandom(blocks ...[16]byte) func([]byte) (int, error) {
	return func(p []byte) (int, error) {
		if len(blocks) == 0 {
			return 0, errors.New("no more randomness")
		}
		n := copy(p, blocks[0][:])
		blocks = blocks[1:]
		return n, nil
	}
}

func TestNewUuidSkipsLeadingDash(t *testing.T) {
	dash := [16]byte{0xF8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	plain := [16]byte{0x12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	u, err := newUuid(scriptedRandom(dash, dash, plain))
	if err != nil {
		t.Fatal(err)
	}
	if s := u.String(); strings.HasPrefix(s, "-") || s[0] != 'E' {
		t.Fatalf("NewUuid took %q, want the id of the third draw", s)
	}
	if _, err := newUuid(scriptedRandom(dash)); err == nil {
		t.Fatal("a failing random source gave an id")
	}
}

func TestNewUuidIsVersion4(t *testing.T) {
	u, err := newUuid(scriptedRandom([16]byte{}))
	if err != nil {
		t.Fatal(err)
	}
	// All-zero randomness gives the zero id but for the version and
	// variant bits, which keep it from every reserved id.
	if got, want := u, (Uuid{MostSignificantBits: 0x4000, LeastSignificantBits: -1 << 63}); got != want {
		t.Fatalf("from zero bytes: %#x, %#x; want %#x, %#x", got.MostSignificantBits, got.LeastSignificantBits, want.MostSignificantBits, want.LeastSignificantBits)
	}
}

func TestNewUuidByKafkasRules(t *testing.T) {
	seen := map[Uuid]bool{}
	for range 2000 {
		u := NewUuid()
		s := u.String()
		switch b := u.Bytes(); {
		case u.IsReserved():
			t.Fatalf("NewUuid returned reserved %s", s)
		case strings.HasPrefix(s, "-"):
			t.Fatalf("NewUuid returned %s, which starts with '-'", s)
		case b[6]>>4 != 4 || b[8]>>6 != 2:
			t.Fatalf("NewUuid returned %s, not a version 4, variant 2 UUID", s)
		case seen[u]:
			t.Fatalf("NewUuid returned %s twice", s)
		}
		seen[u] = true
		if back, err := ParseUuid(s); err != nil || back != u {
			t.Fatalf("ParseUuid(%q) = %v, %v", s, back, err)
		}
	}
}

func TestUuidIsReserved(t *testing.T) {
	for _, c := range []struct {
		text     string
		reserved bool
	}{
		{"AAAAAAAAAAAAAAAAAAAAAA", true},
		{"AAAAAAAAAAAAAAAAAAAAAQ", true},
		{"AAAAAAAAAAAAAAAAAAAAAg", false},
		{"AAAAAAAAAAEAAAAAAAAAAQ", false},
	} {
		u, err := ParseUuid(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if u.IsReserved() != c.reserved {
			t.Errorf("%s: IsReserved %v, want %v", c.text, !c.reserved, c.reserved)
		}
	}
}
