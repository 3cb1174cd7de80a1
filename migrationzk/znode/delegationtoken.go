package znode

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// DelegationToken is the content of /delegation_token/tokens/<tokenId>:
// the information about one delegation token, without its secret HMAC.
// The principals are held as Kafka prints them, "User:alice"; in the znode
// they are URL-encoded ("User%3Aalice").
type DelegationToken struct {
	TokenID string
	// Owner is the principal the token authenticates as.
	Owner string
	// TokenRequester is the principal that requested the token, the owner
	// unless the token was created for another user.
	TokenRequester string
	// Renewers lists the principals allowed to renew the token, in order.
	Renewers []string
	// IssueTimestamp, MaxTimestamp and ExpiryTimestamp are in
	// milliseconds since the Unix epoch.
	IssueTimestamp  int64
	MaxTimestamp    int64
	ExpiryTimestamp int64
}

// delegationTokenVersion is the version Kafka 3.9 writes; 1 and 2 are
// read too.
const delegationTokenVersion = 3

// DelegationTokensPath is the parent of the delegation token znodes.
const DelegationTokensPath = "/delegation_token/tokens"

// delegationTokenPattern is the path reported by DecodeDelegationToken,
// which does not know the token id.
const delegationTokenPattern = DelegationTokensPath + "/<tokenId>"

// DelegationTokenPath returns the path of the znode of a delegation token,
// "/delegation_token/tokens/<tokenId>".
func DelegationTokenPath(tokenID string) string {
	return DelegationTokensPath + "/" + tokenID
}

// Equal reports whether t and u have equal fields, comparing the renewers
// in order. A nil Renewers equals an empty one.
func (t DelegationToken) Equal(u DelegationToken) bool {
	return t.TokenID == u.TokenID &&
		t.Owner == u.Owner &&
		t.TokenRequester == u.TokenRequester &&
		slices.Equal(t.Renewers, u.Renewers) &&
		t.IssueTimestamp == u.IssueTimestamp &&
		t.MaxTimestamp == u.MaxTimestamp &&
		t.ExpiryTimestamp == u.ExpiryTimestamp
}

// Encode returns the JSON encoding of t as Kafka 3.9 writes it, version 3,
// for example
//
//	{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000,"maxTimestamp":100,"version":3}
//
// The keys come in the order of Kafka's Scala 2.13 immutable map. Owner,
// TokenRequester and each renewer are URL-encoded as by Kafka's
// Sanitizer.sanitize (':' as "%3A", a space as "%20", '*' as "%2A");
// timestamps are JSON numbers. A nil Renewers is written as [].
func (t DelegationToken) Encode() []byte {
	return t.AppendEncode(make([]byte, 0, t.maxEncodedLen()))
}

// maxEncodedLen bounds the length of the encoding of t when its strings
// are valid UTF-8: a byte of a principal takes at most 3 bytes sanitized,
// a byte of the token id at most 6 escaped.
func (t DelegationToken) maxEncodedLen() int {
	const fixed = len(`{"issueTimestamp":,"renewers":[],"tokenRequester":"","tokenId":"","owner":"","expiryTimestamp":,"maxTimestamp":,"version":3}`) + 3*20
	n := fixed + 3*len(t.Owner) + 3*len(t.TokenRequester) + 6*len(t.TokenID)
	for _, r := range t.Renewers {
		n += 3 + 3*len(r)
	}
	return n
}

// AppendEncode appends the encoding of t, as returned by Encode, to dst
// and returns the extended slice.
func (t DelegationToken) AppendEncode(dst []byte) []byte {
	dst = append(dst, `{"issueTimestamp":`...)
	dst = strconv.AppendInt(dst, t.IssueTimestamp, 10)
	dst = append(dst, `,"renewers":[`...)
	for i, r := range t.Renewers {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), Sanitize(r)...), '"')
	}
	dst = append(dst, `],"tokenRequester":"`...)
	dst = append(dst, Sanitize(t.TokenRequester)...)
	dst = append(dst, `","tokenId":`...)
	dst = appendString(dst, t.TokenID)
	dst = append(dst, `,"owner":"`...)
	dst = append(dst, Sanitize(t.Owner)...)
	dst = append(dst, `","expiryTimestamp":`...)
	dst = strconv.AppendInt(dst, t.ExpiryTimestamp, 10)
	dst = append(dst, `,"maxTimestamp":`...)
	dst = strconv.AppendInt(dst, t.MaxTimestamp, 10)
	return append(dst, `,"version":3}`...)
}

// DecodeDelegationToken decodes the content of a delegation token znode.
// Versions 1, 2 and 3 are read. owner, renewers, issueTimestamp,
// expiryTimestamp, maxTimestamp and tokenId are required, and from version
// 3 on tokenRequester too; before it, as in Kafka, tokenRequester is
// ignored and the requester is the owner. Timestamps must be int64 JSON
// numbers. The principals are decoded as by Kafka's Sanitizer.desanitize
// and must then read "Type:name"; malformed percent escapes and escapes
// that do not decode to UTF-8 are refused. An empty renewers list decodes
// as an empty, non-nil slice.
//
// The Path of a returned *DecodeError is
// "/delegation_token/tokens/<tokenId>", literally.
func DecodeDelegationToken(data []byte) (DelegationToken, error) {
	o := parseObject(delegationTokenPattern, data)
	version := o.version(1, 2, delegationTokenVersion)
	t := DelegationToken{Owner: o.principal("owner")}
	t.TokenRequester = t.Owner
	if version >= 3 {
		t.TokenRequester = o.principal("tokenRequester")
	}
	t.Renewers = o.principalList("renewers")
	t.IssueTimestamp = o.int64("issueTimestamp")
	t.ExpiryTimestamp = o.int64("expiryTimestamp")
	t.MaxTimestamp = o.int64("maxTimestamp")
	t.TokenID = o.str("tokenId")
	if o.failed() {
		return DelegationToken{}, o.err()
	}
	return t, nil
}

// principal returns a required field holding a sanitized principal,
// desanitized.
func (o *object) principal(field string) string {
	return o.parsePrincipal(field, o.get(field))
}

// principalList returns a required field holding an array of sanitized
// principals, desanitized.
func (o *object) principalList(field string) []string {
	elems := o.elems(field)
	principals := make([]string, 0, len(elems))
	for i, e := range elems {
		principals = append(principals, o.parsePrincipal(field, bytes.TrimSpace(e)))
		if o.failed() {
			withElement(o.err(), i)
			return nil
		}
	}
	return principals
}

// parsePrincipal decodes raw, a JSON value, as a sanitized principal.
func (o *object) parsePrincipal(field string, raw []byte) string {
	s := o.parseString(field, raw)
	if o.failed() {
		return ""
	}
	p, err := Desanitize(s)
	if err != nil {
		var de *DecodeError
		detail := err.Error()
		if errors.As(err, &de) {
			detail = de.Detail
		}
		o.fail(field, ErrWrongType, "principal "+strconv.Quote(shorten(s))+": "+detail)
		return ""
	}
	if !strings.Contains(p, ":") {
		o.fail(field, ErrWrongType, "principal "+strconv.Quote(shorten(p))+" is not of the form Type:name")
	}
	return p
}
