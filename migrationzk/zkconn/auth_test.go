package zkconn_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: none. With authentication enforced, WithDigest authenticates
// before any other request, and the ACL names the digest user.
func TestDigestWithAuthEnforced(t *testing.T) {
	srv := securitytest.Digest(t)
	conn := securitytest.Open(t, srv.Servers, securitytest.DigestClient())
	if _, err := conn.Create("/alice", []byte("v0"), 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	id := zktest.DigestID(securitytest.DigestUser, securitytest.DigestPassword)
	acl, _, err := conn.GetACL("/alice")
	if err != nil || len(acl) != 1 || acl[0].Scheme != "digest" || acl[0].ID != id {
		t.Fatalf("ACL %+v, %v; want digest:%s", acl, err, id)
	}

	// Without credentials the session is granted, but every request fails
	// (error -124) and the server closes the connection.
	anonymous := securitytest.Open(t, srv.Servers)
	_, _, err = anonymous.Get("/alice")
	t.Logf("unauthenticated request: %v", err)
	if err == nil {
		t.Fatal("an unauthenticated request succeeded with authentication enforced")
	}
}

// Fault: the server restarts, then the session expires. go-zookeeper sends
// the credentials again on the new connection and on the new session,
// before any other request, so the enforced server keeps serving the
// client and the ACL keeps admitting it.
func TestDigestSurvivesRestartAndExpiry(t *testing.T) {
	srv := securitytest.Digest(t, zktest.WithTLS())
	conn, faults := securitytest.FaultyClient(t, srv, securitytest.DigestClient())
	securitytest.WritesThroughRestartAndExpiry(t, srv, conn, faults, "/alice")
	if got := faults.Count(zktest.OpSetAuth); got < 3 {
		t.Fatalf("credentials sent %d times, want one per connection (3 at least)", got)
	}
}

// Fault: a wrong digest password. ZooKeeper accepts any user:password, so
// Open succeeds; the first write the ACL denies fails with zk.ErrNoAuth,
// and nothing is written.
func TestWrongDigestPassword(t *testing.T) {
	srv := zktest.Start(t)
	owner := securitytest.Open(t, srv.Servers, securitytest.DigestClient())
	if _, err := owner.Create("/alice", []byte("v0"), 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	wrong := securitytest.Open(t, srv.Servers, zkconn.WithDigest(securitytest.DigestUser, "not the password"))
	_, err := wrong.Set("/alice", []byte("v1"), -1)
	t.Logf("write with a wrong password: %v", err)
	if !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("err = %v, want zk.ErrNoAuth", err)
	}
	data, st, err := owner.Get("/alice")
	if err != nil || string(data) != "v0" || st.Version != 0 {
		t.Fatalf("after the refused write: %q version %d, %v", data, st.Version, err)
	}
}

// Fault: none. The digest super user writes what another user owns.
func TestDigestSuperUser(t *testing.T) {
	srv := zktest.Start(t, zktest.WithDigestSuperUser("super", "s3cret"))
	owner := securitytest.Open(t, srv.Servers, securitytest.DigestClient())
	if _, err := owner.Create("/alice", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	super := securitytest.Open(t, srv.Servers, zkconn.WithDigest(srv.SuperUser()))
	if _, err := super.Set("/alice", []byte("by super"), -1); err != nil {
		t.Fatalf("super user: %v", err)
	}
}

// Fault: an authentication scheme the server does not know. Open fails at
// once with an *AuthError wrapping zk.ErrAuthFailed.
func TestUnknownAuthScheme(t *testing.T) {
	srv := zktest.Start(t)
	err := securitytest.OpenFails(t, srv.Servers, zkconn.WithAuth("kerberos", []byte("alice")))
	var ae *zkconn.AuthError
	if !errors.As(err, &ae) || ae.Scheme != "kerberos" || !errors.Is(err, zk.ErrAuthFailed) {
		t.Fatalf("err = %v, want an *AuthError for kerberos wrapping zk.ErrAuthFailed", err)
	}
	securitytest.NothingWritten(t, srv.Connect(t))
}

// Fault: malformed digest credentials, refused before dialling.
func TestMalformedDigest(t *testing.T) {
	for _, auth := range []string{"alice", ":secret"} {
		_, err := zkconn.Open(context.Background(), []string{"127.0.0.1:1"}, time.Second, zkconn.WithAuth("digest", []byte(auth)))
		if err == nil {
			t.Fatalf("digest %q accepted", auth)
		}
	}
}

// Fault: invalid options, each refused with ErrInvalidArgument before
// anything is dialled (nothing listens on port 1, and the refusal comes
// before the first attempt would).
func TestInvalidOptions(t *testing.T) {
	for name, opt := range map[string]zkconn.Option{
		"attempts-0":           zkconn.WithAttempts(0),
		"attempts-negative":    zkconn.WithAttempts(-3),
		"digest-user-colon":    zkconn.WithDigest("al:ice", "secret"),
		"digest-user-empty":    zkconn.WithDigest("", "secret"),
		"digest-auth-no-colon": zkconn.WithAuth("digest", []byte("alice")),
		"auth-no-scheme":       zkconn.WithAuth("", []byte("x")),
		"nil-dialer":           zkconn.WithDialer(nil),
		"nil-zk-option":        zkconn.WithZKOptions(nil),
		"nil-sasl-mechanism":   zkconn.WithSASL(nil),
		"nil-sasl-stats":       zkconn.WithSASLStats(nil),
		"nil-sasl-logger":      zkconn.WithSASLLogger(nil),
		"nil-option":           nil,
	} {
		_, err := zkconn.Open(context.Background(), []string{"127.0.0.1:1"}, time.Second, opt)
		if !errors.Is(err, zkconn.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", name, err)
		}
	}
	// The first invalid option is the one reported.
	_, err := zkconn.Open(context.Background(), []string{"127.0.0.1:1"}, time.Second, zkconn.WithAttempts(0), zkconn.WithDialer(nil))
	if err == nil || !strings.Contains(err.Error(), "WithAttempts(0)") {
		t.Errorf("err = %v, want the first invalid option named", err)
	}
}
