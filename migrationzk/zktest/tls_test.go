package zktest_test

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

func issueFor(t *testing.T, ca *zktest.CertAuthority, cn string) *zktest.Certificate {
	t.Helper()
	return securitytest.Issue(t, ca, zktest.CertRequest{Subject: pkix.Name{CommonName: cn, OrganizationalUnit: []string{"clients"}, Organization: []string{"Acme"}}})
}

// Fault: none. Over TLS each client certificate is an x509 identity: the
// owner of an auth ACL writes, another client gets NoAuth, and the x509
// super user writes anyway.
func TestTLSIdentities(t *testing.T) {
	ca, err := zktest.NewCertAuthority("unused")
	if err != nil {
		t.Fatal(err)
	}
	superDN := issueFor(t, ca, "bob").DN()
	srv := securitytest.TLS(t, zktest.WithX509SuperUser(superDN))
	owner := srv.Connect(t)
	p := srv.Path("/owned")
	if _, err := owner.Create(p, []byte("v0"), 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := owner.GetACL(p)
	if err != nil || len(acl) != 1 || acl[0].Scheme != "x509" || acl[0].ID != zktest.DefaultClientDN || srv.ClientCertificate().DN() != zktest.DefaultClientDN {
		t.Fatalf("ACL %+v, %v; want x509:%s", acl, err, zktest.DefaultClientDN)
	}
	alice := issueFor(t, srv.CA(), "alice")
	other := srv.ConnectWith(t, zkconn.WithTLS(srv.CA().ClientConfig(alice)))
	if _, err := other.Set(p, []byte("by alice"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("another client: %v, want zk.ErrNoAuth", err)
	}
	bob := issueFor(t, srv.CA(), "bob")
	if bob.DN() != superDN {
		t.Fatalf("DN %q, want %q", bob.DN(), superDN)
	}
	super := srv.ConnectWith(t, zkconn.WithTLS(srv.CA().ClientConfig(bob)))
	if _, err := super.Set(p, []byte("by bob"), -1); err != nil {
		t.Fatalf("x509 super user: %v", err)
	}
}

// Fault: none. With client authentication "want" a client without a
// certificate is admitted; with "none" too, and a certificate gives no
// identity.
func TestTLSClientAuthModes(t *testing.T) {
	for _, mode := range []zktest.ClientAuth{zktest.ClientAuthWant, zktest.ClientAuthNone} {
		t.Run(string(mode), func(t *testing.T) {
			srv := zktest.Start(t, zktest.WithClientAuth(mode))
			anonymous := srv.ConnectWith(t, zkconn.WithTLS(srv.CA().ClientConfig(nil)))
			if _, err := anonymous.Create(srv.Path("/open"), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			_, err := srv.Connect(t).Create(srv.Path("/mine"), nil, 0, zk.AuthACL(zk.PermAll))
			if mode == zktest.ClientAuthWant && err != nil {
				t.Fatalf("with a certificate: %v", err)
			}
			if mode == zktest.ClientAuthNone && !errors.Is(err, zk.ErrInvalidACL) {
				t.Fatalf("auth ACL without an identity: %v, want zk.ErrInvalidACL", err)
			}
		})
	}
}

// Fault: lost acknowledgement, dropped request and an injected expiry
// reply over TLS: the FaultDialer wraps the server's TLS dialer and still
// sees ZooKeeper's frames; ExpireSession reaches the TLS port.
func TestFaultDialerOverTLS(t *testing.T) {
	srv := securitytest.TLS(t)
	d := zktest.NewFaultDialer(t)
	d.Dialer = srv.Dialer()
	c := srv.Connect(t, d.Option())
	p := srv.Path("/node")
	mustCreate(t, c, p, []byte("v0"))

	d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: p})
	if _, err := c.Set(p, []byte("v1"), 0); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Set after dropped reply: %v, want zk.ErrConnectionClosed", err)
	}
	waitSession(t, c)
	if v := version(t, c, p); v != 1 {
		t.Fatalf("after dropped reply: version %d, want 1", v)
	}
	d.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSetData, Path: p})
	if _, err := c.Set(p, []byte("v2"), 1); err == nil {
		t.Fatal("Set after dropped request succeeded")
	}
	waitSession(t, c)
	d.Arm(zktest.Fault{Action: zktest.RejectExpired, Op: zktest.OpSetData, Path: p})
	if _, err := c.Set(p, []byte("v2"), 1); !errors.Is(err, zk.ErrSessionExpired) {
		t.Fatalf("injected expiry: %v", err)
	}
	if v := version(t, c, p); v != 1 || d.Count(zktest.OpSetData) < 1 {
		t.Fatalf("version %d, %d setData counted", v, d.Count(zktest.OpSetData))
	}

	id, pw := d.Session()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.ExpireSession(ctx, srv.Addr(), id, pw); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for c.SessionID() == id || c.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			t.Fatalf("client kept session %x", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Fault: none. Authentication enforced for x509: a TLS client certificate
// is enough.
func TestAuthEnforcedX509(t *testing.T) {
	srv := securitytest.TLS(t, zktest.WithAuthEnforced("x509"))
	c := srv.Connect(t)
	mustCreate(t, c, srv.Path("/n"), nil)
}

// Fault: the leader is killed. A TLS ensemble elects another and the
// client moves over TLS.
func TestTLSEnsemble(t *testing.T) {
	e := zktest.StartEnsemble(t, 3, zktest.WithTLS())
	c := e.Connect(t)
	mustCreate(t, c, "/n", nil)
	leader := e.Leader()
	if leader == nil {
		t.Fatal("no leader")
	}
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if _, err := c.Set("/n", []byte("after"), -1); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no write after the leader died")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := leader.Restart(); err != nil {
		t.Fatal(err)
	}
}

// x509VerifyClient returns options that verify a client certificate
// against ca.
func x509VerifyClient(ca *zktest.CertAuthority) x509.VerifyOptions {
	return x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
}
