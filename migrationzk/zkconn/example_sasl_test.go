package zkconn_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// Open authenticates every connection with SASL DIGEST-MD5, and fails at
// once, with the reason, when the server rejects the password.
func ExampleWithSASLDigest() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181", "zk2:2181", "zk3:2181"}, 10*time.Second,
		zkconn.WithSASLDigest("kafka", "kafka-secret"))
	var se *zkconn.SASLError
	if errors.As(err, &se) && se.Failure == zkconn.SASLRejected {
		log.Fatalf("fix the credentials: %v", se)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A Kafka broker's JAAS file works unchanged: its Client section
// configures the client.
func ExampleWithJAASConfig() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181"}, 10*time.Second,
		zkconn.WithJAASConfig("/etc/kafka/kafka_server_jaas.conf"))
	var je *zkconn.JAASError
	if errors.As(err, &je) {
		log.Fatalf("fix the JAAS file: %v", je)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// The settings a broker passes as system properties configure the client
// the same way.
func ExampleSASLSettingsFromProperties() {
	settings, err := zkconn.SASLSettingsFromProperties(map[string]string{
		"java.security.auth.login.config": "/etc/kafka/kafka_server_jaas.conf",
		"zookeeper.sasl.clientconfig":     "ZkClient",
		"zookeeper.sasl.client.username":  "zk",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(settings.JAASFile, settings.Section, settings.ServiceName)
	// Output: /etc/kafka/kafka_server_jaas.conf ZkClient zk
}

// WithSASLSettings takes SASLSettings, from properties or made by hand.
func ExampleWithSASLSettings() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181"}, 10*time.Second,
		zkconn.WithSASLSettings(zkconn.SASLSettings{JAASFile: "/etc/kafka/jaas.conf", Section: "ZkClient"}))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// Kerberos from a keytab, with the server principal ZooKeeper's client
// derives: zookeeper/<host>.
func ExampleWithSASLKerberos() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1.example.com:2181"}, 10*time.Second,
		zkconn.WithSASLKerberos(zkconn.KerberosConfig{
			Principal:            "kafka/broker1.example.com@EXAMPLE.COM",
			KeyTab:               "/etc/security/keytabs/kafka.keytab",
			CanonicalizeHostname: true,
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A running client reports a session that fails to authenticate again
// after a reconnect: logged, and counted.
func ExampleWithSASLStats() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var stats zkconn.SASLStats
	conn, err := zkconn.Open(ctx, []string{"zk1:2181"}, 10*time.Second,
		zkconn.WithSASLDigest("kafka", "kafka-secret"),
		zkconn.WithSASLStats(&stats),
		zkconn.WithSASLLogger(slog.Default()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	if stats.ReauthFailed() > 0 {
		log.Print("the session lost its authentication: close the client and open a new one")
	}
}

// WithSASLLogger logs failed exchanges.
func ExampleWithSASLLogger() {
	opts := []zkconn.Option{zkconn.WithSASLDigest("kafka", "kafka-secret"), zkconn.WithSASLLogger(slog.Default())}
	_ = opts
}

// WithoutSASL turns SASL off, after options that turned it on.
func ExampleWithoutSASL() {
	opts := []zkconn.Option{zkconn.WithJAASConfig("/etc/kafka/jaas.conf"), zkconn.WithoutSASL()}
	_ = opts
}

// A program that calls zk.Connect itself wraps its dialer.
func ExampleSASLDialer() {
	dial, err := zkconn.SASLDialer(nil, 10*time.Second, zkconn.WithSASLDigest("kafka", "kafka-secret"))
	if err != nil {
		log.Fatal(err)
	}
	conn, _, err := zk.Connect([]string{"zk1:2181"}, 10*time.Second, zk.WithDialer(dial))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A SASLError says what failed and whether trying again can help.
func ExampleSASLError() {
	err := error(&zkconn.SASLError{Mechanism: "DIGEST-MD5", Server: "zk1:2181", Failure: zkconn.SASLRejected, Err: errors.New("the server replied AUTHFAILED (-115)")})
	var se *zkconn.SASLError
	if errors.As(err, &se) {
		fmt.Println(se.Failure == zkconn.SASLRejected, se.Server)
	}
	// Output: true zk1:2181
}
