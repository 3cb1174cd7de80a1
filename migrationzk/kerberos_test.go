package migrationzk_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/must"
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
	realm := zktest.StartRealm(t)
	srv := zktest.Start(t, zktest.WithKerberos(realm), zktest.WithSASLEnforced())
	admin := srv.Connect(t)
	n := 0
	for _, path := range writePaths() {
		want := runWritePath(t, srv, admin, &n, path, nil)
		for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
			t.Run(path.name+"/"+action.String(), func(t *testing.T) {
				fault := &zktest.Fault{Action: action, Op: path.op}
				if got := runWritePath(t, srv, admin, &n, path, fault); !equalSnapshots(got, want) {
					t.Fatalf("ZooKeeper after the fault:\n%v\nwithout it:\n%v", got, want)
				}
			})
		}
	}
}

// newKerberosCluster is newCluster on a server that enforces SASL GSSAPI
// in realm; the Writer's client dials through the FaultDialer with the
// client options (such as zkconn.WithSASL) and the admin's
// authenticates as the server's default client.
func newKerberosCluster(t *testing.T, realm *zktest.Realm, client []zkconn.Option, opts ...zktest.Option) *cluster {
	t.Helper()
	srv := zktest.Start(t, append([]zktest.Option{zktest.WithKerberos(realm), zktest.WithSASLEnforced()}, opts...)...)
	c := &cluster{t: t, srv: srv, faults: zktest.NewFaultDialer(t), root: srv.Root}
	c.faults.Dialer = srv.Dialer()
	c.conn = srv.ConnectWith(t, append([]zkconn.Option{zkconn.WithDialer(c.faults.Dial)}, client...)...)
	c.admin = srv.Connect(t)
	c.seed()
	return c
}

// Fault: the KDC stops while a Writer runs, its tickets end, and its
// connection is cut: every reconnect fails for want of a KDC, without
// opening a server session, and is retried with backoff; once the KDC is
// back the Writer's checkpoint lands, sent once.
func TestKerberosKDCBlipRunningWriter(t *testing.T) {
	realm := zktest.StartRealm(t)
	keytab, err := realm.AddPrincipalWith(zktest.KerberosPrincipal{Name: "controller", MaxLife: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var stats sasl.Stats
	c := newKerberosCluster(t, realm, []zkconn.Option{zkconn.WithSASL(must.Get(sasl.Kerberos(realm.ClientConfig("controller", keytab)))), zkconn.WithSASLStats(&stats)})
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
				keytab = kafkaKeytab(t, realm)
			}
			conn := srv.ConnectWith(t, zkconn.WithSASL(must.Get(sasl.Kerberos(realm.ClientConfig(tc.principal, keytab)))))
			w := must.Get(migrationzk.New(conn, migrationzk.WithRoot("/secure"), migrationzk.WithKafkaSecureACLs()))
			if err := w.CreateTopLevelPaths(testContext(t)); err != nil {
				t.Fatal(err)
			}
			owner := zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: tc.id}
			for path, want := range map[string][]zk.ACL{
				"/brokers/topics": {owner, zk.WorldACL(zk.PermRead)[0]},
				"/config/users":   {owner},
				"/consumers":      zk.WorldACL(zk.PermAll),
			} {
				got, _, err := conn.GetACL("/secure" + path)
				if err != nil || !sameACL(got, want) {
					t.Errorf("%s: ACL %v (%v), want %v", path, got, err, want)
				}
			}
		})
	}
}

// Fault: reply lost and request lost on a Writer's checkpoint, over TLS
// and GSSAPI together: each recovery makes a TLS handshake, then the SASL
// exchange inside it.
func TestKerberosOverTLS(t *testing.T) {
	realm := zktest.StartRealm(t)
	c := newKerberosCluster(t, realm, nil, zktest.WithTLS())
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

// kafkaKeytab is the keytab of the principal servers started WithKerberos
// authenticate Connect as.
func kafkaKeytab(t *testing.T, realm *zktest.Realm) string {
	t.Helper()
	keytab, err := realm.Keytab(zktest.KerberosClientName)
	if err != nil {
		t.Fatal(err)
	}
	return keytab
}
