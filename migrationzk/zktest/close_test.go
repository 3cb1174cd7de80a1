package zktest

import (
	"errors"
	"os"
	"testing"

	"github.com/go-zookeeper/zk"
)

// Fault: none. NewServer's server and NewEnsemble's members run until
// Close, which stops them and removes their data.
func TestNewServerAndEnsembleClose(t *testing.T) {
	if os.Getenv(EnvServers) != "" {
		t.Skip("needs servers of its own")
	}
	srv, err := NewServer()
	if err != nil {
		skipOrFail(t, err)
	}
	e, err := NewEnsemble(3)
	if err != nil {
		_ = srv.Close()
		skipOrFail(t, err)
	}
	conn := Connect(t, srv.Servers)
	if _, err := conn.Create("/program", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	pids := []int{srv.Pid()}
	dirs := []string{srv.dir, e.dir}
	for _, m := range e.Members {
		pids = append(pids, m.Pid())
	}
	for i, pid := range pids {
		if pid == 0 {
			t.Fatalf("process %d of %v not running", i, pids)
		}
	}
	if err := errors.Join(srv.Close(), e.Close()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if srv.Pid() != 0 {
		t.Error("server running after Close")
	}
	for _, m := range e.Members {
		if m.Running() {
			t.Errorf("member %d running after Close", m.ID)
		}
	}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("data directory %s left behind (%v)", dir, err)
		}
	}
}

// Fault: none. With ZK_SERVERS set, NewServer hands out a fresh root on
// those servers, which Close removes.
func TestNewServerShared(t *testing.T) {
	srv := Start(t)
	admin := Connect(t, srv.Servers)
	t.Setenv(EnvServers, srv.Addr())
	shared, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	if shared.Root == "" || shared.Root == srv.Root || shared.Pid() != 0 {
		t.Fatalf("shared server: root %q (own %q), pid %d", shared.Root, srv.Root, shared.Pid())
	}
	if _, err := admin.Create(shared.Path("/migration"), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := shared.Kill(); err == nil {
		t.Error("Kill of a shared server succeeded")
	}
	if err := shared.Close(); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := admin.Exists(shared.Root); err != nil || ok {
		t.Fatalf("root %s left behind (exists=%v, err=%v)", shared.Root, ok, err)
	}
}
