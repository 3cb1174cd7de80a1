package znode

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
)

// Uuid is Kafka's 128-bit identifier of topics (org.apache.kafka.common.Uuid):
// two 64-bit halves, the most significant first. Its text form, in
// ZooKeeper and everywhere else, is the URL-safe Base64 encoding of its 16
// big-endian bytes without padding: 22 characters such as
// "ASNFZ4mrze_-3LqYdlQyEA".
//
// The zero Uuid is Kafka's ZERO_UUID, "AAAAAAAAAAAAAAAAAAAAAA". Kafka
// reserves it to mean "no id" and never assigns it; this package does the
// same: ParseUuid accepts its text like any other, but a Topic whose ID is
// zero has no topic id, and DecodeTopic refuses a topic_id that spells it
// (Kafka's decoder would read it as the zero id).
type Uuid struct {
	MostSignificantBits  int64
	LeastSignificantBits int64
}

// uuidTextLen is the length of a Uuid's text form.
const uuidTextLen = 22

// IsZero reports whether u is the zero Uuid, Kafka's ZERO_UUID.
func (u Uuid) IsZero() bool { return u == Uuid{} }

// Bytes returns the 16 bytes of u, big-endian, the most significant half
// first.
func (u Uuid) Bytes() [16]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(u.MostSignificantBits))
	binary.BigEndian.PutUint64(b[8:], uint64(u.LeastSignificantBits))
	return b
}

// String returns the text form of u, as Kafka's Uuid.toString: 22
// characters of URL-safe Base64 without padding.
func (u Uuid) String() string { return string(u.AppendText(nil)) }

// AppendText appends the text form of u, as returned by String, to dst and
// returns the extended slice.
func (u Uuid) AppendText(dst []byte) []byte {
	b := u.Bytes()
	return base64.RawURLEncoding.AppendEncode(dst, b[:])
}

// MarshalText returns the text form of u; it never fails.
func (u Uuid) MarshalText() ([]byte, error) { return u.AppendText(nil), nil }

// UnmarshalText sets u from its text form, as ParseUuid does.
func (u *Uuid) UnmarshalText(text []byte) error {
	v, err := ParseUuid(string(text))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// ParseUuid parses the text form of a Uuid. It is stricter than Kafka's
// Uuid.fromString, which also takes padded and non-canonical input: s must
// be exactly 22 characters of the URL-safe Base64 alphabet (A-Z, a-z, 0-9,
// '-', '_'), without padding, and the unused low bits of the last
// character must be zero, so that String(ParseUuid(s)) == s. The zero id
// "AAAAAAAAAAAAAAAAAAAAAA" is accepted and gives the zero Uuid.
//
// DecodeTopic, which reads what Kafka reads, takes topic ids as
// Uuid.fromString takes them instead.
//
// Failures are *DecodeError values with Reason ErrWrongType and no Path.
func ParseUuid(s string) (Uuid, error) {
	u, problem := parseUuid(s)
	if problem != "" {
		return Uuid{}, newError("", "", ErrWrongType, problem, []byte(s))
	}
	return u, nil
}

// parseUuid parses s as ParseUuid does. It returns what is wrong with s,
// or "" when s is the text of a Uuid.
func parseUuid(s string) (Uuid, string) {
	if len(s) != uuidTextLen {
		return Uuid{}, "not a Uuid: length " + strconv.Itoa(len(s)) + ", want " + strconv.Itoa(uuidTextLen)
	}
	for i := 0; i < len(s); i++ {
		if !isBase64URL(s[i]) {
			return Uuid{}, "not a Uuid: byte " + strconv.Itoa(i) + " is not URL-safe Base64"
		}
	}
	var b [16]byte
	if _, err := base64.RawURLEncoding.Strict().Decode(b[:], []byte(s)); err != nil {
		return Uuid{}, "not a Uuid: the last character has bits beyond the 16 bytes"
	}
	return Uuid{
		MostSignificantBits:  int64(binary.BigEndian.Uint64(b[:8])),
		LeastSignificantBits: int64(binary.BigEndian.Uint64(b[8:])),
	}, ""
}

// isBase64URL reports whether c belongs to the URL-safe Base64 alphabet.
func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// parseKafkaUuid parses s as Kafka's Uuid.fromString does, with
// java.util.Base64's URL decoder: 22 characters of the URL-safe alphabet,
// optionally followed by "==", the unused low bits of the last character
// ignored. It returns what is wrong with s, or "" when s reads as a Uuid.
func parseKafkaUuid(s string) (Uuid, string) {
	text := strings.TrimSuffix(s, "==")
	if len(text) != uuidTextLen {
		return Uuid{}, "not a Uuid: " + strconv.Quote(shorten(s)) + " is not Base64 of 16 bytes"
	}
	for i := 0; i < len(text); i++ {
		if !isBase64URL(text[i]) {
			return Uuid{}, "not a Uuid: byte " + strconv.Itoa(i) + " is not URL-safe Base64"
		}
	}
	var b [16]byte
	// The last character holds 2 bits of the 16th byte and 4 unused ones.
	last := strings.IndexByte(base64URLAlphabet, text[uuidTextLen-1]) &^ 0xF
	canonical := text[:uuidTextLen-1] + string(base64URLAlphabet[last])
	if _, err := base64.RawURLEncoding.Strict().Decode(b[:], []byte(canonical)); err != nil {
		return Uuid{}, "not a Uuid: " + err.Error()
	}
	return Uuid{
		MostSignificantBits:  int64(binary.BigEndian.Uint64(b[:8])),
		LeastSignificantBits: int64(binary.BigEndian.Uint64(b[8:])),
	}, ""
}

// base64URLAlphabet is the URL-safe Base64 alphabet, in value order.
const base64URLAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// OneUuid is Kafka's ONE_UUID, "AAAAAAAAAAAAAAAAAAAAAQ", which KRaft
// uses as the topic id of its metadata log (METADATA_TOPIC_ID). Like the
// zero Uuid it is reserved: NewUuid never returns it.
var OneUuid = Uuid{LeastSignificantBits: 1}

// IsReserved reports whether u is one of the ids Kafka reserves and
// never assigns to a topic: the zero Uuid and OneUuid.
func (u Uuid) IsReserved() bool { return u.IsZero() || u == OneUuid }

// NewUuid returns a fresh random topic id by Kafka's rules
// (Uuid.randomUuid): a version 4, variant 2 UUID from crypto/rand, never
// a reserved id (IsReserved) and never one whose text form starts with
// '-', which command-line tools would take for a flag. It panics only if
// the system's random source fails, which crypto/rand treats as fatal.
func NewUuid() Uuid {
	u, err := newUuid(rand.Read)
	if err != nil {
		panic("znode: crypto/rand failed: " + err.Error())
	}
	return u
}

// newUuid draws random UUIDs from read until one is acceptable as a
// topic id.
func newUuid(read func([]byte) (int, error)) (Uuid, error) {
	for {
		var b [16]byte
		if _, err := read(b[:]); err != nil {
			return Uuid{}, err
		}
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // variant 2 (RFC 4122)
		u := Uuid{
			MostSignificantBits:  int64(binary.BigEndian.Uint64(b[:8])),
			LeastSignificantBits: int64(binary.BigEndian.Uint64(b[8:])),
		}
		if !u.IsReserved() && !strings.HasPrefix(u.String(), "-") {
			return u, nil
		}
	}
}
