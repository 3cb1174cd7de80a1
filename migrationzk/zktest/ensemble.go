package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// Ensemble is a three-member (or larger) ZooKeeper ensemble on loopback.
// Each member reaches the others' quorum and election ports through
// proxies of its own, so that Partition can cut members from each other.
// The members' ports stay reserved to the ensemble until Close, while a
// member is stopped too: no server of another Ensemble or Server, in this
// process or another, is given them, nor does the kernel give them to a
// socket it numbers itself, so a client or member that reaches a port of
// the ensemble reaches the ensemble.
type Ensemble struct {
	// Members are the servers of the ensemble, by ID from 1.
	Members []*Member
	// Servers are the client addresses of every member.
	Servers []string
	// Security is how clients reach and authenticate to an ensemble
	// started with security options, such as WithTLS; Connect uses it.
	// The members share one CA and one server certificate.
	Security
	dir   string                // holds the members' data; removed by Close
	net   *quorumNet            // carries the traffic between members
	ports *zkserver.Reservation // the members' ports, held until Close
}

// Member is one server of an Ensemble.
type Member struct {
	// ID is the member's server id (myid), 1 to the size of the ensemble.
	ID int
	// Addr is the member's client address, host:port.
	Addr string
	proc *zkserver.Process
}

// NewEnsemble starts an ensemble of n members (n >= 3) on loopback from a
// local installation, with their data in a temporary directory, and waits
// until every member serves clients; the caller must Close it. It ignores
// ZK_SERVERS: members must be stopped and killed.
func NewEnsemble(n int, opts ...Option) (*Ensemble, error) {
	if n < 3 {
		return nil, fmt.Errorf("zktest: an ensemble needs at least 3 members, not %d", n)
	}
	inst, err := zkserver.FindInstall()
	if err != nil {
		return nil, fmt.Errorf("zktest: %w (%v): %s", errUnavailable, err, howTo)
	}
	dir, err := os.MkdirTemp("", "zktest-ensemble-")
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	o := collect(opts)
	e := &Ensemble{dir: dir}
	sec, serverTLS, settings, err := newSecurity(filepath.Join(dir, "tls"), o)
	if err != nil {
		return nil, errors.Join(err, e.Close())
	}
	jvmFlags, err := sec.setUpSASL(filepath.Join(dir, "sasl"), o)
	if err != nil {
		return nil, errors.Join(err, e.Close())
	}
	e.Security = *sec
	base := zkserver.Config{TickTime: o.tickTime, ForceSync: o.forceSync, FullJIT: o.fullJIT, TLS: serverTLS, Settings: settings, JVMFlags: jvmFlags}
	for attempt := 1; ; attempt++ {
		err := e.start(inst, n, base)
		if err == nil {
			return e, nil
		}
		if attempt == startAttempts {
			return nil, errors.Join(err, e.Close())
		}
		// Most likely a port reserved was bound before its member bound
		// it, by a process that does not reserve ports: start again on
		// others.
		if err := e.stopMembers(); err != nil {
			return nil, errors.Join(err, e.Close())
		}
	}
}

// stopMembers stops the members started so far and their proxies,
// removes their data and releases their ports, so that start can run
// again.
func (e *Ensemble) stopMembers() error {
	var errs []error
	for _, m := range e.Members {
		errs = append(errs, m.proc.Stop(stopTimeout), os.RemoveAll(filepath.Join(e.dir, fmt.Sprintf("member-%d", m.ID))))
	}
	errs = append(errs, e.closeNet())
	e.Members, e.Servers = nil, nil
	return errors.Join(errs...)
}

// closeNet stops the proxies and releases the members' ports; the
// members must be stopped.
func (e *Ensemble) closeNet() error {
	var errs []error
	if e.net != nil {
		errs = append(errs, e.net.close())
	}
	if e.ports != nil {
		errs = append(errs, e.ports.Release())
	}
	e.net, e.ports = nil, nil
	return errors.Join(errs...)
}

// start starts n members configured as base and waits until they serve
// clients.
func (e *Ensemble) start(inst zkserver.Install, n int, base zkserver.Config) error {
	reserved, err := zkserver.ReservePorts(3 * n)
	if err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	e.ports = reserved // released by stopMembers or Close
	ports := reserved.Ports()
	real := make([]zkserver.Member, n)
	quorum, election := make([]int, n), make([]int, n)
	for i := range real {
		real[i] = zkserver.Member{ID: i + 1, ClientPort: ports[3*i], QuorumPort: ports[3*i+1], ElectionPort: ports[3*i+2]}
		quorum[i], election[i] = real[i].QuorumPort, real[i].ElectionPort
	}
	if e.net, err = newQuorumNet(quorum, election); err != nil {
		return err
	}
	for _, m := range real {
		cfg := base
		cfg.Dir, cfg.Self, cfg.Peers = filepath.Join(e.dir, fmt.Sprintf("member-%d", m.ID)), m, e.peersSeenBy(m, real)
		p, err := zkserver.Start(inst, cfg)
		if err != nil {
			return fmt.Errorf("zktest: ensemble member %d: %w", m.ID, err)
		}
		e.Members = append(e.Members, &Member{ID: m.ID, Addr: p.Addr(), proc: p})
		e.Servers = append(e.Servers, p.Addr())
	}
	return e.WaitServing()
}

// peersSeenBy returns the ensemble as self sees it: its own real ports,
// and the proxies through which it reaches the others.
func (e *Ensemble) peersSeenBy(self zkserver.Member, real []zkserver.Member) []zkserver.Member {
	peers := make([]zkserver.Member, len(real))
	for i, m := range real {
		peers[i] = m
		if m.ID != self.ID {
			peers[i].QuorumPort, peers[i].ElectionPort = e.net.ports(self.ID, m.ID)
		}
	}
	return peers
}

// StartEnsemble starts an ensemble of n members (n >= 3) for t, as
// NewEnsemble does, and closes it when the test ends. It needs a local
// installation even when ZK_SERVERS is set, since members must be stopped
// and killed; with ZK_SERVERS set and none installed, the test is skipped.
func StartEnsemble(t testing.TB, n int, opts ...Option) *Ensemble {
	t.Helper()
	e, err := NewEnsemble(n, opts...)
	if err != nil && errors.Is(err, errUnavailable) && os.Getenv(EnvServers) != "" {
		// A shared ensemble serves Start; this one must be killable.
		t.Skipf("zktest: StartEnsemble needs a local ZooKeeper installation even with %s set (%v)", EnvServers, err)
	}
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("zktest: %v", err)
		}
	})
	return e
}

// Close stops every member (SIGTERM, then SIGKILL after a while) and
// removes their data directories. Close it after the clients of the
// ensemble.
func (e *Ensemble) Close() error {
	var errs []error
	for _, m := range e.Members {
		errs = append(errs, m.proc.Stop(stopTimeout))
	}
	errs = append(errs, e.closeNet(), os.RemoveAll(e.dir))
	return errors.Join(errs...)
}

// Connect returns a client of the ensemble that holds a session, closed
// when the test ends, over TLS on an ensemble started WithTLS; see
// Server.Connect.
func (e *Ensemble) Connect(t testing.TB, opts ...func(*zk.Conn)) *zk.Conn {
	t.Helper()
	return e.ConnectWith(t, zkconn.WithZKOptions(opts...))
}

// ConnectWith returns a client of the ensemble made by zkconn.Open with
// opts after zkconn.WithDialer(e.Dialer()); see Server.ConnectWith.
func (e *Ensemble) ConnectWith(t testing.TB, opts ...zkconn.Option) *zk.Conn {
	t.Helper()
	conn, err := e.open(e.Servers, opts)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	t.Cleanup(conn.Close)
	return conn
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
		if mode, err := m.proc.Mode(); err == nil && mode == "leader" {
			return m
		}
	}
	return nil
}

// WaitServing waits until every running member serves clients, as leader
// or follower, and returns an error naming the first that does not within
// a minute.
func (e *Ensemble) WaitServing() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for _, m := range e.Members {
		if m.Running() {
			if err := m.proc.WaitReady(ctx); err != nil {
				return fmt.Errorf("zktest: ensemble member %d: %w", m.ID, err)
			}
		}
	}
	return nil
}

// Stop stops the member (SIGTERM) and waits for it to exit.
func (m *Member) Stop() error { return m.proc.Stop(stopTimeout) }

// Kill kills the member (SIGKILL) and waits for it to exit.
func (m *Member) Kill() error { return m.proc.Kill() }

// Restart starts a stopped or killed member again on its data directory
// and ports, and waits until it serves clients again. It fails if the
// member runs.
func (m *Member) Restart() error { return restart(m.proc) }

// Running reports whether the member's process is alive.
func (m *Member) Running() bool { return m.proc.Running() }

// Pid returns the member's process id, or 0 when it is not running.
func (m *Member) Pid() int { return m.proc.Pid() }
