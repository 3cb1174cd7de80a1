package zktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test gets a server that knows SASL DIGEST-MD5 users; Connect
// authenticates as the first, so an auth ACL names sasl:kafka.
func ExampleWithSASLDigestUser() {
	testOverSASL := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"), zktest.WithSASLDigestUser("other", "other-secret"))
		conn := srv.Connect(t)
		if _, err := conn.Create("/mine", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Fatal(err) // the ACL is sasl:kafka
		}
		other := srv.ConnectWith(t, zkconn.WithSASL(sasl.DigestMD5("other", "other-secret")))
		_ = other
	}
	_ = testOverSASL
}

// With SASL enforced, a client without SASL gets a session, and its
// first request fails (error -124).
func ExampleWithSASLEnforced() {
	testEnforced := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"), zktest.WithSASLEnforced())
		anonymous := srv.ConnectWith(t, zkconn.WithoutSASL())
		if _, _, err := anonymous.Get("/"); err == nil {
			t.Fatal("served without SASL")
		}
	}
	_ = testEnforced
}

// SASL returns the options Connect authenticates with, for a client a
// test makes itself; SASLUser names the user, for a client that calls
// zk.Connect with a dialer of package sasl.
func ExampleSecurity_SASL() {
	testOwnClient := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var stats sasl.Stats
		opts := append([]zkconn.Option{zkconn.WithDialer(srv.Dialer()), zkconn.WithSASLStats(&stats)}, srv.SASL()...)
		conn, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		user, password := srv.SASLUser()
		dial, err := sasl.Dialer(srv.Dialer(), sasl.DigestMD5(user, password), zktest.SessionTimeout)
		if err != nil {
			t.Fatal(err)
		}
		other, _, err := zk.Connect(srv.Servers, zktest.SessionTimeout, zk.WithDialer(dial))
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
	}
	_ = testOwnClient
}

// A password rotated on the server takes effect at its restart.
func ExampleSecurity_SetSASLDigestPassword() {
	testRotation := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"))
		if err := srv.SetSASLDigestPassword("kafka", "rotated"); err != nil {
			t.Fatal(err)
		}
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := srv.Restart(); err != nil {
			t.Fatal(err)
		}
		_ = srv.ConnectWith(t, zkconn.WithSASL(sasl.DigestMD5("kafka", "rotated")))
	}
	_ = testRotation
}
