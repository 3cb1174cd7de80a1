package zktest_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

var acl = zk.WorldACL(zk.PermAll)

func mustCreate(t *testing.T, c *zk.Conn, path string, data []byte) {
	t.Helper()
	if _, err := c.Create(path, data, 0, acl); err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
}

func version(t *testing.T, c *zk.Conn, path string) int32 {
	t.Helper()
	_, st, err := c.Get(path)
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	return st.Version
}

// Fault: none. A standalone server starts, serves and survives a client.
func TestStartStandalone(t *testing.T) {
	srv := zktest.Start(t)
	c := srv.Connect(t)
	if c.State() != zk.StateHasSession {
		t.Fatalf("Connect returned a client in state %v", c.State())
	}
	p := srv.Path("/hello")
	mustCreate(t, c, p, []byte("world"))
	got, _, err := c.Get(p)
	if err != nil || string(got) != "world" {
		t.Fatalf("get = %q, %v", got, err)
	}
	if srv.Root == "" && srv.Pid() == 0 {
		t.Fatal("own server reports no pid")
	}
}

// Fault: connection cut after the server committed (reply lost).
func TestDropReplySetData(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/node")
	mustCreate(t, c, p, []byte("v0"))

	armed := d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: p})
	_, err := c.Set(p, []byte("v1"), 0)
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Set after dropped reply: err = %v, want zk.ErrConnectionClosed", err)
	}
	if !armed.HasFired() {
		t.Fatal("fault did not fire")
	}
	waitSession(t, c)
	data, st, err := c.Get(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 1 || string(data) != "v1" {
		t.Fatalf("after dropped reply: version %d data %q, want version 1 data v1 (the write landed)", st.Version, data)
	}
	// The identical resend is rejected although nothing is wrong.
	if _, err := c.Set(p, []byte("v1"), 0); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("resend: err = %v, want zk.ErrBadVersion", err)
	}
}

// Fault: connection cut before the request was sent.
func TestDropRequestSetData(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/node")
	mustCreate(t, c, p, []byte("v0"))

	armed := d.Arm(zktest.Fault{Action: zktest.DropRequest, Op: zktest.OpSetData, Path: p})
	_, err := c.Set(p, []byte("v1"), 0)
	var nerr net.Error
	if !errors.As(err, &nerr) {
		t.Fatalf("Set after dropped request: err = %v (%T), want a network error", err, err)
	}
	<-armed.Fired()
	waitSession(t, c)
	data, st, err := c.Get(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 0 || string(data) != "v0" {
		t.Fatalf("after dropped request: version %d data %q, want version 0 data v0 (never applied)", st.Version, data)
	}
	if _, err := c.Set(p, []byte("v1"), 0); err != nil {
		t.Fatalf("resend after dropped request: %v", err)
	}
}

// Fault: connection cut in the middle of the request frame.
func TestCutRequestSetData(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/node")
	mustCreate(t, c, p, []byte("v0"))

	d.Arm(zktest.Fault{Action: zktest.CutRequest, Op: zktest.OpSetData, Path: p})
	_, err := c.Set(p, []byte("v1"), 0)
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Set after cut request: err = %v, want zk.ErrConnectionClosed", err)
	}
	waitSession(t, c)
	if v := version(t, c, p); v != 0 {
		t.Fatalf("after cut request: version %d, want 0 (never applied)", v)
	}
}

// Fault: connection cut after commit, on a multi matched by one op's path,
// and on create and delete.
func TestDropReplyMatchesMultiCreateDelete(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	a, b := srv.Path("/a"), srv.Path("/b")
	mustCreate(t, c, a, nil)

	// A Get of the same path must not trigger a fault armed for multi.
	d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpMulti, Path: b})
	if _, _, err := c.Get(a); err != nil {
		t.Fatalf("unrelated get: %v", err)
	}
	_, err := c.Multi(&zk.CheckVersionRequest{Path: a, Version: 0}, &zk.CreateRequest{Path: b, Data: []byte("x"), Acl: acl})
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("multi: err = %v, want zk.ErrConnectionClosed", err)
	}
	waitSession(t, c)
	if ok, _, _ := c.Exists(b); !ok {
		t.Fatal("multi with dropped reply did not land")
	}

	d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpDelete, Path: b})
	if err := c.Delete(b, 0); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("delete: err = %v", err)
	}
	waitSession(t, c)
	if ok, _, _ := c.Exists(b); ok {
		t.Fatal("delete with dropped reply did not land")
	}

	d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpCreate, Path: b})
	if _, err := c.Create(b, nil, 0, acl); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("create: err = %v", err)
	}
	waitSession(t, c)
	if _, err := c.Create(b, nil, 0, acl); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("resent create: err = %v, want zk.ErrNodeExists", err)
	}
}

// Fault: none. Counters count requests by opcode and size them exactly.
func TestCounts(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/counted")
	mustCreate(t, c, p, nil)
	d.ResetCounts()

	data := make([]byte, 1000)
	for i := 0; i < 3; i++ {
		if _, err := c.Set(p, data, int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := c.Get(p); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Multi(&zk.CheckVersionRequest{Path: p, Version: 3}); err != nil {
		t.Fatal(err)
	}
	if got := d.Count(zktest.OpSetData); got != 3 {
		t.Errorf("setData count = %d, want 3", got)
	}
	if got := d.Count(zktest.OpGetData); got != 1 {
		t.Errorf("getData count = %d, want 1", got)
	}
	if got := d.Count(zktest.OpMulti); got != 1 {
		t.Errorf("multi count = %d, want 1", got)
	}
	if got := d.Requests(); got != 5 {
		t.Errorf("requests = %d, want 5 (%v)", got, d.Counts())
	}
	if got, want := d.LargestRequest(), wire.SetDataSize(p, data); got != want {
		t.Errorf("largest request = %d bytes, want %d", got, want)
	}
}

// Fault: server killed (SIGKILL) and restarted on its data directory.
func TestServerKillRestart(t *testing.T) {
	srv := zktest.Start(t)
	if srv.Root != "" {
		t.Skip("needs a server of its own")
	}
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	mustCreate(t, c, "/durable", []byte("x"))
	// Killed from the client's I/O goroutine, right after the commit.
	d.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpSetData, Path: "/durable", Then: func() {
		if err := srv.Kill(); err != nil {
			t.Errorf("Kill: %v", err)
		}
	}})
	if _, err := c.Set("/durable", []byte("y"), 0); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Set while the server is killed: err = %v, want zk.ErrConnectionClosed", err)
	}
	if srv.Pid() != 0 {
		t.Fatal("server still running after Kill")
	}
	if err := srv.Kill(); err != nil {
		t.Fatalf("Kill of a killed server: %v", err)
	}
	start := time.Now()
	restarted := make(chan error, 1)
	go func() { restarted <- srv.Restart() }()
	if err := <-restarted; err != nil {
		t.Fatalf("Restart: %v", err)
	}
	t.Logf("restart took %v", time.Since(start))
	if err := srv.Restart(); err == nil {
		t.Fatal("Restart of a running server succeeded")
	}
	waitSession(t, c)
	if v := version(t, c, "/durable"); v != 1 {
		t.Fatalf("version after restart = %d, want 1 (the write before the kill)", v)
	}
}

// Fault: the ensemble member the client is connected to is killed.
func TestEnsembleKillConnectedMember(t *testing.T) {
	e := zktest.StartEnsemble(t, 3)
	c := e.Connect(t)
	mustCreate(t, c, "/ens", []byte("0"))
	session := c.SessionID()
	m := e.Member(c.Server())
	if m == nil {
		t.Fatalf("client connected to %q, not a member of %v", c.Server(), e.Servers)
	}
	if err := m.Kill(); err != nil {
		t.Fatal(err)
	}
	// The client carries on: writes succeed through another member, in the
	// same session.
	setUntilLanded(t, c, "/ens", []byte("1"), 0)
	if c.Server() == m.Addr {
		t.Fatalf("client still on killed member %s", m.Addr)
	}
	if c.SessionID() != session {
		t.Fatalf("session changed from %x to %x", session, c.SessionID())
	}
	if v := version(t, c, "/ens"); v != 1 {
		t.Fatalf("version = %d, want 1", v)
	}
	if err := m.Restart(); err != nil {
		t.Fatal(err)
	}
	if !m.Running() {
		t.Fatal("member not running after restart")
	}
	if err := e.WaitServing(); err != nil {
		t.Fatal(err)
	}
}

// setUntilLanded sets path at version until the write lands, while the
// client moves to another server.
func setUntilLanded(t *testing.T, c *zk.Conn, path string, data []byte, version int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, err := c.Set(path, data, version)
		if err == nil || errors.Is(err, zk.ErrBadVersion) {
			return // landed, now or on an earlier attempt
		}
		if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) {
			t.Fatalf("set %s: %v", path, err)
		}
		if ctx.Err() != nil {
			t.Fatalf("client did not carry on: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Fault: session expired, ended from a second connection.
func TestExpireSession(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/ephemeral")
	if _, err := c.Create(p, nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	id, pw := d.Session()
	if id != c.SessionID() {
		t.Fatalf("dialer saw session %x, client has %x", id, c.SessionID())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := zktest.ExpireSession(ctx, srv.Addr(), id, pw); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for c.SessionID() == id || c.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			t.Fatalf("client kept session %x (state %v)", id, c.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ok, _, err := c.Exists(p); err != nil || ok {
		t.Fatalf("ephemeral of the expired session: exists=%v err=%v", ok, err)
	}
}

// Fault: none. With ZK_SERVERS set, Start hands each test its own root and
// removes it afterwards.
func TestSharedEnsembleRoot(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	var root string
	t.Run("shared", func(t *testing.T) {
		t.Setenv(zktest.EnvServers, srv.Addr())
		shared := zktest.Start(t)
		if shared.Root == "" || shared.Root == srv.Root {
			t.Fatalf("shared server root = %q", shared.Root)
		}
		root = shared.Root
		c := shared.Connect(t)
		mustCreate(t, c, shared.Path("/migration"), nil)
		for name, f := range map[string]func() error{"Stop": shared.Stop, "Kill": shared.Kill, "Restart": shared.Restart} {
			if err := f(); err == nil {
				t.Errorf("%s of a shared server succeeded", name)
			}
		}
	})
	if ok, _, err := admin.Exists(root); err != nil || ok {
		t.Fatalf("root %s left behind (exists=%v, err=%v)", root, ok, err)
	}
}

func waitSession(t *testing.T, c *zk.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := zkconn.WaitForSession(ctx, c); err != nil {
		t.Fatalf("no session: %v", err)
	}
}

// Fault: the server's answer to a request on a session it has closed,
// with the connection left open.
func TestRejectExpired(t *testing.T) {
	srv := zktest.Start(t)
	d := zktest.NewFaultDialer(t)
	c := srv.Connect(t, d.Option())
	p := srv.Path("/node")
	mustCreate(t, c, p, []byte("v0"))
	dials := d.Dials()
	d.Arm(zktest.Fault{Action: zktest.RejectExpired, Op: zktest.OpSetData, Path: p})
	if _, err := c.Set(p, []byte("v1"), 0); !errors.Is(err, zk.ErrSessionExpired) {
		t.Fatalf("err = %v, want zk.ErrSessionExpired", err)
	}
	if v := version(t, c, p); v != 0 {
		t.Fatalf("rejected request applied: version %d", v)
	}
	if d.Dials() != dials || c.State() != zk.StateHasSession {
		t.Fatalf("connection not kept: %d dials, state %v", d.Dials()-dials, c.State())
	}
	if _, err := c.Set(p, []byte("v1"), 0); err != nil {
		t.Fatalf("next request on the same connection: %v", err)
	}
}
