package zktest_test

import (
	"context"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test gets a server that serves TLS only; Connect presents the client
// certificate the server's CA issued, whose subject is its x509 identity.
func ExampleWithTLS() {
	testOverTLS := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS())
		conn := srv.Connect(t)
		if _, err := conn.Create(srv.Path("/mine"), nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Fatal(err) // the ACL is x509:CN=zktest-client,OU=clients,O=zktest
		}
	}
	_ = testOverTLS
}

// A FaultDialer over TLS wraps the server's TLS dialer, so that it sees
// ZooKeeper's frames.
func ExampleSecurity_Dialer() {
	testLostAckOverTLS := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS())
		faults := zktest.NewFaultDialer(t)
		faults.Dialer = srv.Dialer()
		conn := srv.Connect(t, faults.Option())
		faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
		_ = conn // ... the code under test writes /migration through conn ...
	}
	_ = testLostAckOverTLS
}

// ClientTLS is the configuration Connect uses; pass it to code that makes
// its own connections.
func ExampleSecurity_ClientTLS() {
	testOwnConnect := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithTLS(srv.ClientTLS()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	_ = testOwnConnect
}

// CA issues client certificates for chosen subjects, expired ones too.
func ExampleSecurity_CA() {
	testExpiredClient := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS())
		expired, err := srv.CA().Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "alice"}, Expired: true})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err = zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithTLS(srv.CA().ClientConfig(expired)))
		var he *zkconn.HandshakeError
		if !errors.As(err, &he) || he.Failure != zkconn.ExpiredClientCertificate {
			t.Fatalf("err = %v", err)
		}
	}
	_ = testExpiredClient
}

// ClientCertificate is the certificate Connect presents, in PEM too, for
// code that reads keystore files.
func ExampleSecurity_ClientCertificate() {
	testKeystoreFile := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS())
		cert := srv.ClientCertificate()
		_ = cert.PEM // unencrypted PKCS#8 key, then the chain
		if cert.DN() != zktest.DefaultClientDN {
			t.Fatal(cert.DN())
		}
	}
	_ = testKeystoreFile
}

// A digest super user writes whatever the ACLs say.
func ExampleWithDigestSuperUser() {
	testSuper := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithDigestSuperUser("super", "secret"))
		admin := srv.ConnectWith(t, zkconn.WithDigest(srv.SuperUser()))
		_ = admin
	}
	_ = testSuper
}

// SuperUser returns the credentials of WithDigestSuperUser.
func ExampleSecurity_SuperUser() {
	testSuperUser := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithDigestSuperUser("super", "secret"))
		user, password := srv.SuperUser()
		_ = srv.ConnectWith(t, zkconn.WithDigest(user, password))
	}
	_ = testSuperUser
}

// With authentication enforced, clients must authenticate before any
// other request; ConnectWith with zkconn.WithDigest does.
func ExampleWithAuthEnforced() {
	testEnforced := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithAuthEnforced("digest"))
		conn := srv.ConnectWith(t, zkconn.WithDigest("alice", "secret"))
		_ = conn
	}
	_ = testEnforced
}

// ConnectWith takes zkconn's options: credentials, a dialer.
func ExampleServer_ConnectWith() {
	testAsAlice := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS(), zktest.WithAuthEnforced())
		faults := zktest.NewFaultDialer(t)
		faults.Dialer = srv.Dialer()
		conn := srv.ConnectWith(t, zkconn.WithDigest("alice", "secret"), zkconn.WithDialer(faults.Dial))
		_ = conn
	}
	_ = testAsAlice
}

// An ensemble takes the security options too; its members share a CA.
func ExampleEnsemble_ConnectWith() {
	testTLSEnsemble := func(t *testing.T) {
		e := zktest.StartEnsemble(t, 3, zktest.WithTLS(), zktest.WithDigestSuperUser("super", "secret"))
		conn := e.ConnectWith(t, zkconn.WithDigest(e.SuperUser()))
		_ = conn
	}
	_ = testTLSEnsemble
}

// ExpireSession reaches a TLS server, authenticated when it enforces
// authentication.
func ExampleSecurity_ExpireSession() {
	testExpiry := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS(), zktest.WithAuthEnforced())
		faults := zktest.NewFaultDialer(t)
		faults.Dialer = srv.Dialer()
		conn := srv.ConnectWith(t, zkconn.WithDigest("alice", "secret"), zkconn.WithDialer(faults.Dial))
		id, password := faults.Session()
		if err := srv.ExpireSession(context.Background(), srv.Addr(), id, password); err != nil {
			t.Fatal(err)
		}
		_ = conn // ... the client gets a new session, and authenticates again ...
	}
	_ = testExpiry
}

// Client authentication "want" admits clients without a certificate.
func ExampleWithClientAuth() {
	testAnonymous := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithClientAuth(zktest.ClientAuthWant))
		conn := srv.ConnectWith(t, zkconn.WithTLS(srv.CA().ClientConfig(nil)))
		_ = conn
	}
	_ = testAnonymous
}

// The modes of ssl.clientAuth.
func ExampleClientAuth() {
	fmt.Println(zktest.ClientAuthNeed, zktest.ClientAuthWant, zktest.ClientAuthNone)
	// Output: need want none
}

// A server whose certificate names another host fails host name
// verification.
func ExampleWithServerHosts() {
	testWrongHost := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithServerHosts("zookeeper.example"))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithTLS(srv.ClientTLS()))
		var he *zkconn.HandshakeError
		if !errors.As(err, &he) || he.Failure != zkconn.ServerHostnameMismatch {
			t.Fatalf("err = %v", err)
		}
	}
	_ = testWrongHost
}

// A server whose certificate has expired.
func ExampleWithExpiredServerCertificate() {
	testExpiredServer := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithExpiredServerCertificate())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithTLS(srv.ClientTLS()))
		var he *zkconn.HandshakeError
		if !errors.As(err, &he) || he.Failure != zkconn.ExpiredServerCertificate {
			t.Fatalf("err = %v", err)
		}
	}
	_ = testExpiredServer
}

// The client whose certificate has the super user's subject is a super
// user.
func ExampleWithX509SuperUser() {
	testX509Super := func(t *testing.T) {
		const dn = "CN=admin,O=Acme"
		srv := zktest.Start(t, zktest.WithX509SuperUser(dn))
		admin, err := srv.CA().Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "admin", Organization: []string{"Acme"}}})
		if err != nil || admin.DN() != dn {
			t.Fatal(err)
		}
		conn := srv.ConnectWith(t, zkconn.WithTLS(srv.CA().ClientConfig(admin)))
		_ = conn
	}
	_ = testX509Super
}

// WithSetting sets any zoo.cfg key, such as the TLS versions.
func ExampleWithSetting() {
	testTLS13 := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTLS(),
			zktest.WithSetting("ssl.protocol", "TLSv1.3"),
			zktest.WithSetting("ssl.enabledProtocols", "TLSv1.3"),
			zktest.WithSetting("ssl.ciphersuites", "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384"))
		_ = srv.Connect(t)
	}
	_ = testTLS13
}

// A CA of a test's own issues certificates a server does not trust.
func ExampleNewCertAuthority() {
	ca, err := zktest.NewCertAuthority("another CA")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ca.Certificate().Subject, ca.Certificate().IsCA)
	// Output: CN=another CA true
}

// Issue makes server certificates (with hosts) and client certificates.
func ExampleCertAuthority_Issue() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	server, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "zk1"}, Hosts: []string{"zk1.example", "10.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(server.TLS.Leaf.DNSNames, server.TLS.Leaf.IPAddresses, len(server.TLS.Certificate))
	// Output: [zk1.example] [10.0.0.1] 2
}

// A certificate request: a client certificate, expired.
func ExampleCertRequest() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "alice"}, Expired: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cert.TLS.Leaf.NotAfter.Before(time.Now()))
	// Output: true
}

// DN is the identity ZooKeeper's x509 provider gives the client.
func ExampleCertificate_DN() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "alice", OrganizationalUnit: []string{"clients"}, Organization: []string{"Acme"}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cert.DN())
	// Output: CN=alice,OU=clients,O=Acme
}

// ClientConfig trusts the CA and presents a certificate, or none.
func ExampleCertAuthority_ClientConfig() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ca.ClientConfig(nil).Certificates))
	// Output: 0
}

// Pool and CertPEM give the CA to code that verifies or writes
// truststores.
func ExampleCertAuthority_Pool() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "alice"}})
	if err != nil {
		log.Fatal(err)
	}
	_, err = cert.TLS.Leaf.Verify(x509VerifyClient(ca))
	fmt.Println(err)
	// Output: <nil>
}

// CertPEM is a PEM truststore.
func ExampleCertAuthority_CertPEM() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", ca.CertPEM()[:27])
	// Output: -----BEGIN CERTIFICATE-----
}

// Certificate is the CA's own certificate.
func ExampleCertAuthority_Certificate() {
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ca.Certificate().Subject.CommonName)
	// Output: test CA
}

// DigestID is what an ACL entry of scheme digest holds.
func ExampleDigestID() {
	fmt.Println(zktest.DigestID("super", "secret"))
	// Output: super:lK75jTNcA+U9vtVEw5vB51mj/w4=
}
