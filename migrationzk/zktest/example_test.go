package zktest_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// A test gets a real ZooKeeper of its own, and a client whose connection
// is cut right after the server applied a chosen request.
func ExampleStart() {
	testMyController := func(t *testing.T) {
		srv := zktest.Start(t)             // closed when the test ends
		faults := zktest.NewFaultDialer(t) // fails t if an armed fault never fires
		conn := srv.Connect(t, faults.Option())

		// The next write of /migration is applied, but its reply is lost:
		// a plain setData or a multi holding one, under any root.
		faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
		_ = conn // ... run the code under test against conn ...
	}
	_ = testMyController
}

// The server can be stopped and restarted to block writes for a while.
func ExampleServer_Restart() {
	testOutage := func(t *testing.T) {
		srv := zktest.Start(t)
		conn := srv.Connect(t)
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		// ... writes through conn fail or wait meanwhile ...
		if err := srv.Restart(); err != nil {
			t.Fatal(err)
		}
		_ = conn
	}
	_ = testOutage
}

// A program starts a real ZooKeeper and injects faults without a
// testing.TB, as a demo does.
func ExampleNewServer() {
	srv, err := zktest.NewServer()
	if err != nil {
		log.Fatal(err) // no ZooKeeper here; the error says how to get one
	}
	defer srv.Close()

	faults := zktest.NewFaultDialer(nil) // a program reports unfired faults itself
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := zkconn.Open(ctx, srv.Servers, zktest.SessionTimeout, zkconn.WithZKOptions(faults.Option()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
	// ... run the code against conn, under srv.Root ...
	for _, f := range faults.Unfired() {
		fmt.Println("never fired:", f)
	}
}

// Close stops a server zktest started and removes its data; on a shared
// ensemble (ZK_SERVERS) it removes the server's root.
func ExampleServer_Close() {
	srv, err := zktest.NewServer(zktest.WithTickTime(200 * time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	// ... use srv ...
	if err := srv.Close(); err != nil {
		log.Print(err)
	}
}

// A program starts an ensemble and kills the member a client uses.
func ExampleNewEnsemble() {
	e, err := zktest.NewEnsemble(3)
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := zkconn.Open(ctx, e.Servers, zktest.SessionTimeout)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	if m := e.Member(conn.Server()); m != nil {
		if err := m.Kill(); err != nil {
			log.Fatal(err)
		}
		// ... the client moves to another member ...
		if err := m.Restart(); err != nil {
			log.Fatal(err)
		}
	}
}

// Close stops every member and removes their data.
func ExampleEnsemble_Close() {
	e, err := zktest.NewEnsemble(3)
	if err != nil {
		log.Fatal(err)
	}
	// ... use e ...
	if err := e.Close(); err != nil {
		log.Print(err)
	}
}

// Unfired lists the faults that no request has matched yet.
func ExampleFaultDialer_Unfired() {
	faults := zktest.NewFaultDialer(nil)
	faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/migration"})
	withdrawn := faults.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpMulti, Path: "/controller"})
	withdrawn.Disarm()
	fmt.Println(faults.Unfired())
	// Output: [drop-reply setData /migration]
}

// A Fault prints as its action, opcode and path.
func ExampleFault_String() {
	fmt.Println(zktest.Fault{Action: zktest.CutRequest, Op: zktest.OpMulti, Path: "/kafka/migration"})
	fmt.Println(zktest.Fault{Action: zktest.RejectExpired, Op: zktest.OpAny})
	// Output:
	// cut-request multi /kafka/migration
	// reject-expired any
}

// A benchmark of large transactions measures a server as production runs
// it, warmed up before the timing starts.
func ExampleWithFullJIT() {
	benchmarkBigTransaction := func(b *testing.B) {
		srv := zktest.Start(b, zktest.WithFullJIT())
		conn := srv.Connect(b)
		// ... some seconds of the workload, untimed, then b.ResetTimer ...
		_ = conn
	}
	_ = benchmarkBigTransaction
}

// A test of session expiry can shorten the tick, the unit of ZooKeeper's
// session timeouts.
func ExampleWithTickTime() {
	testExpiry := func(t *testing.T) {
		srv := zktest.Start(t, zktest.WithTickTime(100*time.Millisecond))
		_ = srv.Connect(t)
	}
	_ = testExpiry
}

// A standing latency makes every round trip cost what it costs across
// availability zones.
func ExampleFaultDialer_SetLatency() {
	testAcrossZones := func(t *testing.T) {
		srv := zktest.Start(t)
		faults := zktest.NewFaultDialer(t)
		faults.SetLatency(time.Millisecond) // each way: 2 ms a round trip
		conn := srv.Connect(t, faults.Option())
		_ = conn // ... measure the code under test against conn ...
	}
	_ = testAcrossZones
}
