package migrationzk_test

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// secureTree makes, as the digest identity kafka:secret, root/secure with
// Kafka's secure ACL (only kafka may change it or delete its children,
// anyone may read it) and root/secure/controller under it, and returns the
// root a Writer needs to see them at /controller.
func secureTree(t *testing.T, c *cluster) string {
	t.Helper()
	owner := c.srv.Connect(t)
	if err := owner.AddAuth("digest", []byte("kafka:secret")); err != nil {
		t.Fatal(err)
	}
	root := c.p("/secure")
	for _, p := range []string{root, root + "/controller"} {
		if _, err := owner.Create(p, []byte("x"), 0, migrationzk.KafkaSecureACL("/")); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	return root
}

// Fault: none. CheckDeletable finds out, with one request a znode and
// without deleting, whether the client may delete it: a client without
// the credentials the parent's ACL demands gets a *NotAuthorizedError
// naming the znode and "delete"; the owner, and anyone under a parent
// that lets anyone delete, gets nil, and so does a missing znode.
func TestCheckDeletable(t *testing.T) {
	c := newCluster(t)
	root := secureTree(t, c)
	stranger := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(root)))
	// A Conn that has no Delete method probes with a multi.
	bare := must.Get(migrationzk.New(struct{ migrationzk.Conn }{c.conn}, migrationzk.WithRoot(root)))
	for multis, w := range []*migrationzk.Writer{stranger, bare} {
		c.faults.ResetCounts()
		err := w.CheckDeletable(testContext(t))
		var nae *migrationzk.NotAuthorizedError
		if !errors.As(err, &nae) || nae.Path != root+"/controller" || nae.Op != "delete" {
			t.Fatalf("CheckDeletable without the credentials: %v", err)
		}
		if n, m := c.faults.Requests(), c.faults.Count(zktest.OpMulti); n != 1 || m != int64(multis) {
			t.Fatalf("%d requests, %d of them multis, for one probe; want %d multis", n, m, multis)
		}
	}
	if err := c.conn.AddAuth("digest", []byte("kafka:secret")); err != nil {
		t.Fatal(err)
	}
	if err := stranger.CheckDeletable(testContext(t), "/controller", "/missing"); err != nil {
		t.Fatalf("CheckDeletable with the credentials: %v", err)
	}
	c.create("/open", nil)
	anyone := must.Get(migrationzk.New(c.srv.Connect(t), migrationzk.WithRoot(c.root)))
	if err := anyone.CheckDeletable(testContext(t), "/open", "/brokers/topics/missing"); err != nil {
		t.Fatalf("CheckDeletable under world-writable parents: %v", err)
	}
	if !c.exists("/secure/controller") || !c.exists("/open") {
		t.Fatal("a probe deleted a znode")
	}
	if err := anyone.CheckDeletable(testContext(t), "relative"); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("CheckDeletable of a relative path: %v", err)
	}
}

// Fault: none. ReadACL reads the ACL of each znode, a missing one as
// absent; a Conn that cannot read ACLs is an invalid argument, found
// before anything is sent.
func TestReadACL(t *testing.T) {
	c := newCluster(t)
	root := secureTree(t, c)
	w := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(root)))
	got, err := w.ReadACL(testContext(t), "/controller", "/missing", "/")
	if err != nil {
		t.Fatal(err)
	}
	want := migrationzk.KafkaSecureACL("/")
	if len(got) != 3 || got[0].Path != "/controller" || !got[0].Exists || len(got[0].ACL) != len(want) ||
		got[0].ACL[1] != want[1] || got[0].ACL[0].Scheme != "digest" {
		t.Fatalf("ACL of /controller: %+v, want %v (the digest id filled in)", got, want)
	}
	if got[1].Path != "/missing" || got[1].Exists || got[1].ACL != nil || !got[2].Exists || got[2].Path != "/" {
		t.Fatalf("ACLs of /missing and the root: %+v, %+v", got[1], got[2])
	}

	bare := must.Get(migrationzk.New(struct{ migrationzk.Conn }{c.conn}, migrationzk.WithRoot(root)))
	c.faults.ResetCounts()
	if _, err := bare.ReadACL(testContext(t), "/controller"); !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("ReadACL through a Conn without GetACL: %v", err)
	}
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// Fault: none. A znode whose ACL gives the client neither READ nor ADMIN
// hides its ACL: ReadACL reports a *NotAuthorizedError naming it and
// "getACL".
func TestReadACLNotAuthorized(t *testing.T) {
	c := newCluster(t)
	owner := c.srv.Connect(t)
	if err := owner.AddAuth("digest", []byte("kafka:secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Create(c.p("/hidden"), nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	w := c.writer()
	_, err := w.ReadACL(testContext(t), "/brokers", "/hidden")
	var nae *migrationzk.NotAuthorizedError
	if !errors.As(err, &nae) || nae.Path != c.p("/hidden") || nae.Op != "getACL" {
		t.Fatalf("ReadACL of a hidden ACL: %v", err)
	}
}
