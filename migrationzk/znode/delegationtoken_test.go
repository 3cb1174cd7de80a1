package znode

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// goldenToken is the reference's delegation token example
// (KAFKA-DUALWRITE.md, section 3), as a Scala 2.13 build writes it.
const goldenToken = `{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000,"maxTimestamp":100,"version":3}`

// goldenTokenValue is the content of goldenToken.
func goldenTokenValue() DelegationToken {
	return DelegationToken{
		TokenID:         "tok1",
		Owner:           "User:alice",
		TokenRequester:  "User:alice",
		Renewers:        []string{"User:bob"},
		IssueTimestamp:  0,
		MaxTimestamp:    100,
		ExpiryTimestamp: 1000,
	}
}

func TestSanitizePrincipal(t *testing.T) {
	for _, tt := range []struct{ raw, sanitized string }{
		// The reference's example.
		{"User:alice", "User%3Aalice"},
		{"User:bob", "User%3Abob"},
		{"", ""},
		{"azAZ09.-_", "azAZ09.-_"},
		// Java's URLEncoder keeps '*' and writes a space as '+';
		// Sanitizer then turns them into %2A and %20.
		{"a*b", "a%2Ab"},
		{"a b", "a%20b"},
		{"a+b", "a%2Bb"},
		{"%~/@=,", "%25%7E%2F%40%3D%2C"},
		{"User:CN=alice,OU=eng", "User%3ACN%3Dalice%2COU%3Deng"},
		{"é中", "%C3%A9%E4%B8%AD"},
		{"😀", "%F0%9F%98%80"},
		{"\x00\n\x7f", "%00%0A%7F"},
	} {
		if got := Sanitize(tt.raw); got != tt.sanitized {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.raw, got, tt.sanitized)
		}
		if got, problem := desanitizeProblem(tt.sanitized); problem != "" || got != tt.raw {
			t.Errorf("desanitizeProblem(%q) = %q, %q; want %q", tt.sanitized, got, problem, tt.raw)
		}
	}
	// A Java string cannot hold invalid UTF-8: an invalid byte is U+FFFD.
	if got := Sanitize("a\xffb"); got != "a%EF%BF%BDb" {
		t.Errorf("sanitizePrincipal of invalid UTF-8 = %q", got)
	}
}

func TestDeSanitize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		// What URLDecoder accepts beyond Sanitizer's output.
		{"User:alice", "User:alice"},
		{"User%3aalice", "User:alice"},
		{"a+b", "a b"},
		{"a*b~", "a*b~"},
		{"é", "é"},
		{"%e4%B8%ad", "中"},
	} {
		if got, problem := desanitizeProblem(tt.in); problem != "" || got != tt.want {
			t.Errorf("desanitizeProblem(%q) = %q, %q; want %q", tt.in, got, problem, tt.want)
		}
	}
	for _, in := range []string{"%", "a%", "a%3", "%G0", "%0G", "%-1", "%+F", "% 1", "%FF", "%C3", "%C3%28", "%ED%A0%80"} {
		if got, problem := desanitizeProblem(in); problem == "" || got != "" {
			t.Errorf("desanitizeProblem(%q) = %q, %q; want a problem", in, got, problem)
		}
	}
}

func TestDelegationTokenGolden(t *testing.T) {
	tests := []struct {
		name string
		t    DelegationToken
		json string
	}{
		// From the reference.
		{"reference example", goldenTokenValue(), goldenToken},
		// Derived: the key order is fixed; the values vary.
		{
			"requested for another user",
			DelegationToken{TokenID: "T0ken-ID_x", Owner: "User:CN=alice,OU=eng", TokenRequester: "User:admin user", Renewers: []string{"User:bob", "Group:ops*", "User:é"}, IssueTimestamp: 1729500000000, MaxTimestamp: 1730104800000, ExpiryTimestamp: 1729586400000},
			`{"issueTimestamp":1729500000000,"renewers":["User%3Abob","Group%3Aops%2A","User%3A%C3%A9"],"tokenRequester":"User%3Aadmin%20user","tokenId":"T0ken-ID_x","owner":"User%3ACN%3Dalice%2COU%3Deng","expiryTimestamp":1729586400000,"maxTimestamp":1730104800000,"version":3}`,
		},
		{
			"no renewers, extreme timestamps, escaped id",
			DelegationToken{TokenID: "a\"b\\c/\u00e9\U0001F600", Owner: "User:", TokenRequester: ":x", Renewers: []string{}, IssueTimestamp: -9223372036854775808, MaxTimestamp: 9223372036854775807, ExpiryTimestamp: -1},
			`{"issueTimestamp":-9223372036854775808,"renewers":[],"tokenRequester":"%3Ax","tokenId":"a\"b\\c/é\uD83D\uDE00","owner":"User%3A","expiryTimestamp":-1,"maxTimestamp":9223372036854775807,"version":3}`,
		},
	}
	for _, tt := range tests {
		if got := string(tt.t.Encode()); got != tt.json {
			t.Errorf("%s: Encode() =\n%s\nwant\n%s", tt.name, got, tt.json)
		}
		got, err := DecodeDelegationToken([]byte(tt.json))
		if err != nil || !got.Equal(tt.t) {
			t.Errorf("%s: DecodeDelegationToken(%s) = %+v, %v; want %+v", tt.name, tt.json, got, err, tt.t)
		}
	}
	// A nil Renewers is written as [] and read back empty, not nil.
	tok := goldenTokenValue()
	tok.Renewers = nil
	enc := tok.Encode()
	if !bytes.Contains(enc, []byte(`"renewers":[]`)) {
		t.Errorf("nil renewers encoded as %s", enc)
	}
	if got, err := DecodeDelegationToken(enc); err != nil || got.Renewers == nil || len(got.Renewers) != 0 {
		t.Errorf("DecodeDelegationToken(%s) renewers = %#v, %v", enc, got.Renewers, err)
	}
}

func TestDelegationTokenDecodeOtherForms(t *testing.T) {
	want := goldenTokenValue()
	for _, in := range []string{
		// The Scala 2.12 order the reference gives.
		`{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","maxTimestamp":100,"version":3,"tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000}`,
		`{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aalice","renewers":["User%3Abob"],"issueTimestamp":0,"maxTimestamp":100,"expiryTimestamp":1000,"tokenId":"tok1"}`,
		// Unsanitized and lower-case escapes, which Kafka's URLDecoder
		// reads too.
		`{"issueTimestamp":0,"renewers":["User:bob"],"tokenRequester":"User%3aalice","tokenId":"tok1","owner":"User:alice","expiryTimestamp":1000,"maxTimestamp":100,"version":3}`,
		// Extra keys and whitespace.
		" {\"issueTimestamp\" : 0 , \"renewers\" : [ \"User%3Abob\" ] , \"tokenRequester\":\"User%3Aalice\",\"tokenId\":\"tok1\",\"owner\":\"User%3Aalice\",\"expiryTimestamp\":1000,\"maxTimestamp\":100,\"version\":3,\"hmac\":null}\n",
		// Versions 1 and 2 have no requester: it is the owner, and a
		// tokenRequester key is ignored.
		`{"version":1,"owner":"User%3Aalice","renewers":["User%3Abob"],"issueTimestamp":0,"maxTimestamp":100,"expiryTimestamp":1000,"tokenId":"tok1"}`,
		`{"version":2,"owner":"User%3Aalice","tokenRequester":"User%3Amallory","renewers":["User%3Abob"],"issueTimestamp":0,"maxTimestamp":100,"expiryTimestamp":1000,"tokenId":"tok1"}`,
		`{"version":2,"owner":"User%3Aalice","tokenRequester":17,"renewers":["User%3Abob"],"issueTimestamp":0,"maxTimestamp":100,"expiryTimestamp":1000,"tokenId":"tok1"}`,
	} {
		got, err := DecodeDelegationToken([]byte(in))
		if err != nil || !got.Equal(want) {
			t.Errorf("DecodeDelegationToken(%s) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	// '+' is a space to URLDecoder.
	got, err := DecodeDelegationToken([]byte(strings.Replace(goldenToken, "User%3Abob", "User%3Abob+smith", 1)))
	if err != nil || got.Renewers[0] != "User:bob smith" {
		t.Errorf("plus in a renewer: %+v, %v", got, err)
	}
}

func TestDelegationTokenEqual(t *testing.T) {
	base := goldenTokenValue()
	if !base.Equal(base) {
		t.Error("token not equal to itself")
	}
	empty, nilRenewers := base, base
	empty.Renewers, nilRenewers.Renewers = []string{}, nil
	if !empty.Equal(nilRenewers) {
		t.Error("nil renewers not equal to empty ones")
	}
	for _, change := range []func(*DelegationToken){
		func(d *DelegationToken) { d.TokenID = "tok2" },
		func(d *DelegationToken) { d.Owner = "User:bob" },
		func(d *DelegationToken) { d.TokenRequester = "User:bob" },
		func(d *DelegationToken) { d.Renewers = []string{"User:alice"} },
		func(d *DelegationToken) { d.Renewers = append(d.Renewers, "User:carol") },
		func(d *DelegationToken) { d.IssueTimestamp = 1 },
		func(d *DelegationToken) { d.MaxTimestamp = 1 },
		func(d *DelegationToken) { d.ExpiryTimestamp = 1 },
	} {
		o := goldenTokenValue()
		change(&o)
		if base.Equal(o) || o.Equal(base) {
			t.Errorf("%+v equal to %+v", base, o)
		}
	}
}

func TestDelegationTokenPath(t *testing.T) {
	if got, want := DelegationTokenPath("tok1"), "/delegation_token/tokens/tok1"; got != want {
		t.Errorf("DelegationTokenPath = %q, want %q", got, want)
	}
}

func TestDelegationTokenAppendEncode(t *testing.T) {
	tok := DelegationToken{TokenID: "\x01\x02\x03", Owner: "中:中", TokenRequester: "中:中", Renewers: []string{"中:中", "中:"}, IssueTimestamp: -9223372036854775808, MaxTimestamp: -9223372036854775808, ExpiryTimestamp: -9223372036854775808}
	enc := tok.Encode()
	if got := tok.AppendEncode([]byte("prefix:")); string(got) != "prefix:"+string(enc) {
		t.Errorf("AppendEncode = %q, want prefix:%q", got, enc)
	}
	if n := tok.maxEncodedLen(); len(enc) > n {
		t.Errorf("len %d > maxEncodedLen %d", len(enc), n)
	}
}

// tokenBad returns inputs DecodeDelegationToken refuses beyond those
// every decoder refuses and the timestamps' wrong types.
func tokenBad(t *testing.T) []badInput {
	in := func(name, old, new string, reason error, field string) badInput {
		return badInput{name, replace(t, goldenToken, old, new), reason, field}
	}
	owner := `"owner":"User%3Aalice"`
	req := `"tokenRequester":"User%3Aalice"`
	ren := `"renewers":["User%3Abob"]`
	return []badInput{
		in("version missing", `,"version":3`, "", ErrMissingField, "version"),
		in("version 0", `"version":3`, `"version":0`, ErrUnknownVersion, "version"),
		in("version 4", `"version":3`, `"version":4`, ErrUnknownVersion, "version"),
		in("version string", `"version":3`, `"version":"3"`, ErrWrongType, "version"),
		{"version 4 alone", []byte(`{"version":4}`), ErrUnknownVersion, "version"},
		{"version 3 alone", []byte(`{"version":3}`), ErrMissingField, "owner"},
		in("owner missing", owner+",", "", ErrMissingField, "owner"),
		in("owner number", owner, `"owner":1`, ErrWrongType, "owner"),
		in("owner null", owner, `"owner":null`, ErrWrongType, "owner"),
		in("owner array", owner, `"owner":["User%3Aalice"]`, ErrWrongType, "owner"),
		in("owner without type", owner, `"owner":"alice"`, ErrWrongType, "owner"),
		in("owner empty", owner, `"owner":""`, ErrWrongType, "owner"),
		in("owner incomplete escape", owner, `"owner":"User%3"`, ErrWrongType, "owner"),
		in("owner bad escape", owner, `"owner":"User%zAalice"`, ErrWrongType, "owner"),
		in("owner invalid UTF-8 escape", owner, `"owner":"User%3A%FF"`, ErrWrongType, "owner"),
		in("tokenRequester missing", req+",", "", ErrMissingField, "tokenRequester"),
		in("tokenRequester null", req, `"tokenRequester":null`, ErrWrongType, "tokenRequester"),
		in("tokenRequester without type", req, `"tokenRequester":"alice"`, ErrWrongType, "tokenRequester"),
		in("renewers missing", ren+",", "", ErrMissingField, "renewers"),
		in("renewers null", ren, `"renewers":null`, ErrWrongType, "renewers"),
		in("renewers string", ren, `"renewers":"User%3Abob"`, ErrWrongType, "renewers"),
		in("renewers object", ren, `"renewers":{}`, ErrWrongType, "renewers"),
		in("renewer number", ren, `"renewers":["User%3Abob",1]`, ErrWrongType, "renewers"),
		in("renewer null", ren, `"renewers":[null]`, ErrWrongType, "renewers"),
		in("renewer without type", ren, `"renewers":["User%3Abob","bob"]`, ErrWrongType, "renewers"),
		in("renewer bad escape", ren, `"renewers":["User%3Abob%"]`, ErrWrongType, "renewers"),
		in("tokenId missing", `"tokenId":"tok1",`, "", ErrMissingField, "tokenId"),
		in("tokenId number", `"tokenId":"tok1"`, `"tokenId":1`, ErrWrongType, "tokenId"),
		in("tokenId null", `"tokenId":"tok1"`, `"tokenId":null`, ErrWrongType, "tokenId"),
		{"version 1 without owner", []byte(`{"version":1,"renewers":[],"issueTimestamp":0,"maxTimestamp":0,"expiryTimestamp":0,"tokenId":"t"}`), ErrMissingField, "owner"},
	}
}

func TestDecodeDelegationTokenBad(t *testing.T) {
	g := goldenToken
	tests := commonBad(g, "version")
	tests = append(tests, typeBad(t, g, "issueTimestamp", "0", tooBig64)...)
	tests = append(tests, typeBad(t, g, "expiryTimestamp", "1000", tooBig64)...)
	tests = append(tests, typeBad(t, g, "maxTimestamp", "100", tooBig64)...)
	tests = append(tests, tokenBad(t)...)
	for _, in := range tests {
		got, err := DecodeDelegationToken(in.data)
		if !got.Equal(DelegationToken{}) || got.Renewers != nil {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, "/delegation_token/tokens/<tokenId>", in)
	}
}

func TestDecodeDelegationTokenErrorMessage(t *testing.T) {
	_, err := DecodeDelegationToken(replace(t, goldenToken, `"renewers":["User%3Abob"]`, `"renewers":["User%3Abob","bob%2"]`))
	want := `decode /delegation_token/tokens/<tokenId>: field "renewers": wrong type: element 1: principal "bob%2": incomplete escape at the end (data: `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error =\n%v\nwant\n%s...", err, want)
	}
}

func FuzzDecodeDelegationToken(f *testing.F) {
	seeds := append(jsonSeeds(),
		goldenToken,
		`{"version":3}`,
		`{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","maxTimestamp":100,"version":3,"tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000}`,
		`{"version":1,"owner":"User%3Aalice","renewers":[],"issueTimestamp":0,"maxTimestamp":100,"expiryTimestamp":1000,"tokenId":"tok1"}`,
		`{"version":3,"owner":"User%3A%C3","tokenRequester":"a+b:c","renewers":["%zz"],"issueTimestamp":0,"maxTimestamp":0,"expiryTimestamp":0,"tokenId":""}`,
	)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := DecodeDelegationToken(data)
		if err != nil {
			checkFuzzError(t, err, delegationTokenPattern, data)
			if !tok.Equal(DelegationToken{}) || tok.Renewers != nil {
				t.Fatalf("decoded %+v along with error %v", tok, err)
			}
			return
		}
		checkAccepted(t, data)
		if tok.Renewers == nil {
			t.Fatal("decoded nil renewers")
		}
		enc := tok.Encode()
		tok2, err := DecodeDelegationToken(enc)
		if err != nil || !tok2.Equal(tok) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", tok, tok2, err)
		}
		if enc2 := tok2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

func FuzzDelegationTokenRoundTrip(f *testing.F) {
	f.Add("tok1", "alice", "alice", "bob", int64(0), int64(100), int64(1000))
	f.Add("", "", "a b*c+d", "", int64(-1), int64(-9223372036854775808), int64(9223372036854775807))
	f.Add("\x00\"", "é中😀", "%2A", ":", int64(1), int64(2), int64(3))
	f.Fuzz(func(t *testing.T, id, owner, requester, renewer string, issue, max, expiry int64) {
		// Valid tokens hold UTF-8, as Java strings, and principals of
		// the form Type:name.
		tok := DelegationToken{
			TokenID:         strings.ToValidUTF8(id, "\uFFFD"),
			Owner:           "User:" + strings.ToValidUTF8(owner, "\uFFFD"),
			TokenRequester:  strings.ToValidUTF8(requester, "\uFFFD") + ":x",
			Renewers:        []string{"User:" + strings.ToValidUTF8(renewer, "\uFFFD"), "Group:g"},
			IssueTimestamp:  issue,
			MaxTimestamp:    max,
			ExpiryTimestamp: expiry,
		}
		enc := tok.Encode()
		if !utf8.Valid(enc) {
			t.Fatalf("Encode wrote invalid UTF-8: %q", enc)
		}
		got, err := DecodeDelegationToken(enc)
		if err != nil || !got.Equal(tok) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v\n%s", tok, got, err, enc)
		}
	})
}

func FuzzSanitizePrincipal(f *testing.F) {
	for _, s := range []string{"User:alice", "", "a b*c+d", "%", "é中😀", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sanitized := Sanitize(s)
		for i := 0; i < len(sanitized); i++ {
			if c := sanitized[i]; !keptBySanitizer(c) && c != '%' {
				t.Fatalf("Sanitize(%q) = %q holds %q", s, sanitized, c)
			}
		}
		back, problem := desanitizeProblem(sanitized)
		if utf8.ValidString(s) && (problem != "" || back != s) {
			t.Fatalf("desanitizeProblem(Sanitize(%q)) = %q, %q", s, back, problem)
		}
		// Whatever desanitizes is valid UTF-8.
		if d, problem := desanitizeProblem(s); problem == "" && !utf8.ValidString(d) {
			t.Fatalf("desanitizeProblem(%q) = %q, invalid UTF-8", s, d)
		}
	})
}

// desanitizeProblem is Desanitize with its error as text, "" for none.
func desanitizeProblem(s string) (string, string) {
	d, err := Desanitize(s)
	if err != nil {
		return "", err.Error()
	}
	return d, ""
}

// keptBySanitizer reports whether Kafka's Sanitizer.sanitize keeps the
// ASCII character c as it is.
func keptBySanitizer(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_'
}
