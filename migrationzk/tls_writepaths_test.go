package migrationzk_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// writePath is one of the Writer's calls that write, with the request a
// fault aims at.
type writePath struct {
	name string
	// op and path (relative to the root) match the call's write request.
	op   zktest.Op
	path string
	// claim says whether the call needs leadership claimed first.
	claim bool
	call  func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error
}

var notification = []byte(`{"version":2,"entity_path":"brokers/1"}`)

func writePaths() []writePath {
	update := func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
		s.KRaftMetadataOffset++
		_, err := w.Update(ctx, s)
		return err
	}
	apply := func(atomic bool, ops ...migrationzk.Op) func(context.Context, *cluster, *migrationzk.Writer, migrationzk.State) error {
		return func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
			s.KRaftMetadataOffset++
			write := w.Apply
			if atomic {
				write = w.ApplyAtomic
			}
			_, _, err := write(ctx, s, ops...)
			return err
		}
	}
	return []writePath{
		{name: "GetOrCreate", op: zktest.OpCreate, path: "/migration",
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, _ migrationzk.State) error {
				_, _, err := w.GetOrCreate(ctx, kraft())
				return err
			}},
		{name: "ClaimLeadership", op: zktest.OpMulti, path: "/controller",
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, _ migrationzk.State) error {
				_, err := w.ClaimLeadership(ctx, kraft())
				return err
			}},
		{name: "Update", op: zktest.OpMulti, path: "/migration", claim: true, call: update},
		{name: "Apply", op: zktest.OpMulti, path: "/migration", claim: true, call: apply(false, topicOps("tls", 2)...)},
		{name: "ApplyAtomic", op: zktest.OpMulti, path: "/migration", claim: true, call: apply(true, topicOps("tls", 2)...)},
		{name: "CreateSequential", op: zktest.OpMulti, path: "/migration", claim: true,
			call: apply(false, migrationzk.CreateSequential(znode.ConfigChangePrefix, notification))},
		{name: "ReleaseLeadership", op: zktest.OpMulti, path: "/controller", claim: true,
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, s migrationzk.State) error {
				_, err := w.ReleaseLeadership(ctx, s)
				return err
			}},
		{name: "CreateTopLevelPaths", op: zktest.OpCreate, path: "/admin",
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, _ migrationzk.State) error {
				return w.CreateTopLevelPaths(ctx)
			}},
	}
}

// Fault: reply lost after commit, and request lost, on each write path of
// the Writer over TLS (the FaultDialer on the clear side of the TLS
// layer; each fault costs a new TLS handshake). Every call succeeds and
// leaves ZooKeeper exactly as the same call without a fault does.
func TestTLSEveryWritePath(t *testing.T) {
	everyWritePath(t, securitytest.TLS(t))
}

// runWritePath makes path's call on a new root of srv, over a client that
// dials through a FaultDialer over TLS, with fault armed when set, and
// returns the root's tree, relative and with timestamps blanked.
func runWritePath(t *testing.T, srv *zktest.Server, admin *zk.Conn, n *int, path writePath, fault *zktest.Fault) map[string]string {
	t.Helper()
	*n++
	c := &cluster{t: t, srv: srv, admin: admin, root: srv.Path(fmt.Sprintf("/tls%03d", *n))}
	c.conn, c.faults = securitytest.FaultyClient(t, srv)
	if _, err := c.admin.Create(c.root, nil, 0, worldACL); err != nil {
		t.Fatal(err)
	}
	c.seed()
	c.create("/config", nil)
	c.create("/config/changes", nil)
	w := c.writer()
	var s migrationzk.State
	if path.claim {
		s = c.start(w)
	}
	var armed *zktest.Armed
	if fault != nil {
		fault.Path = c.p(path.path)
		armed = c.faults.Arm(*fault)
	}
	if err := path.call(testContext(t), c, w, s); err != nil {
		t.Fatalf("%s: %v", path.name, err)
	}
	if armed != nil && !armed.HasFired() {
		t.Fatalf("the fault %v never fired", *fault)
	}
	return relativeSnapshot(c)
}

var timestamp = regexp.MustCompile(`\\"timestamp\\":\\"\d+\\"`)

// relativeSnapshot is c's snapshot with paths relative to its root and
// the timestamps in znode data blanked, so that two roots compare.
func relativeSnapshot(c *cluster) map[string]string {
	out := map[string]string{}
	for p, v := range c.snapshot() {
		out[p[len(c.root):]] = timestamp.ReplaceAllString(v, `\"timestamp\":\"0\"`)
	}
	return out
}
