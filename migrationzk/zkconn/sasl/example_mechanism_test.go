package sasl_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// rotatingDigest is DIGEST-MD5 with the password read from a file for
// each connection, so that a reconnect after the password was rotated
// uses the new one.
type rotatingDigest struct{ user, passwordFile string }

func (r rotatingDigest) Name() string { return "DIGEST-MD5" }

func (r rotatingDigest) Authenticate(ctx context.Context, address string) (sasl.Exchange, []byte, error) {
	password, err := os.ReadFile(r.passwordFile)
	if err != nil {
		return nil, nil, &sasl.Error{Mechanism: r.Name(), Server: address, Failure: sasl.ClientFailure, Err: err}
	}
	return sasl.DigestMD5(r.user, strings.TrimSpace(string(password))).Authenticate(ctx, address)
}

// Prepare fails a dial, before it reaches the server, when the password
// file cannot be read.
func (r rotatingDigest) Prepare(_ context.Context, address string) error {
	if _, err := os.Stat(r.passwordFile); err != nil {
		return &sasl.Error{Mechanism: r.Name(), Server: address, Failure: sasl.ClientFailure, Err: err}
	}
	return nil
}

// A mechanism of one's own is a type with Name and Authenticate.
func ExampleMechanism() {
	var m sasl.Mechanism = rotatingDigest{user: "kafka", passwordFile: "/etc/kafka/zk-password"}
	_ = zkconn.WithSASL(m)
	fmt.Println(m.Name())
	// Output: DIGEST-MD5
}

// With Prepare, a failure on the client's side costs no server session.
func ExamplePreparingMechanism() {
	var m sasl.Mechanism = rotatingDigest{user: "kafka", passwordFile: "/nonexistent/zk-password"}
	if p, ok := m.(sasl.PreparingMechanism); ok {
		fmt.Println(p.Prepare(context.Background(), "zk1:2181") != nil)
	}
	// Output: true
}

// countingExchange counts the server's replies an exchange takes.
type countingExchange struct {
	sasl.Exchange
	replies *atomic.Int64
}

func (x countingExchange) Challenge(token []byte) (bool, []byte, error) {
	x.replies.Add(1)
	return x.Exchange.Challenge(token)
}

// An Exchange answers the server's replies one at a time; DIGEST-MD5's
// first is the server's challenge.
func ExampleExchange() {
	ex, first, err := sasl.DigestMD5("kafka", "kafka-secret").Authenticate(context.Background(), "zk1:2181")
	if err != nil {
		panic(err)
	}
	var replies atomic.Int64
	counted := countingExchange{Exchange: ex, replies: &replies}
	done, response, err := counted.Challenge([]byte(`realm="zk-sasl-md5",nonce="n0nce",charset=utf-8,algorithm=md5-sess`))
	fmt.Println(len(first), done, strings.HasPrefix(string(response), "charset=utf-8,username=\"kafka\""), err, replies.Load())
	// Output: 0 false true <nil> 1
}
