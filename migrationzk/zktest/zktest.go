// Package zktest runs code against a real ZooKeeper server with injected
// faults, in the manner of net/http/httptest.
//
// Start gives a test a ZooKeeper of its own: the ensemble named by
// ZK_SERVERS, under a root path no other test uses, or else a standalone
// server started from a local installation ($ZOOKEEPER_HOME, or Debian's
// zookeeper package under /usr/share/zookeeper) on a loopback port reserved
// to it until it is closed, running or not, and stopped when the test
// ends. StartEnsemble starts a three-member ensemble whose members can be
// stopped, killed and restarted, and cut from each other while clients
// still reach them all: Partition, Isolate and Heal act on the links
// between members, and a member's Status and the ensemble's WaitLeader
// tell who leads and what each member applied. NewServer and NewEnsemble
// do the same without a testing.TB, for programs, which Close what they
// get. FaultDialer sits between a client and the server and cuts
// connections around chosen requests: after the server applied one (a lost
// acknowledgement) or before it was sent; a fault that never fires fails
// the test. ExpireSession ends a client's session from outside.
//
// Security options start servers that serve TLS only (WithTLS), with
// certificates made for each server and none checked in, that know client
// certificates as x509 identities, have digest super users, or enforce
// authentication. The Server's or Ensemble's Security gives the client
// TLS configuration, certificates for chosen subjects (expired ones too)
// and credentials; Connect uses it. A FaultDialer over TLS wraps the TLS
// dialer (Security.Dialer), so that it still sees ZooKeeper's frames.
// WithSASLDigestUser and WithSASLEnforced start servers that authenticate
// clients with SASL DIGEST-MD5, and require it; Connect authenticates as
// the first user.
//
// When no server can be had the test is skipped with a message saying how
// to get one, unless ZKWRITER_REQUIRE_ZK=1, which makes it fail instead.
//
// Server, Ensemble and Member methods that stop, kill, restart or wait for
// servers return their errors and are safe to call from any goroutine,
// such as a Fault's Then hook.
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

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
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

const (
	startTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second
	// startAttempts bounds the tries at starting a standalone server or
	// the members of an ensemble: a reserved port can be bound by a
	// process that does not reserve ports before the server binds it.
	startAttempts = 3
)

// howTo says how to get a server when none is available.
const howTo = "install ZooKeeper (apt-get install zookeeper, or set ZOOKEEPER_HOME to an unpacked release), " +
	"or run one (docker compose up -d) and set ZK_SERVERS=127.0.0.1:2181"

// errUnavailable marks the errors that mean no ZooKeeper can be had here:
// none installed, or the servers of ZK_SERVERS unreachable. Start and
// StartEnsemble skip the test on them unless ZKWRITER_REQUIRE_ZK=1.
var errUnavailable = errors.New("no ZooKeeper available")

// Server is a ZooKeeper for one test or program.
type Server struct {
	// Servers are the client addresses, host:port.
	Servers []string
	// Root is the path under which the test must keep its znodes: "" for a
	// server zktest started, a fresh path such as
	// "/zktest/TestName-1a2b3c4d" on a shared ensemble (ZK_SERVERS). It is
	// created with the Server and removed by Close.
	Root string

	// Security is how clients reach and authenticate to a server started
	// with security options, such as WithTLS; Connect uses it.
	Security

	proc  *zkserver.Process     // nil for a shared ensemble
	ports *zkserver.Reservation // proc's port, held until Close
	dir   string                // holds the data of proc; removed by Close
}

// Option configures a server that Start, StartEnsemble, NewServer or
// NewEnsemble starts. WithForceSync, WithFullJIT and WithTickTime have no
// effect on a shared ensemble (ZK_SERVERS); the security options and
// WithSetting make Start and NewServer start a server of their own
// instead.
type Option func(*options)

type options struct {
	forceSync bool
	fullJIT   bool
	tickTime  time.Duration

	tls               bool
	clientAuth        ClientAuth
	serverHosts       []string
	expiredServerCert bool
	x509SuperUser     string
	superUser         string
	superPassword     string
	enforce           []string // nil: authentication not enforced
	settings          map[string]string
	sasl              *saslServer // nil: no SASL
	saslEnforced      bool
}

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithForceSync makes started servers fsync their transaction log before
// they acknowledge a write, as production servers do. By default they do
// not, which makes tests faster.
func WithForceSync() Option { return func(o *options) { o.forceSync = true } }

// WithFullJIT makes started servers run with both of the JVM's
// compilers, as production servers do. By default they stop at the first,
// which starts faster and suits short tests; with both, a server needs
// some seconds of load to warm up, then runs CPU-bound work, such as a
// transaction of thousands of ops, about twice as fast. For benchmarks
// whose figures depend on the server's own CPU.
func WithFullJIT() Option { return func(o *options) { o.fullJIT = true } }

// WithTickTime sets ZooKeeper's tick, the unit of its session and sync
// timeouts. The default is 500ms.
func WithTickTime(d time.Duration) Option { return func(o *options) { o.tickTime = d } }

// NewServer returns a ZooKeeper server for a program, as httptest.NewServer
// does for HTTP; the caller must Close it. With ZK_SERVERS set it is that
// ensemble under a fresh root path ("/zktest/server-1a2b3c4d", see
// Server.Root), which Close removes with everything below it. Otherwise it
// is a standalone server started from a local installation on a loopback
// port reserved to it until Close (see Ensemble), with its data in a
// temporary directory; Close stops it, releases the port and removes the
// directory. When neither can be had, the error says how
// to get a server.
func NewServer(opts ...Option) (*Server, error) {
	o := collect(opts)
	if env := os.Getenv(EnvServers); env != "" && !o.secured() {
		return newShared(strings.Split(env, ","), "server")
	}
	return newStandalone(o)
}

// Start returns a ZooKeeper server for t, closed when the test ends: with
// ZK_SERVERS set, that ensemble under a root named after the test; see the
// package documentation and NewServer. It skips or fails t when no server
// can be had.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var s *Server
	var err error
	o := collect(opts)
	if env := os.Getenv(EnvServers); env != "" && !o.secured() {
		s, err = newShared(strings.Split(env, ","), t.Name())
	} else {
		s, err = newStandalone(o)
	}
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("zktest: %v", err)
		}
	})
	return s
}

// skipOrFail ends the test for an error from a constructor: a skip when no
// server can be had (a failure with ZKWRITER_REQUIRE_ZK=1), else a failure.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, errUnavailable) && os.Getenv(EnvRequire) != "1" {
		t.Skip(err)
	}
	if errors.Is(err, errUnavailable) {
		t.Fatalf("%v (%s=1)", err, EnvRequire)
	}
	t.Fatal(err)
}

func newStandalone(o options) (*Server, error) {
	inst, err := zkserver.FindInstall()
	if err != nil {
		return nil, fmt.Errorf("zktest: %w (%v): %s", errUnavailable, err, howTo)
	}
	dir, err := os.MkdirTemp("", "zktest-server-")
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	sec, serverTLS, settings, err := newSecurity(filepath.Join(dir, "tls"), o)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	jvmFlags, err := sec.setUpSASL(filepath.Join(dir, "sasl"), o)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	serverDir := filepath.Join(dir, "server")
	cfg := zkserver.Config{Dir: serverDir, TickTime: o.tickTime, ForceSync: o.forceSync, FullJIT: o.fullJIT, TLS: serverTLS, Settings: settings, JVMFlags: jvmFlags}
	for attempt := 1; attempt <= startAttempts; attempt++ {
		var p *zkserver.Process
		var ports *zkserver.Reservation
		if p, ports, err = startStandalone(inst, cfg); err == nil {
			return &Server{Servers: []string{p.Addr()}, Security: *sec, proc: p, ports: ports, dir: dir}, nil
		}
		// Most likely a process that does not reserve ports bound the
		// port in between; try another, on a clean directory.
		if rmErr := os.RemoveAll(serverDir); rmErr != nil {
			err = errors.Join(err, rmErr)
			break
		}
	}
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("zktest: %w", err)
}

// startStandalone starts a server configured as cfg on a port it
// reserves and waits until it serves clients. The caller releases the
// port once the server has stopped.
func startStandalone(inst zkserver.Install, cfg zkserver.Config) (*zkserver.Process, *zkserver.Reservation, error) {
	ports, err := zkserver.ReservePorts(1)
	if err != nil {
		return nil, nil, err
	}
	cfg.Self = zkserver.Member{ID: 1, ClientPort: ports.Ports()[0]}
	p, err := zkserver.Start(inst, cfg)
	if err != nil {
		return nil, nil, errors.Join(err, ports.Release())
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil {
		return nil, nil, errors.Join(err, p.Kill(), ports.Release())
	}
	return p, ports, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// newShared makes a fresh root named after name on the servers.
func newShared(servers []string, name string) (*Server, error) {
	conn, err := connect(servers, nil)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w: %s=%s unreachable (%v): %s", errUnavailable, EnvServers, strings.Join(servers, ","), err, howTo)
	}
	defer conn.Close()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	name = unsafeChars.ReplaceAllString(name, "_")
	if len(name) > 100 {
		name = name[:100]
	}
	root := "/zktest/" + name + "-" + hex.EncodeToString(suffix[:])
	if err := createAll(conn, root); err != nil {
		return nil, fmt.Errorf("zktest: create root %s: %w", root, err)
	}
	return &Server{Servers: servers, Root: root}, nil
}

// Close releases the server: on a shared ensemble it removes Root and
// everything below it; a server zktest started is stopped (SIGTERM, then
// SIGKILL after a while) and its data directory removed. Close it after
// the clients of the server.
func (s *Server) Close() error {
	if s.proc == nil {
		return removeRoot(s.Servers, s.Root)
	}
	stopErr := s.proc.Stop(stopTimeout)
	return errors.Join(stopErr, s.ports.Release(), os.RemoveAll(s.dir))
}

func removeRoot(servers []string, root string) error {
	conn, err := connect(servers, nil)
	if err != nil {
		return fmt.Errorf("cannot remove %s: %w", root, err)
	}
	defer conn.Close()
	if err := DeleteAll(conn, root); err != nil {
		return fmt.Errorf("cannot remove %s: %w", root, err)
	}
	return nil
}

// Addr returns the address of the first server.
func (s *Server) Addr() string { return s.Servers[0] }

// Path returns p under the server's root.
func (s *Server) Path(p string) string { return s.Root + p }

// Connect returns a client of the server that holds a session, closed
// when the test ends; see Connect. On a server started WithTLS it
// connects over TLS with ClientTLS. opts are go-zookeeper options: a
// zk.WithDialer among them, such as a FaultDialer's Option, replaces the
// TLS dialer, so give the FaultDialer the server's Dialer. To
// authenticate, use ConnectWith.
func (s *Server) Connect(t testing.TB, opts ...func(*zk.Conn)) *zk.Conn {
	t.Helper()
	return s.ConnectWith(t, zkconn.WithZKOptions(opts...))
}

// ConnectWith returns a client of the server that holds a session, closed
// when the test ends, made by zkconn.Open with opts after
// zkconn.WithDialer(s.Dialer()), such as
// zkconn.WithDigest(srv.SuperUser()) or zkconn.WithDialer(faults.Dial).
func (s *Server) ConnectWith(t testing.TB, opts ...zkconn.Option) *zk.Conn {
	t.Helper()
	conn, err := s.open(s.Servers, opts)
	if err != nil {
		t.Fatalf("zktest: %v%s", err, s.diagnose())
	}
	t.Cleanup(conn.Close)
	return conn
}

// open connects to servers through the dialer of s, with opts.
func (s *Security) open(servers []string, opts []zkconn.Option) (*zk.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	all := append(append([]zkconn.Option{zkconn.WithDialer(s.Dialer())}, s.SASL()...), opts...)
	return zkconn.Open(ctx, servers, SessionTimeout, all...)
}

// diagnose describes the server's condition for a failure message.
func (s *Server) diagnose() string {
	if s.proc == nil {
		return ""
	}
	r, err := s.proc.FourLetterWord("srvr", time.Second)
	return fmt.Sprintf("\nserver %s (pid %d): srvr=%q err=%v\noutput:\n%s", s.Addr(), s.proc.Pid(), r, err, s.proc.OutputTail(4096))
}

// Stop stops the server (SIGTERM) and waits for it to exit. On a shared
// ensemble, which zktest does not own, it returns an error and does
// nothing; so do Kill and Restart.
func (s *Server) Stop() error {
	p, err := s.own()
	if err != nil {
		return err
	}
	return p.Stop(stopTimeout)
}

// Kill kills the server (SIGKILL) and waits for it to exit.
func (s *Server) Kill() error {
	p, err := s.own()
	if err != nil {
		return err
	}
	return p.Kill()
}

// Restart starts a stopped or killed server again on its data directory
// and port, and waits until it is ready. It fails if the server runs.
func (s *Server) Restart() error {
	p, err := s.own()
	if err != nil {
		return err
	}
	return restart(p)
}

// Pid returns the server's process id, or 0 when it is not running or is
// not owned by zktest.
func (s *Server) Pid() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid()
}

func (s *Server) own() (*zkserver.Process, error) {
	if s.proc == nil {
		return nil, fmt.Errorf("zktest: the server at %v is shared (%s); it cannot be stopped, killed or restarted", s.Servers, EnvServers)
	}
	return s.proc, nil
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
// A program without a testing.TB calls zkconn.Open, which this wraps.
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
	return zkconn.Open(ctx, servers, SessionTimeout, zkconn.WithZKOptions(opts...))
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
