package zktest_test

import (
	"log"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test gets a realm and a server that enforces SASL GSSAPI in it;
// Connect authenticates as kafka@EXAMPLE.TEST, the identity an auth ACL
// expands to.
func ExampleWithKerberos() {
	testOverKerberos := func(t *testing.T) {
		realm := zktest.StartRealm(t)
		srv := zktest.Start(t, zktest.WithKerberos(realm), zktest.WithSASLEnforced())
		conn := srv.Connect(t)
		if _, err := conn.Create(srv.Path("/mine"), nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Fatal(err) // the ACL is sasl:kafka@EXAMPLE.TEST
		}
	}
	_ = testOverKerberos
}

// A program without a testing.TB makes its realm with NewRealm and
// closes it.
func ExampleNewRealm() {
	realm, err := zktest.NewRealm(zktest.WithRealmName("KAFKA.TEST"))
	if err != nil {
		log.Fatal(err) // says how to install an MIT KDC
	}
	defer realm.Close()
	keytab, err := realm.AddPrincipal("kafka/localhost")
	if err != nil {
		log.Fatal(err)
	}
	mech, err := sasl.Kerberos(realm.ClientConfig("kafka/localhost", keytab))
	if err != nil {
		log.Fatal(err)
	}
	_ = zkconn.WithSASL(mech)
}

// Tickets that end within seconds test their renewal; Stop and Restart
// take the KDC away and bring it back.
func ExampleRealm_AddPrincipalWith() {
	testShortTickets := func(t *testing.T) {
		realm := zktest.StartRealm(t)
		keytab, err := realm.AddPrincipalWith(zktest.KerberosPrincipal{Name: "controller", MaxLife: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		srv := zktest.Start(t, zktest.WithKerberos(realm))
		mech, err := sasl.Kerberos(realm.ClientConfig("controller", keytab))
		if err != nil {
			t.Fatal(err)
		}
		conn := srv.ConnectWith(t, zkconn.WithSASL(mech))
		if err := realm.Stop(); err != nil {
			t.Fatal(err)
		}
		// ... once the tickets end, reconnections fail with
		// sasl.KDCUnreachable until realm.Restart() ...
		_ = conn
	}
	_ = testShortTickets
}

// A credential cache that kinit filled, as a broker started after kinit
// has.
func ExampleRealm_Kinit() {
	testTicketCache := func(t *testing.T) {
		realm := zktest.StartRealm(t)
		keytab, err := realm.AddPrincipal("kafka")
		if err != nil {
			t.Fatal(err)
		}
		cache, err := realm.Kinit("kafka", keytab)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sasl.KerberosConfig{UseTicketCache: true, TicketCache: cache, Krb5Conf: realm.Krb5Conf(), CanonicalizeHostname: true}
		_ = cfg
	}
	_ = testTicketCache
}

// A realm whose tickets all end within a minute, for tests of renewal; a
// test that needs the KDC gone stops it.
func ExampleStartRealm() {
	testKDCDown := func(t *testing.T) {
		realm := zktest.StartRealm(t, zktest.WithMaxTicketLife(time.Minute))
		srv := zktest.Start(t, zktest.WithKerberos(realm))
		conn := srv.Connect(t) // tickets are held from here on
		if err := realm.Stop(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := realm.Restart(); err != nil {
				t.Fatal(err)
			}
		}()
		_ = conn // ... a new client fails with sasl.KDCUnreachable ...
	}
	_ = testKDCDown
}
