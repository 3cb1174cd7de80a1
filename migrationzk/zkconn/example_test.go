package zkconn_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// Open returns a client that holds a session and reconnects at once after
// a lost connection; go-zookeeper's own options go in WithZKOptions.
func ExampleOpen_zkOptions() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181", "zk2:2181", "zk3:2181"}, 10*time.Second, zkconn.WithZKOptions(zk.WithLogger(zkconn.SlogLogger(slog.Default()))))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A HostProvider can be tuned and passed to go-zookeeper directly.
func ExampleHostProvider() {
	hp := &zkconn.HostProvider{InitialBackoff: 5 * time.Millisecond, MaxBackoff: 250 * time.Millisecond, GiveUpAfter: 30 * time.Second}
	conn, _, err := zk.Connect([]string{"127.0.0.1:2181"}, 10*time.Second, zk.WithHostProvider(hp))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	if err := zkconn.WaitForSession(context.Background(), conn); err != nil {
		log.Fatal(err)
	}
}

// Open connects over TLS, authenticated, and fails at once, with the
// reason, when the server refuses the client's certificate.
func ExampleOpen() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	config := &tls.Config{RootCAs: x509.NewCertPool()} // the CAs that sign the servers' certificates
	conn, err := zkconn.Open(ctx, []string{"zk1:2182", "zk2:2182", "zk3:2182"}, 10*time.Second,
		zkconn.WithTLS(config),
		zkconn.WithDigest("migration", "secret"),
		zkconn.WithZKOptions(zk.WithLogger(zkconn.SlogLogger(slog.Default()))))
	var he *zkconn.HandshakeError
	if errors.As(err, &he) {
		log.Fatalf("fix the TLS configuration: %v", he.Failure)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A TLS dialer for go-zookeeper's own Connect, which reports no failure.
func ExampleTLSDialer() {
	config := &tls.Config{RootCAs: x509.NewCertPool()}
	conn, _, err := zk.Connect([]string{"127.0.0.1:2182"}, 10*time.Second,
		zk.WithDialer(zkconn.TLSDialer(config, nil, zkconn.DefaultHandshakeTimeout)))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// WithTLS connects over TLS; the host dialled is the name verified.
func ExampleWithTLS() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cert, err := tls.LoadX509KeyPair("client.pem", "client-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	config := &tls.Config{Certificates: []tls.Certificate{cert}}
	conn, err := zkconn.Open(ctx, []string{"zk1.example.com:2182"}, 10*time.Second, zkconn.WithTLS(config))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// WithDialer takes any dialer, such as a TLS dialer with a custom TCP
// dialer under it; Open still reports its failures.
func ExampleWithDialer() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tcp := func(network, address string, timeout time.Duration) (net.Conn, error) {
		d := net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Second}
		return d.Dial(network, address)
	}
	dialer := zkconn.TLSDialer(&tls.Config{}, tcp, 5*time.Second)
	conn, err := zkconn.Open(ctx, []string{"zk1:2182"}, 10*time.Second, zkconn.WithDialer(dialer))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// WithDigest authenticates before any request: it works with a server
// that enforces authentication. A wrong password is not reported; the
// first request the ACLs deny fails with zk.ErrNoAuth.
func ExampleWithDigest() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second, zkconn.WithDigest("super", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Set("/migration", nil, -1); errors.Is(err, zk.ErrNoAuth) {
		log.Print("the ACL denies this user: is the password right?")
	}
}

// WithAuth adds credentials of any scheme; one the server does not know
// fails Open with an *AuthError.
func ExampleWithAuth() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second, zkconn.WithAuth("ip", nil))
	var ae *zkconn.AuthError
	if errors.As(err, &ae) {
		log.Fatalf("scheme %s refused: %v", ae.Scheme, ae.Err)
	}
}

// WithZKOptions passes go-zookeeper's options through.
func ExampleWithZKOptions() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second,
		zkconn.WithZKOptions(zk.WithMaxBufferSize(1<<20), zk.WithLogger(zkconn.SlogLogger(slog.Default()))))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// WithAttempts lets more attempts fail before Open gives up, as for
// servers that are about to start.
func ExampleWithAttempts() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"127.0.0.1:2181"}, 10*time.Second, zkconn.WithAttempts(10*zkconn.DefaultAttempts))
	if errors.Is(err, syscall.ECONNREFUSED) {
		log.Fatal("nothing listens at 127.0.0.1:2181")
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A HandshakeError says which side's certificate failed, and why.
func ExampleHandshakeError() {
	err := error(&zkconn.HandshakeError{Server: "zk1:2182", Failure: zkconn.MissingClientCertificate, Err: errors.New("remote error: tls: bad certificate")})
	var he *zkconn.HandshakeError
	if errors.As(err, &he) {
		fmt.Println(he.Failure == zkconn.MissingClientCertificate, he.Transient())
		fmt.Println(err)
	}
	// Output:
	// true false
	// zkconn: TLS handshake with zk1:2182 failed: the server requires a client certificate and none is configured (check the keystore): remote error: tls: bad certificate
}

// Transient tells an interrupted handshake, worth retrying, from a refusal.
func ExampleHandshakeError_Transient() {
	for _, f := range []zkconn.HandshakeFailure{zkconn.InterruptedHandshake, zkconn.ExpiredServerCertificate} {
		fmt.Println(f, (&zkconn.HandshakeError{Failure: f}).Transient())
	}
	// Output:
	// the connection broke or timed out during the handshake true
	// the server's certificate has expired or is not yet valid false
}

// Each failure describes itself for an operator.
func ExampleHandshakeFailure() {
	for _, f := range []zkconn.HandshakeFailure{
		zkconn.UntrustedServerCertificate, zkconn.ServerHostnameMismatch,
		zkconn.RejectedClientCertificate, zkconn.ExpiredClientCertificate, zkconn.OtherHandshakeFailure,
	} {
		fmt.Println(f)
	}
	// Output:
	// the server's certificate is not signed by a trusted CA (check the truststore)
	// the server's certificate is not valid for the address dialled
	// the server rejected the client certificate (is it signed by a CA the server trusts?)
	// the server rejected the client certificate, which has expired or is not yet valid
	// TLS error
}

// An AuthError wraps go-zookeeper's error.
func ExampleAuthError() {
	err := error(&zkconn.AuthError{Scheme: "kerberos", Err: zk.ErrAuthFailed})
	fmt.Println(errors.Is(err, zk.ErrAuthFailed))
	fmt.Println(err)
	// Output:
	// true
	// zkconn: the server refused credentials of scheme "kerberos": zk: client authentication failed
}

// An invalid option fails Open before anything is dialled.
func ExampleErrInvalidArgument() {
	_, err := zkconn.Open(context.Background(), []string{"127.0.0.1:2181"}, 10*time.Second, zkconn.WithDigest("user:name", "secret"))
	fmt.Println(errors.Is(err, zkconn.ErrInvalidArgument))
	// Output: true
}

// WithSASL authenticates every connection with a SASL mechanism: here the
// one a Kafka broker's JAAS file names in its Client section.
func ExampleWithSASL() {
	mech, err := sasl.FromJAASFile("/etc/kafka/kafka_server_jaas.conf")
	if err != nil {
		log.Fatal(err) // a *sasl.JAASError
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181"}, 10*time.Second, zkconn.WithSASL(mech))
	var se *sasl.Error
	if errors.As(err, &se) {
		log.Fatalf("SASL %s failed: %v", se.Mechanism, se.Failure)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// WithSASLStats counts the exchanges, and a session that lost its
// authentication on a reconnect.
func ExampleWithSASLStats() {
	var stats sasl.Stats
	opts := []zkconn.Option{zkconn.WithSASL(sasl.DigestMD5("kafka", "kafka-secret")), zkconn.WithSASLStats(&stats)}
	_ = opts
	fmt.Println(stats.ReauthFailed())
	// Output: 0
}

// WithSASLLogger logs failed exchanges.
func ExampleWithSASLLogger() {
	opts := []zkconn.Option{zkconn.WithSASL(sasl.DigestMD5("kafka", "kafka-secret")), zkconn.WithSASLLogger(slog.Default())}
	_ = opts
}

// WithoutSASL turns SASL off, after options that turned it on.
func ExampleWithoutSASL() {
	opts := []zkconn.Option{zkconn.WithSASL(sasl.DigestMD5("kafka", "kafka-secret")), zkconn.WithoutSASL()}
	_ = opts
}
