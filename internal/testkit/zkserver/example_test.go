package zkserver_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
)

// A standalone server that serves clients over TLS only, needs client
// certificates, and enforces digest authentication.
func ExampleTLS() {
	inst, err := zkserver.FindInstall()
	if err != nil {
		log.Fatal(err)
	}
	clientCert, err := tls.LoadX509KeyPair("client.pem", "client.pem")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zkserver.Start(inst, zkserver.Config{
		Dir:  "/tmp/zk-tls",
		Self: zkserver.Member{ID: 1, ClientPort: 2182},
		TLS: &zkserver.TLS{
			KeyStore:   "/tmp/zk-tls/keystore.pem",   // PKCS#8 key, then the chain
			TrustStore: "/tmp/zk-tls/truststore.pem", // the clients' CA
			Client:     &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{clientCert}},
		},
		Settings: map[string]string{"enforce.auth.enabled": "true", "enforce.auth.schemes": "digest"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop(10 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil { // completes a TLS handshake
		log.Fatal(err)
	}
}

// FourLetterWord speaks TLS to a server that serves TLS.
func ExampleProcess_FourLetterWord() {
	inst, err := zkserver.FindInstall()
	if err != nil {
		log.Fatal(err)
	}
	p, err := zkserver.Start(inst, zkserver.Config{Dir: "/tmp/zk", Self: zkserver.Member{ID: 1, ClientPort: 2181}})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop(10 * time.Second)
	r, err := p.FourLetterWord("ruok", time.Second)
	fmt.Println(r, err)
}

// Mode tells a leader from a follower, over TLS when the server serves it.
func ExampleProcess_Mode() {
	inst, err := zkserver.FindInstall()
	if err != nil {
		log.Fatal(err)
	}
	p, err := zkserver.Start(inst, zkserver.Config{Dir: "/tmp/zk", Self: zkserver.Member{ID: 1, ClientPort: 2181}})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop(10 * time.Second)
	mode, err := p.Mode()
	fmt.Println(mode, err)
}
