package migrationzk_test

import (
	"testing"

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
