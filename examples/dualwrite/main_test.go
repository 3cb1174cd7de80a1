package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestDualWrite runs the example as make dualwrite does, on a server of
// the test's, and checks that it finishes with everything in ZooKeeper
// (every topic under an id of its own) and leaves no znode behind.
// Fault: a dropped reply, a dropped request, a server stopped and
// restarted right after a commit (a session expiry under ZK_SERVERS), and
// a session expired right after a commit.
func TestDualWrite(t *testing.T) {
	srv := zktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, srv); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"batch  3/10:", "recovered at /migration version",
		"fault: the transaction was dropped before it reached ZooKeeper",
		"batch 10/10:", "lag 0 (was ",
		"ZooKeeper holds all 20 topics (20 distinct topic ids) and 80 partition states as written", "nothing lost, never stuck",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("output lacks %q:\n%s", want, text)
		}
	}
	t.Log("\n" + text)

	parent := srv.Root
	if parent == "" {
		parent = "/"
	}
	children, _, err := srv.Connect(t).Children(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range children {
		if strings.HasPrefix(c, "dualwrite-") {
			t.Fatalf("the demo left %s behind under %s", c, parent)
		}
	}
}
