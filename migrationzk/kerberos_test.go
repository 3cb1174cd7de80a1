package migrationzk_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// Fault: reply lost after commit, and request lost, on each write path of
// the Writer over SASL GSSAPI against a server that enforces SASL: every
// recovery reconnects and authenticates again with a new AP-REQ. Every
// call succeeds and leaves ZooKeeper exactly as the same call without a
// fault does.
func TestKerberosEveryWritePath(t *testing.T) {
	_, srv := securitytest.Kerberos(t)
	everyWritePath(t, srv)
}

// Fault: the KDC stops while a Writer runs, its tickets end, and its
// connection is cut: every reconnect fails for want of a KDC, without
// opening a server session, and is retried with backoff; once the KDC is
// back the Writer's checkpoint lands, sent once.
func TestKerberosKDCBlipRunningWriter(t *testing.T) {
	realm, srv := securitytest.Kerberos(t)
	keytab, err := realm.AddPrincipalWith(zktest.KerberosPrincipal{Name: "controller", MaxLife: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var stats sasl.Stats
	c := newSecuredCluster(t, srv, securitytest.KerberosClient(t, realm.ClientConfig("controller", keytab)), zkconn.WithSASLStats(&stats))
	w := c.writer()
	s := c.start(w)
	if err := realm.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // the tickets end
	dials := c.faults.Dials()
	c.faults.Cut()
	go func() {
		time.Sleep(2 * time.Second)
		if err := realm.Restart(); err != nil {
			t.Error(err)
		}
	}()
	s.KRaftMetadataOffset = 700
	next, err := w.Update(testContext(t), s)
	if err != nil {
		t.Fatalf("Update across the KDC's absence: %v", err)
	}
	if c.faults.Dials() != dials+1 || stats.Failed() == 0 {
		t.Errorf("%d connections reached the server, %d attempts failed while the KDC was away; want only the one after, some",
			c.faults.Dials()-dials, stats.Failed())
	}
	if next.MigrationZkVersion != s.MigrationZkVersion+1 {
		t.Fatalf("version %d, want %d", next.MigrationZkVersion, s.MigrationZkVersion+1)
	}
	c.checkMatches(next)
}

// Fault: none. Under Kafka's secure policy over GSSAPI, znodes carry the
// sasl identity the server gives the principal, as a broker with
// zookeeper.set.acl=true leaves them: the whole principal, host and realm
// included, unless the servers are told to drop them.
func TestKerberosKafkaSecureACLs(t *testing.T) {
	realm := zktest.StartRealm(t)
	hostKeytab, err := realm.AddPrincipal("kafka/localhost")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		principal string
		keytab    string
		opts      []zktest.Option
		id        string
	}{
		{"kafka@REALM", zktest.KerberosClientName, "", nil, "kafka@" + realm.Name},
		{"kafka/host@REALM", "kafka/localhost", hostKeytab, nil, "kafka/localhost@" + realm.Name},
		{"host and realm removed", "kafka/localhost", hostKeytab, []zktest.Option{
			zktest.WithSetting("kerberos.removeHostFromPrincipal", "true"),
			zktest.WithSetting("kerberos.removeRealmFromPrincipal", "true"),
		}, "kafka"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := zktest.Start(t, append([]zktest.Option{zktest.WithKerberos(realm), zktest.WithSASLEnforced()}, tc.opts...)...)
			keytab := tc.keytab
			if keytab == "" {
				keytab = securitytest.KafkaKeytab(t, realm)
			}
			conn := srv.ConnectWith(t, securitytest.KerberosClient(t, realm.ClientConfig(tc.principal, keytab)))
			w := must.Get(migrationzk.New(conn, migrationzk.WithRoot("/secure"), migrationzk.WithKafkaSecureACLs()))
			if err := w.CreateTopLevelPaths(testContext(t)); err != nil {
				t.Fatal(err)
			}
			owner := zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: tc.id}
			checkACLs(t, conn, "/secure", map[string][]zk.ACL{
				"/brokers/topics": {owner, zk.WorldACL(zk.PermRead)[0]},
				"/config/users":   {owner},
				"/consumers":      zk.WorldACL(zk.PermAll),
			})
		})
	}
}

// Fault: reply lost and request lost on a Writer's checkpoint, over TLS
// and GSSAPI together: each recovery makes a TLS handshake, then the SASL
// exchange inside it.
func TestKerberosOverTLS(t *testing.T) {
	_, srv := securitytest.Kerberos(t, zktest.WithTLS())
	c := newSecuredCluster(t, srv)
	w := c.writer()
	s := c.start(w)
	for _, f := range []zktest.Fault{
		{Action: zktest.DropReply, Op: zktest.OpMulti, Path: c.p("/migration")},
		{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: c.p("/migration")},
	} {
		armed := c.faults.Arm(f)
		s.KRaftMetadataOffset += 100
		next, err := w.Update(testContext(t), s)
		if err != nil || !armed.HasFired() || next.MigrationZkVersion != s.MigrationZkVersion+1 {
			t.Fatalf("%v: fired %v, version %d, %v", f.Action, armed.HasFired(), next.MigrationZkVersion, err)
		}
		c.checkMatches(next)
		s = next
	}
	if got, _, err := c.conn.GetACL(c.p("/migration")); err != nil || len(got) == 0 {
		t.Fatalf("GetACL over TLS and GSSAPI: %v, %v", got, err)
	}
}
