package dualwrite_test

import (
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: none. A delegation token is written as Kafka 3.9 writes it,
// principals sanitized, with no token_change_ notification (Kafka's
// migration sends none), and deleted.
func TestKafkaDelegationToken(t *testing.T) {
	c := newCluster(t)
	s, err := c.c.WriteDelegationToken(testContext(t), at(c.s, 200), token)
	if err != nil {
		t.Fatal(err)
	}
	c.wantData("/delegation_token/tokens/tok1", `{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000,"maxTimestamp":100,"version":3}`)
	if got := c.children("/delegation_token"); strings.Join(got, ",") != "tokens" {
		t.Fatalf("/delegation_token holds %v, want the tokens alone", got)
	}
	if s, err = c.c.DeleteDelegationToken(testContext(t), at(s, 201), "tok1"); err != nil {
		t.Fatal(err)
	}
	c.wantVersion(s, 2)
	if c.version("/delegation_token/tokens/tok1") != -1 {
		t.Fatal("the deleted token is still there")
	}
}

// tokenRows are the delegation tokens' rows of the tables every domain
// fills.
func tokenRows() domainRows {
	owner := token
	owner.Owner = "alice"
	return domainRows{
		invalid: []invalid{
			{"delegation token without an id", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(znode.DelegationToken{}) }},
			{"delegation token owner without a type", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(owner) }},
			{"delegation token deleted without an id", func(b *dualwrite.Batch) *dualwrite.Batch { return b.DeleteDelegationToken("") }},
		},
		refused: refusedTokenChanges(),
		undecodable: []undecodable{
			{"delegation token", "/delegation_token/tokens/tok1", func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(token) }},
		},
		diff: tokenDiffCases(),
		values: []valuesCase{
			{name: "token fields",
				desired: func(img *dualwrite.Image) {
					t := token
					t.ExpiryTimestamp, t.Renewers = 2000, []string{"User:bob", "User:carol"}
					img.DelegationTokens["tok1"] = t
				},
				want: "write-delegation-token tok1\n    renewers: [User:bob] -> [User:bob,User:carol]\n    expiry_timestamp: 1000 -> 2000\n"},
		},
	}
}

func refusedTokenChanges() []namedInvalid {
	tokenWith := func(mutate func(*znode.DelegationToken)) func(*dualwrite.Batch) *dualwrite.Batch {
		tok := token
		tok.Renewers = append([]string(nil), token.Renewers...)
		mutate(&tok)
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteDelegationToken(tok) }
	}
	return []namedInvalid{
		{invalid{"token owner not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.Owner = "User:\xff" })}, `owner "User:\xff"`},
		{invalid{"token requester not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.TokenRequester = "User:a\xff" })}, `requester "User:a\xff"`},
		{invalid{"token renewer not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.Renewers = append(t.Renewers, "User:\xfe") })}, `renewer "User:\xfe"`},
		{invalid{"token renewer not a User", tokenWith(func(t *znode.DelegationToken) { t.Renewers = []string{"Group:ops"} })}, `renewer "Group:ops"`},
		{invalid{"token id not UTF-8", tokenWith(func(t *znode.DelegationToken) { t.TokenID = "t\xff" })}, `delegation token name "t\xff"`},
	}
}

func tokenDiffCases() []diffCase {
	return []diffCase{
		{name: "token changed", desired: func(img *dualwrite.Image) {
			t := token
			t.ExpiryTimestamp = 2000
			img.DelegationTokens["tok1"] = t
		}, want: []string{"write-delegation-token tok1"}},
		{name: "token new", desired: func(img *dualwrite.Image) {
			t := token
			t.TokenID = "ignored"
			img.DelegationTokens["tok2"] = t
		}, want: []string{"write-delegation-token tok2"}},
		{name: "token removed", desired: func(img *dualwrite.Image) { delete(img.DelegationTokens, "tok1") }, want: []string{"delete-delegation-token tok1"}},
	}
}
