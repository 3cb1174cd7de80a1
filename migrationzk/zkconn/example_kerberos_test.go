package zkconn_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// A broker's Kerberos identity, as its JAAS Client section of
// Krb5LoginModule gives it: a keytab and a principal. The server
// principal is zookeeper/<canonical host name of each server>, as
// ZooKeeper's client derives it.
func ExampleKerberosConfig() {
	cfg := zkconn.KerberosConfig{
		Principal:            "kafka/broker1.example.com@EXAMPLE.COM",
		KeyTab:               "/etc/security/keytabs/kafka.keytab",
		CanonicalizeHostname: true, // ZooKeeper's default
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1.example.com:2181"}, 10*time.Second, zkconn.WithSASLKerberos(cfg))
	var se *zkconn.SASLError
	switch {
	case errors.As(err, &se) && se.Failure == zkconn.SASLKDCUnreachable:
		log.Fatalf("no KDC answered: %v", err)
	case err != nil:
		log.Fatal(err)
	}
	defer conn.Close()
}

// With tickets that kinit put in a credential cache (KRB5CCNAME), as
// useTicketCache=true reads them.
func ExampleKerberosConfig_ticketCache() {
	cfg := zkconn.KerberosConfig{UseTicketCache: true, CanonicalizeHostname: true}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, []string{"zk1.example.com:2181"}, 10*time.Second, zkconn.WithSASLKerberos(cfg))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}
