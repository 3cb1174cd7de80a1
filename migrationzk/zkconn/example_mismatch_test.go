package zkconn_test

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A plaintext client pointed at a port that speaks TLS fails within a few
// attempts, once a probe of the port has confirmed that it speaks TLS.
func ExampleTLSMismatchError() {
	ca, err := zktest.NewCertAuthority("example CA")
	if err != nil {
		log.Fatal(err)
	}
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "zookeeper"}, Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	// A TLS port that closes every connection after the handshake, as a
	// secureClientPort closes one that sends plaintext.
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert.TLS}})
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = zkconn.Open(ctx, []string{ln.Addr().String()}, 10*time.Second)
	var mismatch *zkconn.TLSMismatchError
	if errors.As(err, &mismatch) {
		fmt.Println("the server speaks TLS:", mismatch.ServerSpeaksTLS)
	}
	// Output: the server speaks TLS: true
}
