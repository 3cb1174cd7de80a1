package zktest_test

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// An ensemble started WithKerberos serves GSSAPI on every member: a
// client whose member is killed authenticates to another with a new
// AP-REQ, keeps its session, and still writes as kafka@REALM.
func TestKerberosEnsemble(t *testing.T) {
	realm := zktest.StartRealm(t)
	ens := zktest.StartEnsemble(t, 3, zktest.WithKerberos(realm), zktest.WithSASLEnforced())
	var stats sasl.Stats
	conn := ens.ConnectWith(t, zkconn.WithSASLStats(&stats))
	if _, err := conn.Create("/k", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	session := conn.SessionID()
	if err := ens.Member(conn.Server()).Kill(); err != nil {
		t.Fatal(err)
	}
	// A Set sent before the client notices the death, or queued while the
	// survivors elect a leader, fails, and may be sent again.
	setUntilLanded(t, conn, "/k", []byte("after"), -1)
	if conn.SessionID() != session || stats.Succeeded() < 2 {
		t.Fatalf("session %x (was %x), %d exchanges; want the session kept, 2 exchanges", conn.SessionID(), session, stats.Succeeded())
	}
	acl, _, err := conn.GetACL("/k")
	if err != nil || len(acl) != 1 || acl[0].ID != realm.Principal(zktest.KerberosClientName) {
		t.Fatalf("ACL %v, %v", acl, err)
	}
}

// A realm's KDC can be stopped and started again, and keeps its
// principals.
func TestRealmStopRestart(t *testing.T) {
	realm := zktest.StartRealm(t, zktest.WithRealmName("OTHER.TEST"))
	keytab, err := realm.AddPrincipal("kafka/localhost")
	if err != nil {
		t.Fatal(err)
	}
	if err := realm.Stop(); err != nil || realm.KDCRunning() {
		t.Fatalf("stop: %v, running %v", err, realm.KDCRunning())
	}
	if _, err := realm.Kinit("kafka/localhost", keytab); err == nil {
		t.Fatal("kinit succeeded with the KDC stopped")
	}
	if err := realm.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := realm.Kinit("kafka/localhost", keytab); err != nil {
		t.Fatal(err)
	}
	if again, err := realm.Keytab("kafka/localhost"); err != nil || again != keytab {
		t.Fatalf("Keytab: %q, %v; want %q", again, err, keytab)
	}
	if realm.Principal("kafka") != "kafka@OTHER.TEST" {
		t.Fatalf("principal %q", realm.Principal("kafka"))
	}
}
