package sasl_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// Kerberos from a keytab, with the server principal ZooKeeper's client
// derives: zookeeper/<host>.
func ExampleKerberos() {
	mech, err := sasl.Kerberos(sasl.KerberosConfig{
		Principal:            "kafka/broker1.example.com@EXAMPLE.COM",
		KeyTab:               "/etc/security/keytabs/kafka.keytab",
		CanonicalizeHostname: true,
	})
	if err != nil {
		log.Fatal(err) // a *sasl.Error: no krb5.conf, no keytab, ...
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1.example.com:2181"}, 10*time.Second, zkconn.WithSASL(mech))
	var se *sasl.Error
	switch {
	case errors.As(err, &se) && se.Failure == sasl.KDCUnreachable:
		log.Fatalf("no KDC answered: %v", err)
	case err != nil:
		log.Fatal(err)
	}
	defer conn.Close()
}

// A broker's Kerberos identity, as its JAAS Client section of
// Krb5LoginModule gives it: a keytab and a principal. The server
// principal is zookeeper/<canonical host name of each server>, as
// ZooKeeper's client derives it.
func ExampleKerberosConfig() {
	cfg := sasl.KerberosConfig{
		Principal:            "kafka/broker1.example.com@EXAMPLE.COM",
		KeyTab:               "/etc/security/keytabs/kafka.keytab",
		CanonicalizeHostname: true, // ZooKeeper's default
	}
	mech, err := sasl.Kerberos(cfg)
	if err != nil {
		log.Fatal(err)
	}
	_ = zkconn.WithSASL(mech)
}

// With tickets that kinit put in a credential cache (KRB5CCNAME), as
// useTicketCache=true reads them.
func ExampleKerberosConfig_ticketCache() {
	mech, err := sasl.Kerberos(sasl.KerberosConfig{UseTicketCache: true, CanonicalizeHostname: true})
	if err != nil {
		log.Fatal(err)
	}
	_ = zkconn.WithSASL(mech)
}
