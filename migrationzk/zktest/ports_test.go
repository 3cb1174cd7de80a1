package zktest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
)

// hunterEnv, when set in the environment of this test binary, makes it
// another process hunting for the ports the variable lists (see
// huntPorts) instead of running tests.
const hunterEnv = "ZKTEST_PORT_HUNTER"

func TestMain(m *testing.M) {
	if list, ok := os.LookupEnv(hunterEnv); ok {
		os.Exit(huntPorts(list))
	}
	os.Exit(m.Run())
}

// huntPorts tries to get the comma-separated ports of list as another test
// process would for a server of its own: from a port reservation of
// zkserver, and from the kernel, binding port 0 many times. It prints
// "reserved <port>" or "numbered <port>" for each it gets.
func huntPorts(list string) int {
	wanted := map[int]bool{}
	for _, s := range strings.Split(list, ",") {
		p, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		wanted[p] = true
	}
	for p := range wanted {
		r, err := zkserver.Reserve(p)
		switch {
		case err == nil:
			fmt.Println("reserved", p)
			r.Release()
		case !errors.Is(err, zkserver.ErrPortTaken):
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	// Each port of the kernel's range comes up once in some thousands.
	for i := 0; i < 20000; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if p := l.Addr().(*net.TCPAddr).Port; wanted[p] {
			fmt.Println("numbered", p)
		}
		l.Close()
	}
	return 0
}

// Fault: an ensemble member and a standalone server are killed (SIGKILL)
// while another process hunts for their ports, and the ports of the
// followers, which no member binds while it follows, and restarted. The
// other process gets none of them, neither reserved nor numbered by the
// kernel, and a client of the restarted member's address reads the
// ensemble's own data.
func TestPortsHeldWhileServersDown(t *testing.T) {
	if os.Getenv(EnvServers) != "" {
		t.Skip("needs servers of its own")
	}
	e := StartEnsemble(t, 3)
	srv := Start(t)
	c := e.Connect(t)
	if _, err := c.Create("/held", []byte("ensemble"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	down := e.Members[0]
	if err := errors.Join(down.Kill(), srv.Kill()); err != nil {
		t.Fatal(err)
	}
	var held []int
	for _, p := range []*zkserver.Process{e.Members[0].proc, e.Members[1].proc, e.Members[2].proc, srv.proc} {
		held = append(held, configuredPorts(t, p)...)
	}
	if len(held) != 3*3+1 {
		t.Fatalf("ports of the ensemble and server: %v, want 10", held)
	}
	if got := hunt(t, held); len(got) > 0 {
		t.Errorf("another process got ports of the ensemble or server: %q", got)
	}
	if err := errors.Join(down.Restart(), srv.Restart()); err != nil {
		t.Fatal(err)
	}
	admin := Connect(t, []string{down.Addr})
	if data, _, err := admin.Get("/held"); err != nil || string(data) != "ensemble" {
		t.Fatalf("restarted member %d at %s: /held = %q, %v; want the ensemble's", down.ID, down.Addr, data, err)
	}
}

// configuredPorts returns the ports p is configured to bind: its client
// port, and in an ensemble its quorum and election ports, read from its
// zoo.cfg.
func configuredPorts(t *testing.T, p *zkserver.Process) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.Dir(), "zoo.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	_, client, _ := strings.Cut(p.Addr(), ":")
	self := "server.0="
	if id, err := os.ReadFile(filepath.Join(p.Dir(), "data", "myid")); err == nil {
		self = "server." + strings.TrimSpace(string(id)) + "="
	}
	fields := []string{client}
	for _, line := range strings.Split(string(b), "\n") {
		if addr, ok := strings.CutPrefix(line, self); ok {
			fields = append(fields, strings.Split(addr, ":")[1:3]...)
		}
	}
	ports := make([]int, len(fields))
	for i, f := range fields {
		if ports[i], err = strconv.Atoi(f); err != nil {
			t.Fatalf("%s: port %q: %v", p.Dir(), f, err)
		}
	}
	return ports
}

// hunt runs this test binary as another process hunting for ports and
// returns the lines it prints, one for each port it got.
func hunt(t *testing.T, ports []int) []string {
	t.Helper()
	if len(ports) == 0 {
		t.Fatal("no ports to hunt for")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	list := make([]string, len(ports))
	for i, p := range ports {
		list[i] = strconv.Itoa(p)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), hunterEnv+"="+strings.Join(list, ","))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hunting process: %v", err)
	}
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(out)), " ", "_"))
}
