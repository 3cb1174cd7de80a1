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
	o, err := parseObject(delegationTokenPattern, data)
	if err != nil {
		return DelegationToken{}, err
	}
	version, err := o.version(1, 2, delegationTokenVersion)
	if err != nil {
		return DelegationToken{}, err
	}
	owner, err := o.principal("owner")
	if err != nil {
		return DelegationToken{}, err
	}
	requester := owner
	if version >= 3 {
		if requester, err = o.principal("tokenRequester"); err != nil {
			return DelegationToken{}, err
		}
	}
	renewers, err := o.principalList("renewers")
	if err != nil {
		return DelegationToken{}, err
	}
	t := DelegationToken{Owner: owner, TokenRequester: requester, Renewers: renewers}
	if err := o.tokenTimestamps(&t); err != nil {
		return DelegationToken{}, err
	}
	if t.TokenID, err = o.str("tokenId"); err != nil {
		return DelegationToken{}, err
	}
	return t, nil
}

// tokenTimestamps sets the three timestamps of t from their required
// fields.
func (o *object) tokenTimestamps(t *DelegationToken) error {
	for _, f := range []struct {
		field string
		dst   *int64
	}{
		{"issueTimestamp", &t.IssueTimestamp},
		{"expiryTimestamp", &t.ExpiryTimestamp},
		{"maxTimestamp", &t.MaxTimestamp},
	} {
		v, err := o.int(f.field, 64)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	return nil
}

// principal returns a required field holding a sanitized principal,
// desanitized.
func (o *object) principal(field string) (string, error) {
	raw, err := o.get(field)
	if err != nil {
		return "", err
	}
	return o.parsePrincipal(field, raw)
}

// principalList returns a required field holding an array of sanitized
// principals, desanitized.
func (o *object) principalList(field string) ([]string, error) {
	elems, err := o.elems(field)
	if err != nil {
		return nil, err
	}
	principals := make([]string, 0, len(elems))
	for i, e := range elems {
		p, err := o.parsePrincipal(field, bytes.TrimSpace(e))
		if err != nil {
			if de, ok := err.(*DecodeError); ok {
				de.Detail = "element " + strconv.Itoa(i) + ": " + de.Detail
			}
			return nil, err
		}
		principals = append(principals, p)
	}
	return principals, nil
}

// parsePrincipal decodes raw, a JSON value, as a sanitized principal.
func (o *object) parsePrincipal(field string, raw []byte) (string, error) {
	s, err := o.parseString(field, raw)
	if err != nil {
		return "", err
	}
	p, err := Desanitize(s)
	if err != nil {
		var de *DecodeError
		detail := err.Error()
		if errors.As(err, &de) {
			detail = de.Detail
		}
		return "", o.fail(field, ErrWrongType, "principal "+strconv.Quote(shorten(s))+": "+detail)
	}
	if !strings.Contains(p, ":") {
		return "", o.fail(field, ErrWrongType, "principal "+strconv.Quote(shorten(p))+" is not of the form Type:name")
	}
	return p, nil
}
