package sasl_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// Open authenticates every connection with SASL DIGEST-MD5, and fails at
// once, with the reason, when the server rejects the password.
func ExampleDigestMD5() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181", "zk2:2181", "zk3:2181"}, 10*time.Second,
		zkconn.WithSASL(sasl.DigestMD5("kafka", "kafka-secret")))
	var se *sasl.Error
	if errors.As(err, &se) && se.Failure == sasl.Rejected {
		log.Fatalf("fix the credentials: %v", se)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A Kafka broker's JAAS file works unchanged: its Client section
// configures the client.
func ExampleFromJAASFile() {
	mech, err := sasl.FromJAASFile("/etc/kafka/kafka_server_jaas.conf")
	var je *sasl.JAASError
	if errors.As(err, &je) {
		log.Fatalf("fix the JAAS file: %v", je)
	}
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2181"}, 10*time.Second, zkconn.WithSASL(mech))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// The settings a broker passes as system properties configure the client
// the same way.
func ExampleSettingsFromProperties() {
	settings, err := sasl.SettingsFromProperties(map[string]string{
		sasl.PropJAASConfig:       "/etc/kafka/kafka_server_jaas.conf",
		sasl.PropSASLClientConfig: "ZkClient",
		sasl.PropSASLServiceName:  "zk",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(settings.JAASFile, settings.Section, settings.ServiceName)
	// Output: /etc/kafka/kafka_server_jaas.conf ZkClient zk
}

// Settings.Mechanism is nil, and no error, when the settings turn SASL
// off, as zookeeper.sasl.client=false does.
func ExampleSettings_Mechanism() {
	settings := sasl.Settings{JAASFile: "/etc/kafka/jaas.conf", Disabled: true}
	mech, err := settings.Mechanism()
	fmt.Println(mech, err)
	// Output: <nil> <nil>
}

// Settings made by hand: the section ZkClient of a JAAS file.
func ExampleSettings() {
	mech, err := sasl.Settings{JAASFile: "/etc/kafka/jaas.conf", Section: "ZkClient"}.Mechanism()
	if err != nil {
		log.Fatal(err)
	}
	opts := []zkconn.Option{zkconn.WithSASL(mech)}
	_ = opts
}

// A program that calls zk.Connect itself wraps its dialer, and counts and
// logs the exchanges.
func ExampleDialer() {
	var stats sasl.Stats
	dial, err := sasl.Dialer(nil, sasl.DigestMD5("kafka", "kafka-secret"), 10*time.Second,
		sasl.WithStats(&stats), sasl.WithLogger(slog.Default()))
	if err != nil {
		log.Fatal(err)
	}
	conn, _, err := zk.Connect([]string{"zk1:2181"}, 10*time.Second, zk.WithDialer(dial))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// A running client reports a session that fails to authenticate again
// after a reconnect: counted, and logged.
func ExampleStats() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var stats sasl.Stats
	conn, err := zkconn.Open(ctx, []string{"zk1:2181"}, 10*time.Second,
		zkconn.WithSASL(sasl.DigestMD5("kafka", "kafka-secret")),
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

// WithStats counts the exchanges of a dialer.
func ExampleWithStats() {
	var stats sasl.Stats
	_, err := sasl.Dialer(nil, sasl.DigestMD5("kafka", "kafka-secret"), 10*time.Second, sasl.WithStats(&stats))
	fmt.Println(err, stats.Succeeded(), stats.Failed())
	// Output: <nil> 0 0
}

// WithLogger logs a dialer's failed exchanges.
func ExampleWithLogger() {
	_, err := sasl.Dialer(nil, sasl.DigestMD5("kafka", "kafka-secret"), 10*time.Second, sasl.WithLogger(slog.Default()))
	fmt.Println(err)
	// Output: <nil>
}

// A dialer needs a mechanism.
func ExampleErrInvalidArgument() {
	_, err := sasl.Dialer(nil, nil, 10*time.Second)
	fmt.Println(errors.Is(err, sasl.ErrInvalidArgument))
	// Output: true
}

// An Error says what failed and whether trying again can help.
func ExampleError() {
	err := error(&sasl.Error{Mechanism: "DIGEST-MD5", Server: "zk1:2181", Failure: sasl.Rejected, Err: errors.New("the server replied AUTHFAILED (-115)")})
	var se *sasl.Error
	if errors.As(err, &se) {
		fmt.Println(se.Failure == sasl.Rejected, se.Server, se.Transient())
	}
	// Output: true zk1:2181 false
}

// Only an unreachable KDC may pass by itself.
func ExampleError_Transient() {
	fmt.Println((&sasl.Error{Failure: sasl.KDCUnreachable}).Transient(), (&sasl.Error{Failure: sasl.Rejected}).Transient())
	// Output: true false
}

// A Failure describes itself for an operator.
func ExampleFailure() {
	fmt.Println(sasl.Required)
	// Output: the server requires SASL authentication and the client has no SASL credentials (give a JAAS file)
}

// A JAASError names the file and the line, never a password.
func ExampleJAASError() {
	_, err := sasl.ParseJAAS("Client {\n  a.B required password=\"s3cret;\n};\n")
	var je *sasl.JAASError
	fmt.Println(errors.As(err, &je), je.Line, err)
	// Output: true 2 sasl: JAAS configuration, line 2: unterminated quoted string
}

// ParseJAAS reads a JAAS file's sections, as the JDK does.
func ExampleParseJAAS() {
	sections, err := sasl.ParseJAAS(`
KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin" password="admin-secret";
};
Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="kafka" password="kafka-secret";
};`)
	if err != nil {
		log.Fatal(err)
	}
	client := sections[sasl.DefaultJAASSection][0]
	fmt.Println(client.LoginModule, client.Flag, client.Options["username"])
	// Output: org.apache.zookeeper.server.auth.DigestLoginModule required kafka
}

// ParseJAASConfig reads Kafka's sasl.jaas.config client property, as
// Kafka's clients do.
func ExampleParseJAASConfig() {
	entries, err := sasl.ParseJAASConfig(`org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password='alice-secret';`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(entries), entries[0].LoginModule, entries[0].Options["username"])
	// Output: 1 org.apache.kafka.common.security.scram.ScramLoginModule alice
}

// A JAASEntry is one login module with its flag and options.
func ExampleJAASEntry() {
	entries, err := sasl.ParseJAASConfig(`com.example.Login Optional debug=true;`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", entries[0])
	// Output: {LoginModule:com.example.Login Flag:optional Options:map[debug:true]}
}

// Options configure a dialer: its statistics and its logger.
func ExampleOption() {
	var stats sasl.Stats
	opts := []sasl.Option{sasl.WithStats(&stats), sasl.WithLogger(slog.Default())}
	_, err := sasl.Dialer(nil, sasl.DigestMD5("kafka", "kafka-secret"), 10*time.Second, opts...)
	fmt.Println(err)
	// Output: <nil>
}

// The properties of a Kafka tool name the JAAS file and its section.
func ExamplePropJAASConfig() {
	settings, err := sasl.SettingsFromProperties(map[string]string{
		sasl.PropJAASConfig: "/etc/kafka/jaas.conf",
		sasl.PropSASLClient: "false",
	})
	fmt.Println(settings.JAASFile, settings.Disabled, err)
	// Output: /etc/kafka/jaas.conf true <nil>
}

// Without zookeeper.sasl.clientconfig, the section read is "Client".
func ExampleDefaultJAASSection() {
	settings, _ := sasl.SettingsFromProperties(map[string]string{})
	fmt.Println(settings.Section == "", sasl.DefaultJAASSection)
	// Output: true Client
}
