// Package zktest runs code against a real ZooKeeper server with injected
// faults, in the manner of net/http/httptest.
//
// Start gives a test a ZooKeeper of its own: the ensemble named by
// ZK_SERVERS, under a root path no other test uses, or else a standalone
// server started from a local installation ($ZOOKEEPER_HOME, or Debian's
// zookeeper package under /usr/share/zookeeper) on a free loopback port, and
// stopped when the test ends. StartEnsemble starts a three-member ensemble
// whose members can be stopped, killed and restarted. FaultDialer sits
// between a client and the server and cuts connections around chosen
// requests: after the server applied one (a lost acknowledgement) or before
// it was sent. ExpireSession ends a client's session from outside.
//
// When no server can be had the test is skipped with a message saying how
// to get one, unless ZKWRITER_REQUIRE_ZK=1, which makes it fail instead.
package zktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// Environment variables that steer where servers come from.
const (
	// EnvServers names an existing ensemble, as host:port[,host:port...].
	EnvServers = "ZK_SERVERS"
	// EnvRequire, when "1", turns a missing server from a skip into a failure.
	EnvRequire = "ZKWRITER_REQUIRE_ZK"
)

// SessionTimeout is the session timeout Connect asks for.
const SessionTimeout = 10 * time.Second

const startTimeout = 60 * time.Second

// howTo says how to get a server when none is available.
const howTo = "install ZooKeeper (apt-get install zookeeper, or set ZOOKEEPER_HOME to an unpacked release), " +
	"or run one (docker compose up -d) and set ZK_SERVERS=127.0.0.1:2181"

// Server is a ZooKeeper for one test.
type Server struct {
	// Servers are the client addresses, host:port.
	Servers []string
	// Root is the path under which the test must keep its znodes: "" for a
	// server started for the test alone, a fresh path such as
	// "/zktest/TestName-1a2b3c4d" on a shared ensemble (ZK_SERVERS). It is
	// created by Start and removed when the test ends.
	Root string

	t    testing.TB
	proc *zkserver.Process // nil for a shared ensemble
}

// Option configures a server that Start or StartEnsemble starts.
type Option func(*options)

type options struct {
	forceSync bool
	tickTime  time.Duration
}

// WithForceSync makes started servers fsync their transaction log before
// they acknowledge a write, as production servers do. By default they do
// not, which makes tests faster.
func WithForceSync() Option { return func(o *options) { o.forceSync = true } }

// WithTickTime sets ZooKeeper's tick, the unit of its session and sync
// timeouts. The default is 500ms.
func WithTickTime(d time.Duration) Option { return func(o *options) { o.tickTime = d } }

// Start returns a ZooKeeper server for t; see the package documentation.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	if env := os.Getenv(EnvServers); env != "" {
		return startShared(t, strings.Split(env, ","))
	}
	inst := findInstall(t)
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		ports, err := zkserver.FreePorts(1)
		if err != nil {
			t.Fatalf("zktest: %v", err)
		}
		dir := t.TempDir()
		p, err := zkserver.Start(inst, zkserver.Config{
			Dir:       dir,
			Self:      zkserver.Member{ID: 1, ClientPort: ports[0]},
			TickTime:  o.tickTime,
			ForceSync: o.forceSync,
		})
		if err != nil {
			t.Fatalf("zktest: %v", err)
		}
		t.Cleanup(func() { _ = p.Stop(10 * time.Second) })
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		lastErr = p.WaitReady(ctx)
		cancel()
		if lastErr == nil {
			return &Server{Servers: []string{p.Addr()}, t: t, proc: p}
		}
		// Most likely another process took the port in between; try another.
		_ = p.Kill()
	}
	t.Fatalf("zktest: %v", lastErr)
	return nil
}

func findInstall(t testing.TB) zkserver.Install {
	t.Helper()
	inst, err := zkserver.FindInstall()
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("zktest: no ZooKeeper available (%v) and %s=1: %s", err, EnvRequire, howTo)
		}
		t.Skipf("zktest: no ZooKeeper available (%v): %s", err, howTo)
	}
	return inst
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func startShared(t testing.TB, servers []string) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	conn, err := zkconn.Connect(ctx, servers, SessionTimeout)
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("zktest: %s=%s: %v", EnvServers, strings.Join(servers, ","), err)
		}
		t.Skipf("zktest: %s=%s unreachable (%v): %s", EnvServers, strings.Join(servers, ","), err, howTo)
	}
	defer conn.Close()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	name := unsafeChars.ReplaceAllString(t.Name(), "_")
	if len(name) > 100 {
		name = name[:100]
	}
	root := "/zktest/" + name + "-" + hex.EncodeToString(suffix[:])
	if err := createAll(conn, root); err != nil {
		t.Fatalf("zktest: create root %s: %v", root, err)
	}
	s := &Server{Servers: servers, Root: root, t: t}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		c, err := zkconn.Connect(ctx, servers, SessionTimeout)
		if err != nil {
			t.Logf("zktest: cannot remove %s: %v", root, err)
			return
		}
		defer c.Close()
		if err := DeleteAll(c, root); err != nil {
			t.Logf("zktest: cannot remove %s: %v", root, err)
		}
	})
	return s
}

// Addr returns the address of the first server.
func (s *Server) Addr() string { return s.Servers[0] }

// Path returns p under the test's root.
func (s *Server) Path(p string) string { return s.Root + p }

// Connect returns a client of the server that holds a session; see Connect.
func (s *Server) Connect(t testing.TB, opts ...func(*zk.Conn)) *zk.Conn {
	t.Helper()
	conn, err := connect(s.Servers, opts)
	if err != nil {
		t.Fatalf("zktest: %v%s", err, s.diagnose())
	}
	t.Cleanup(conn.Close)
	return conn
}

// diagnose describes the server's condition for a failure message.
func (s *Server) diagnose() string {
	if s.proc == nil {
		return ""
	}
	r, err := zkserver.FourLetterWord(s.Addr(), "srvr", time.Second)
	return fmt.Sprintf("\nserver %s (pid %d): srvr=%q err=%v\noutput:\n%s", s.Addr(), s.proc.Pid(), r, err, s.proc.OutputTail(4096))
}

// Stop stops the server (SIGTERM) and waits for it to exit. It fails the
// test on a shared ensemble, which zktest does not own.
func (s *Server) Stop() {
	s.t.Helper()
	s.own()
	if err := s.proc.Stop(10 * time.Second); err != nil {
		s.t.Fatal(err)
	}
}

// Kill kills the server (SIGKILL) and waits for it to exit.
func (s *Server) Kill() {
	s.t.Helper()
	s.own()
	if err := s.proc.Kill(); err != nil {
		s.t.Fatal(err)
	}
}

// Restart starts a stopped or killed server again on its data directory
// and port, and waits until it is ready.
func (s *Server) Restart() {
	s.t.Helper()
	s.own()
	if err := restart(s.proc); err != nil {
		s.t.Fatal(err)
	}
}

// Pid returns the server's process id, or 0 when it is not running or is
// not owned by zktest.
func (s *Server) Pid() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid()
}

func (s *Server) own() {
	if s.proc == nil {
		s.t.Fatalf("zktest: the server at %v is shared (%s); it cannot be stopped or killed", s.Servers, EnvServers)
	}
}

func restart(p *zkserver.Process) error {
	if err := p.Restart(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	return p.WaitReady(ctx)
}

// Connect returns a client of servers that holds a session, closed when the
// test ends. It reconnects at once after a lost connection (see
// zkconn.HostProvider) and asks for SessionTimeout. opts are go-zookeeper
// options such as zk.WithDialer(d.Dial); later ones override earlier ones.
func Connect(t testing.TB, servers []string, opts ...func(*zk.Conn)) *zk.Conn {
	t.Helper()
	conn, err := connect(servers, opts)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func connect(servers []string, opts []func(*zk.Conn)) (*zk.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	return zkconn.Connect(ctx, servers, SessionTimeout, opts...)
}

// createAll creates path and its missing parents with no data.
func createAll(conn *zk.Conn, path string) error {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := ""
	for _, p := range parts {
		cur += "/" + p
		if _, err := conn.Create(cur, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// DeleteAll removes path and everything below it. A missing path is not an
// error.
func DeleteAll(conn *zk.Conn, path string) error {
	children, _, err := conn.Children(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := DeleteAll(conn, path+"/"+c); err != nil {
			return err
		}
	}
	if err := conn.Delete(path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}

// Ensemble is a three-member (or larger) ZooKeeper ensemble on loopback.
type Ensemble struct {
	Members []*Member
	// Servers are the client addresses of every member.
	Servers []string
	t       testing.TB
}

// Member is one server of an Ensemble.
type Member struct {
	ID   int
	Addr string
	proc *zkserver.Process
	t    testing.TB
}

// StartEnsemble starts an ensemble of n members (n >= 3) on loopback and
// waits until every member serves clients. Its members are stopped when the
// test ends. It needs a local installation even when ZK_SERVERS is set,
// since members must be stopped and killed; with ZK_SERVERS set and none
// installed, the test is skipped.
func StartEnsemble(t testing.TB, n int, opts ...Option) *Ensemble {
	t.Helper()
	if n < 3 {
		t.Fatalf("zktest: an ensemble needs at least 3 members, not %d", n)
	}
	if os.Getenv(EnvServers) != "" {
		// A shared ensemble serves Start; the members of this one must be
		// killable, so it needs a local installation, or is skipped.
		if _, err := zkserver.FindInstall(); err != nil {
			t.Skipf("zktest: StartEnsemble needs a local ZooKeeper installation even with %s set (%v)", EnvServers, err)
		}
	}
	inst := findInstall(t)
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	ports, err := zkserver.FreePorts(3 * n)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	peers := make([]zkserver.Member, n)
	for i := range peers {
		peers[i] = zkserver.Member{ID: i + 1, ClientPort: ports[3*i], QuorumPort: ports[3*i+1], ElectionPort: ports[3*i+2]}
	}
	base := t.TempDir()
	e := &Ensemble{t: t}
	for _, m := range peers {
		p, err := zkserver.Start(inst, zkserver.Config{
			Dir:       filepath.Join(base, fmt.Sprintf("member-%d", m.ID)),
			Self:      m,
			Peers:     peers,
			TickTime:  o.tickTime,
			ForceSync: o.forceSync,
		})
		if err != nil {
			t.Fatalf("zktest: %v", err)
		}
		t.Cleanup(func() { _ = p.Stop(10 * time.Second) })
		e.Members = append(e.Members, &Member{ID: m.ID, Addr: p.Addr(), proc: p, t: t})
		e.Servers = append(e.Servers, p.Addr())
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for _, m := range e.Members {
		if err := m.proc.WaitReady(ctx); err != nil {
			t.Fatalf("zktest: ensemble member %d: %v", m.ID, err)
		}
	}
	return e
}

// Connect returns a client of the ensemble that holds a session; see Connect.
func (e *Ensemble) Connect(t testing.TB, opts ...func(*zk.Conn)) *zk.Conn {
	t.Helper()
	return Connect(t, e.Servers, opts...)
}

// Member returns the member serving addr, or nil.
func (e *Ensemble) Member(addr string) *Member {
	for _, m := range e.Members {
		if m.Addr == addr {
			return m
		}
	}
	return nil
}

// Leader returns the member that currently leads, or nil.
func (e *Ensemble) Leader() *Member {
	for _, m := range e.Members {
		if mode, err := zkserver.Mode(m.Addr); err == nil && mode == "leader" {
			return m
		}
	}
	return nil
}

// WaitServing waits until every running member serves clients.
func (e *Ensemble) WaitServing() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for _, m := range e.Members {
		if m.Running() {
			if err := m.proc.WaitReady(ctx); err != nil {
				e.t.Fatalf("zktest: member %d: %v", m.ID, err)
			}
		}
	}
}

// Stop stops the member (SIGTERM) and waits for it to exit.
func (m *Member) Stop() {
	m.t.Helper()
	if err := m.proc.Stop(10 * time.Second); err != nil {
		m.t.Fatal(err)
	}
}

// Kill kills the member (SIGKILL) and waits for it to exit.
func (m *Member) Kill() {
	m.t.Helper()
	if err := m.proc.Kill(); err != nil {
		m.t.Fatal(err)
	}
}

// Restart starts a stopped or killed member again on its data directory
// and ports, and waits until it serves clients again.
func (m *Member) Restart() {
	m.t.Helper()
	if err := restart(m.proc); err != nil {
		m.t.Fatal(err)
	}
}

// Running reports whether the member's process is alive.
func (m *Member) Running() bool { return m.proc.Running() }

// Pid returns the member's process id, or 0 when it is not running.
func (m *Member) Pid() int { return m.proc.Pid() }
