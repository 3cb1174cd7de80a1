package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestDualWrite runs the example as make dualwrite does and checks that it
// finishes with everything in ZooKeeper.
// Fault: a dropped reply, a dropped request, a server stopped and
// restarted right after a commit (a session expiry under ZK_SERVERS), and
// a session expired right after a commit.
func TestDualWrite(t *testing.T) {
	if os.Getenv(zktest.EnvServers) == "" {
		if _, err := zkserver.FindInstall(); err != nil {
			if os.Getenv(zktest.EnvRequire) == "1" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := runMain(ctx, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"batch  3/10:", "recovered at /migration version",
		"fault: the transaction was dropped before it reached ZooKeeper",
		"batch 10/10:", "lag 0 (was ",
		"ZooKeeper holds all 80 partition states as written", "nothing lost, never stuck",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("output lacks %q:\n%s", want, text)
		}
	}
	t.Log("\n" + text)
}
