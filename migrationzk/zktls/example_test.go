package zktls_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktls"
)

// LoadFile reads the file Kafka's tools take as --zk-tls-config-file; the
// configuration goes to zkconn.WithTLS.
func ExampleLoadFile() {
	config, err := zktls.LoadFile("/etc/kafka/zk-tls-client.properties")
	if err != nil {
		log.Fatal(err) // names the file, the key, and the keystore at fault
	}
	var opts []zkconn.Option
	if config != nil { // nil: the file leaves TLS off
		opts = append(opts, zkconn.WithTLS(config))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1:2182"}, 10*time.Second, opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}

// FromProperties takes properties already read. Without stores the
// system's CAs verify the server, and its host name is checked.
func ExampleFromProperties() {
	config, err := zktls.FromProperties(map[string]string{
		"zookeeper.ssl.client.enable":     "true",
		"zookeeper.clientCnxnSocket":      "org.apache.zookeeper.ClientCnxnSocketNetty",
		"zookeeper.ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(config.MinVersion == tls.VersionTLS12, config.MaxVersion == tls.VersionTLS13, config.InsecureSkipVerify)
	// Output: true true false
}

// An Error names the file and the key; errors.Is tells the kind.
func ExampleError() {
	dir, err := os.MkdirTemp("", "zktls-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "zk-tls.properties")
	props := "zookeeper.ssl.client.enable=true\nzookeeper.ssl.ocsp.enable=true\n"
	if err := os.WriteFile(path, []byte(props), 0o600); err != nil {
		log.Fatal(err)
	}
	_, err = zktls.LoadFile(path)
	var e *zktls.Error
	if errors.As(err, &e) {
		fmt.Println(filepath.Base(e.File), e.Key, errors.Is(err, zktls.ErrUnsupported))
	}
	// Output: zk-tls.properties zookeeper.ssl.ocsp.enable true
}

// A broker's server.properties may be given as it is: the keys that are not
// ZooKeeper client keys are ignored and listed, ZooKeeper's own names with
// the Kafka key to use instead.
func ExampleLoadFileIgnoring() {
	dir, err := os.MkdirTemp("", "zktls-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "server.properties")
	props := "broker.id=1\nzookeeper.connect=zk1:2181/kafka\nzookeeper.ssl.hostnameVerification=true\n"
	if err := os.WriteFile(path, []byte(props), 0o600); err != nil {
		log.Fatal(err)
	}
	config, ignored, err := zktls.LoadFileIgnoring(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("TLS on:", config != nil)
	for _, k := range ignored {
		if k.Use != "" {
			fmt.Printf("%s: use %s\n", k.Key, k.Use)
		} else {
			fmt.Println(k.Key)
		}
	}
	// Output:
	// TLS on: false
	// broker.id
	// zookeeper.connect
	// zookeeper.ssl.hostnameVerification: use zookeeper.ssl.endpoint.identification.algorithm
}
