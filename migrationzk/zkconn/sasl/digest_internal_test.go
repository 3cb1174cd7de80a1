package sasl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// rfc2831Mechanism is the client of RFC 2831's example exchange (section
// 4): user chris, password secret, digest-uri imap/elwood.innosoft.com.
func rfc2831Mechanism() *digestMechanism {
	m := newDigestMechanism("chris", "secret")
	m.digestURI = "imap/elwood.innosoft.com"
	m.cnonce = func() (string, error) { return "OA6MHXh6VqTrRk", nil }
	return m
}

const rfc2831Challenge = `realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8`

// The response and rspauth of RFC 2831's example.
func TestDigestRFC2831Example(t *testing.T) {
	ex, first, err := rfc2831Mechanism().Authenticate(context.Background(), "imap:143")
	if err != nil || first == nil || len(first) != 0 {
		t.Fatalf("first token %q (nil %v), %v; want an empty one", first, first == nil, err)
	}
	done, response, err := ex.Challenge([]byte(rfc2831Challenge))
	if err != nil || done {
		t.Fatalf("step: done %v, %v", done, err)
	}
	d, err := parseDirectives(string(response))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"username": "chris", "realm": "elwood.innosoft.com", "nonce": "OA6MG9tEQGm2hh", "nc": "00000001",
		"cnonce": "OA6MHXh6VqTrRk", "digest-uri": "imap/elwood.innosoft.com", "response": "d388dad90d4bbd760a152321f2143af7",
		"qop": "auth", "charset": "utf-8"}
	for k, v := range want {
		if d.get(k) != v {
			t.Errorf("%s=%q; want %q (response %s)", k, d.get(k), v, response)
		}
	}
	if done, _, err := ex.Challenge([]byte("rspauth=ea40f60335c427b5527b84dbabcdfffd")); err != nil || !done {
		t.Fatalf("rspauth: done %v, %v", done, err)
	}
}

// A wrong rspauth, a null token and a challenge without md5-sess are the
// server's fault (ServerInvalid).
func TestDigestRefusesBadServer(t *testing.T) {
	cases := map[string][]string{
		"wrong rspauth":        {rfc2831Challenge, "rspauth=ea40f60335c427b5527b84dbabcdfffe"},
		"no rspauth":           {rfc2831Challenge, "foo=bar"},
		"null rspauth":         {rfc2831Challenge, "\x00null"},
		"null challenge":       {"\x00null"},
		"no nonce":             {`realm="r",algorithm=md5-sess`},
		"md5, not md5-sess":    {`realm="r",nonce="n",algorithm=md5`},
		"no auth qop":          {`realm="r",nonce="n",qop="auth-conf",algorithm=md5-sess`},
		"unterminated quoting": {`realm="r,nonce="n",algorithm=md5-sess`},
	}
	for name, tokens := range cases {
		ex, _, _ := rfc2831Mechanism().Authenticate(context.Background(), "imap:143")
		var err error
		for _, tok := range tokens {
			var b []byte
			if tok != "\x00null" {
				b = []byte(tok)
			}
			if _, _, err = ex.Challenge(b); err != nil {
				break
			}
		}
		var se *Error
		if !errors.As(err, &se) || se.Failure != ServerInvalid {
			t.Errorf("%s: %v; want a *Error, ServerInvalid", name, err)
		}
	}
}

// RFC 2831: under charset=utf-8, a string whose characters all are in
// ISO-8859-1 is hashed in ISO-8859-1; others in UTF-8.
func TestDigestLatin1Rule(t *testing.T) {
	if got := latin1OrUTF8("pässwörd"); string(got) != "p\xe4ssw\xf6rd" {
		t.Errorf("pässwörd -> %q; want ISO-8859-1", got)
	}
	if got := latin1OrUTF8("päss€"); string(got) != "päss€" {
		t.Errorf("päss€ -> %q; want UTF-8", got)
	}
	if got := quote(`a"b\c`); got != `"a\"b\\c"` {
		t.Errorf("quote: %s", got)
	}
	d, err := parseDirectives(`username="a\"b\\c", realm=x`)
	if err != nil || d.get("username") != `a"b\c` || d.get("realm") != "x" {
		t.Errorf("parse: %v, %v", d, err)
	}
	if strings.Contains((&Error{Mechanism: digestMD5, Server: "s", Failure: Rejected, Err: errors.New("x")}).Error(), "secret") {
		t.Error("an error names the password")
	}
}
