package dualwrite_test

import (
	"strings"
	"testing"
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
