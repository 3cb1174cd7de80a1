package znode_test

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func ExampleDelegationToken_Encode() {
	t := znode.DelegationToken{
		TokenID:         "tok1",
		Owner:           "User:alice",
		TokenRequester:  "User:alice",
		Renewers:        []string{"User:bob"},
		IssueTimestamp:  0,
		MaxTimestamp:    100,
		ExpiryTimestamp: 1000,
	}
	fmt.Println(znode.DelegationTokenPath(t.TokenID))
	fmt.Printf("%s\n", t.Encode())
	// Output:
	// /delegation_token/tokens/tok1
	// {"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000,"maxTimestamp":100,"version":3}
}

func ExampleDecodeDelegationToken() {
	// The key order of a Scala 2.12 build; the principals come back
	// desanitized.
	t, err := znode.DecodeDelegationToken([]byte(`{"issueTimestamp":0,"renewers":["User%3Abob"],"tokenRequester":"User%3Aalice","maxTimestamp":100,"version":3,"tokenId":"tok1","owner":"User%3Aalice","expiryTimestamp":1000}`))
	fmt.Printf("%+v %v\n", t, err)
	// Output:
	// {TokenID:tok1 Owner:User:alice TokenRequester:User:alice Renewers:[User:bob] IssueTimestamp:0 MaxTimestamp:100 ExpiryTimestamp:1000} <nil>
}
