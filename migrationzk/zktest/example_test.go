package zktest_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test gets a real ZooKeeper of its own, and a client whose connection
// is cut right after the server applied a chosen request.
func ExampleStart() {
	testMyController := func(t *testing.T) {
		srv := zktest.Start(t) // stopped when the test ends
		faults := zktest.NewFaultDialer()
		conn := srv.Connect(t, faults.Option())

		// The next setData of /migration is applied, but its reply is lost.
		armed := faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: srv.Path("/migration")})
		_ = conn // ... run the code under test against conn ...
		if !armed.HasFired() {
			t.Fatal("the fault did not fire")
		}
	}
	_ = testMyController
}

// The server can be stopped and restarted to block writes for a while.
func ExampleServer_Restart() {
	testOutage := func(t *testing.T) {
		srv := zktest.Start(t)
		conn := srv.Connect(t)
		srv.Stop()
		// ... writes through conn fail or wait meanwhile ...
		srv.Restart()
		_ = conn
	}
	_ = testOutage
}
