package znode

import (
	"encoding/json"
	"errors"
	"testing"
)

// goldenTopicID is the topic id of the reference's topic znode example.
const goldenTopicID = "ASNFZ4mrze_-3LqYdlQyEA"

func TestUuidGolden(t *testing.T) {
	for _, tt := range []struct {
		u    Uuid
		text string
	}{
		// The reference's example: bytes 01 23 ... ef fe dc ... 10.
		{Uuid{0x0123456789ABCDEF, -0x0123456789ABCDF0}, goldenTopicID},
		{Uuid{}, "AAAAAAAAAAAAAAAAAAAAAA"},
		// Kafka's METADATA_TOPIC_ID, reserved for the KRaft metadata log.
		{Uuid{0, 1}, "AAAAAAAAAAAAAAAAAAAAAQ"},
		{Uuid{-1, -1}, "_____________________w"},
		{Uuid{-0x8000000000000000, 0x7FFFFFFFFFFFFFFF}, "gAAAAAAAAAB__________w"},
	} {
		if got := tt.u.String(); got != tt.text {
			t.Errorf("%#v.String() = %q, want %q", tt.u, got, tt.text)
		}
		got, err := ParseUuid(tt.text)
		if err != nil || got != tt.u {
			t.Errorf("ParseUuid(%q) = %#v, %v; want %#v", tt.text, got, err, tt.u)
		}
		if got.IsZero() != (tt.u == Uuid{}) {
			t.Errorf("%#v.IsZero() = %v", got, got.IsZero())
		}
	}
	b := Uuid{0x0123456789ABCDEF, -0x0123456789ABCDF0}.Bytes()
	want := [16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10}
	if b != want {
		t.Errorf("Bytes = % x, want % x", b, want)
	}
}

func TestUuidText(t *testing.T) {
	u := Uuid{0x0123456789ABCDEF, -0x0123456789ABCDF0}
	enc, err := json.Marshal(map[string]Uuid{"id": u})
	if err != nil || string(enc) != `{"id":"`+goldenTopicID+`"}` {
		t.Fatalf("json.Marshal = %s, %v", enc, err)
	}
	var back map[string]Uuid
	if err := json.Unmarshal(enc, &back); err != nil || back["id"] != u {
		t.Fatalf("json.Unmarshal = %v, %v", back, err)
	}
	var v Uuid
	if err := v.UnmarshalText([]byte("short")); err == nil || v != (Uuid{}) {
		t.Errorf("UnmarshalText(short) = %v, left %#v", err, v)
	}
	if got := string(u.AppendText([]byte("id="))); got != "id="+goldenTopicID {
		t.Errorf("AppendText = %q", got)
	}
}

func TestParseUuidBad(t *testing.T) {
	for _, s := range []string{
		"",
		"AAAAAAAAAAAAAAAAAAAAA",     // 21 characters
		"AAAAAAAAAAAAAAAAAAAAAAA",   // 23 characters
		"AAAAAAAAAAAAAAAAAAAAAA==",  // padded, as Kafka would accept
		"ASNFZ4mrze/+3LqYdlQyEA",    // standard Base64 alphabet
		"ASNFZ4mrze_-3LqYdlQyE=",    // padding inside
		"ASNFZ4mrze_-3LqYdlQyEB",    // bits beyond the 16 bytes
		"ASNFZ4mrze_-3LqYdlQyE\n",   // newline, which Go's decoder skips
		"ASNFZ4mrze_-3LqYdlQy\r\nA", // likewise
		" SNFZ4mrze_-3LqYdlQyEA",
		"ASNFZ4mrze_-3LqYdlQyÉ",
		"ASNFZ4mrze_-3LqYdlQy\xffA",
	} {
		u, err := ParseUuid(s)
		if u != (Uuid{}) {
			t.Errorf("ParseUuid(%q) returned %#v along with the error", s, u)
		}
		var de *DecodeError
		if !errors.As(err, &de) || de.Reason != ErrWrongType || de.Path != "" || de.Field != "" || string(de.Data) != s {
			t.Errorf("ParseUuid(%q) error = %#v, want a *DecodeError with Reason ErrWrongType and the text as Data", s, err)
		}
	}
}

func FuzzParseUuid(f *testing.F) {
	for _, s := range []string{goldenTopicID, "AAAAAAAAAAAAAAAAAAAAAA", "ASNFZ4mrze_-3LqYdlQyEB", "AAAAAAAAAAAAAAAAAAAAAA==", "ASNFZ4mrze_-3LqYdlQyE\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUuid(s)
		if err != nil {
			checkFuzzError(t, err, "", []byte(s))
			if u != (Uuid{}) {
				t.Fatalf("parsed %#v along with error %v", u, err)
			}
			return
		}
		if u.String() != s {
			t.Fatalf("ParseUuid(%q).String() = %q", s, u.String())
		}
	})
}

func FuzzUuidRoundTrip(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(0x0123456789ABCDEF), int64(-0x0123456789ABCDF0))
	f.Add(int64(-1), int64(1))
	f.Fuzz(func(t *testing.T, msb, lsb int64) {
		u := Uuid{msb, lsb}
		s := u.String()
		if len(s) != uuidTextLen {
			t.Fatalf("String() = %q, not %d characters", s, uuidTextLen)
		}
		got, err := ParseUuid(s)
		if err != nil || got != u {
			t.Fatalf("ParseUuid(%q) = %#v, %v; want %#v", s, got, err, u)
		}
	})
}
