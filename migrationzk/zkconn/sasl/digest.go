package sasl

import (
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

const digestMD5 = "DIGEST-MD5"

// ZooKeeper's DIGEST-MD5 server names itself with fixed constants, not
// the host dialled: protocol "zookeeper", server name "zk-sasl-md5". It
// checks the digest-uri against them.
const zookeeperDigestURI = "zookeeper/zk-sasl-md5"

// DigestMD5 returns DIGEST-MD5 (RFC 2831) as user with password, as a
// Kafka broker authenticates with a JAAS Client section of ZooKeeper's
// DigestLoginModule; the server then knows the client as sasl:user. It
// speaks the "auth" quality of protection, the only one ZooKeeper offers,
// with ZooKeeper's fixed digest-uri zookeeper/zk-sasl-md5, checks the
// server's rspauth, and hashes credentials in ISO-8859-1 when they fit
// in it, else in UTF-8. Unlike zkconn.WithDigest, a wrong password is
// refused by the server (an *Error of Failure Rejected). An empty user
// fails every dial before it reaches the server (ClientFailure).
func DigestMD5(user, password string) Mechanism {
	return newDigestMechanism(user, password)
}

// digestMechanism is the client side of DIGEST-MD5.
type digestMechanism struct {
	user, password string
	digestURI      string
	cnonce         func() (string, error)
}

func newDigestMechanism(user, password string) *digestMechanism {
	return &digestMechanism{user: user, password: password, digestURI: zookeeperDigestURI, cnonce: randomCnonce}
}

// Name is "DIGEST-MD5".
func (m *digestMechanism) Name() string { return digestMD5 }

// String names the mechanism and the user, never the password, should
// the mechanism be logged.
func (m *digestMechanism) String() string { return digestMD5 + " as " + m.user }

// Prepare refuses an empty user name before anything is dialled.
func (m *digestMechanism) Prepare(_ context.Context, address string) error {
	if m.user == "" {
		return &Error{Mechanism: digestMD5, Server: address, Failure: ClientFailure, Err: errors.New("no user name")}
	}
	return nil
}

// Authenticate sends an empty first token: DIGEST-MD5 has no initial
// response.
func (m *digestMechanism) Authenticate(_ context.Context, address string) (Exchange, []byte, error) {
	return &digestExchange{m: m, server: address}, []byte{}, nil
}

func randomCnonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(b[:]), nil
}

// digestExchange is one exchange: the server's challenge, the client's
// response, then the server's rspauth, which the client checks.
type digestExchange struct {
	m      *digestMechanism
	server string
	// rspauth is the value the server must send back, once the response
	// is sent.
	rspauth string
}

func (x *digestExchange) fail(f Failure, format string, args ...any) error {
	return &Error{Mechanism: digestMD5, Server: x.server, Failure: f, Err: fmt.Errorf(format, args...)}
}

// Challenge answers the server's challenge, then checks its rspauth.
func (x *digestExchange) Challenge(challenge []byte) (bool, []byte, error) {
	switch {
	case challenge == nil && x.rspauth == "":
		// An error-free null token: the server has no JAAS Server section.
		return false, nil, x.fail(ServerInvalid, "the server sent no digest challenge: it is not configured for SASL")
	case challenge == nil:
		// The server lets clients whose exchange failed go on
		// unauthenticated (zookeeper.allowSaslFailedClients).
		return false, nil, x.fail(ServerInvalid, "the server sent no rspauth: it did not authenticate the client (a wrong password on a server with zookeeper.allowSaslFailedClients?)")
	}
	if x.rspauth == "" {
		response, err := x.respond(challenge)
		return false, response, err
	}
	return true, nil, x.verify(challenge)
}

// respond answers the server's digest-challenge with a digest-response.
func (x *digestExchange) respond(challenge []byte) ([]byte, error) {
	d, err := parseDirectives(string(challenge))
	if err != nil {
		return nil, x.fail(ServerInvalid, "bad digest challenge: %v", err)
	}
	nonce := d.get("nonce")
	if nonce == "" {
		return nil, x.fail(ServerInvalid, "the digest challenge has no nonce")
	}
	if alg := d.get("algorithm"); alg != "md5-sess" {
		return nil, x.fail(ServerInvalid, "the digest challenge asks for algorithm %q, not md5-sess", alg)
	}
	if qop := d.get("qop"); qop != "" && !hasToken(qop, "auth") {
		return nil, x.fail(ServerInvalid, "the server offers qop %q, without auth", qop)
	}
	utf8Charset := strings.EqualFold(d.get("charset"), "utf-8")
	if !utf8Charset && !(fitsLatin1(x.m.user) && fitsLatin1(x.m.password)) {
		return nil, x.fail(ClientFailure, "the credentials need UTF-8 and the server does not offer it")
	}
	cnonce, err := x.m.cnonce()
	if err != nil {
		return nil, x.fail(ClientFailure, "make a cnonce: %v", err)
	}
	p := digestParams{user: x.m.user, realm: d.get("realm"), password: x.m.password, nonce: nonce, cnonce: cnonce,
		nc: "00000001", qop: "auth", uri: x.m.digestURI}
	x.rspauth = p.digest(":" + p.uri)
	var b strings.Builder
	if utf8Charset {
		b.WriteString("charset=utf-8,")
	}
	fmt.Fprintf(&b, "username=%s,realm=%s,nonce=%s,nc=%s,cnonce=%s,digest-uri=%s,maxbuf=65536,response=%s,qop=auth",
		quote(p.user), quote(p.realm), quote(nonce), p.nc, quote(cnonce), quote(p.uri), p.digest("AUTHENTICATE:"+p.uri))
	return []byte(b.String()), nil
}

// verify checks the server's rspauth, which proves it knows the password.
func (x *digestExchange) verify(reply []byte) error {
	d, err := parseDirectives(string(reply))
	if err != nil {
		return x.fail(ServerInvalid, "bad reply to the digest response: %v", err)
	}
	got := d.get("rspauth")
	if got == "" {
		return x.fail(ServerInvalid, "the reply to the digest response has no rspauth")
	}
	if !hmac.Equal([]byte(strings.ToLower(got)), []byte(x.rspauth)) {
		return x.fail(ServerInvalid, "the server's rspauth does not match: it does not know the password")
	}
	return nil
}

// digestParams are the inputs of RFC 2831's response value.
type digestParams struct {
	user, realm, password string
	nonce, cnonce, nc     string
	qop, uri              string
}

// digest returns the response value for a2 ("AUTHENTICATE:uri" in the
// client's response, ":uri" in the server's rspauth), without authzid.
func (p digestParams) digest(a2 string) string {
	secret := md5.New()
	secret.Write(latin1OrUTF8(p.user))
	secret.Write([]byte(":"))
	secret.Write(latin1OrUTF8(p.realm))
	secret.Write([]byte(":"))
	secret.Write(latin1OrUTF8(p.password))
	a1 := append(secret.Sum(nil), ":"+p.nonce+":"+p.cnonce...)
	ha1 := md5Hex(a1)
	ha2 := md5Hex([]byte(a2))
	return md5Hex([]byte(ha1 + ":" + p.nonce + ":" + p.nc + ":" + p.cnonce + ":" + p.qop + ":" + ha2))
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// latin1OrUTF8 encodes s as RFC 2831 asks for a name, realm or password
// hashed under charset=utf-8: in ISO-8859-1 when all its characters are
// in it, else in UTF-8. Each string is judged on its own, as ZooKeeper's
// server (the JDK's DIGEST-MD5) does.
func latin1OrUTF8(s string) []byte {
	if !fitsLatin1(s) {
		return []byte(s)
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return b
}

func fitsLatin1(s string) bool {
	for _, r := range s {
		if r > 0xff || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// quote makes s a quoted-string: backslash before '"' and '\'.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func hasToken(list, token string) bool {
	for _, t := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// directives are the name=value pairs of a digest challenge or reply;
// a name given more than once keeps its values in order.
type directives map[string][]string

func (d directives) get(name string) string {
	if v := d[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// parseDirectives parses RFC 2831's comma-separated name=value list,
// values quoted or not.
func parseDirectives(s string) (directives, error) {
	d := directives{}
	for {
		s = strings.TrimLeft(s, " \t\r\n,")
		if s == "" {
			return d, nil
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("no value in %q", s)
		}
		name := strings.ToLower(strings.TrimSpace(s[:eq]))
		value, rest, err := directiveValue(strings.TrimLeft(s[eq+1:], " \t"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		d[name] = append(d[name], value)
		s = rest
	}
}

// directiveValue splits a value off s: a quoted-string or a token.
func directiveValue(s string) (value, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s, ',')
		if end < 0 {
			end = len(s)
		}
		return strings.TrimSpace(s[:end]), s[end:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", errors.New("unterminated quoted string")
}
