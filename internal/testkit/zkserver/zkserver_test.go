package zkserver_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
)

// A server's JVM stops at its first compiler unless FullJIT is set: the
// flag is looked for in the command line of the running process.
func TestFullJIT(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the command line from /proc")
	}
	inst, err := zkserver.FindInstall()
	if err != nil {
		if os.Getenv("ZKWRITER_REQUIRE_ZK") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, full := range []bool{false, true} {
		ports, err := zkserver.ReservePorts(1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := ports.Release(); err != nil {
				t.Error(err)
			}
		})
		p, err := zkserver.Start(inst, zkserver.Config{Dir: t.TempDir(), Self: zkserver.Member{ID: 1, ClientPort: ports.Ports()[0]}, FullJIT: full})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = p.WaitReady(ctx)
		cancel()
		cmdline, readErr := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/cmdline")
		if stopErr := p.Stop(10 * time.Second); err == nil {
			err = stopErr
		}
		if err != nil || readErr != nil {
			t.Fatalf("FullJIT %v: %v %v", full, err, readErr)
		}
		args := strings.Split(string(cmdline), "\x00")
		if !strings.Contains(args[0], "java") {
			t.Fatalf("FullJIT %v: process %d runs %q, not the JVM", full, p.Pid(), args[0])
		}
		stops := false
		for _, a := range args {
			stops = stops || strings.HasPrefix(a, "-XX:TieredStopAtLevel=")
		}
		if stops == full {
			t.Errorf("FullJIT %v: the JVM stops at a compiler tier: %v", full, stops)
		}
	}
}
