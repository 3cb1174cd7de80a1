package migrationzk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// conditionalPaths are ConditionalUpdate and ConditionalDelete as write
// paths, on znodes runWritePath creates at version 0.
func conditionalPaths() []writePath {
	return []writePath{
		{name: "ConditionalUpdate", op: zktest.OpSetData, path: "/config",
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, _ migrationzk.State) error {
				_, err := w.ConditionalUpdate(ctx, "/config", []byte("v1"), 0, nil)
				return err
			}},
		{name: "ConditionalDelete", op: zktest.OpDelete, path: "/config/changes",
			call: func(ctx context.Context, c *cluster, w *migrationzk.Writer, _ migrationzk.State) error {
				_, err := w.ConditionalDelete(ctx, "/config/changes", 0)
				return err
			}},
	}
}

// everyWritePath runs each write path on srv without a fault, then with
// a lost reply and a lost request, and compares what ZooKeeper holds.
func everyWritePath(t *testing.T, srv *zktest.Server) {
	admin := srv.Connect(t)
	n := 0
	for _, path := range append(writePaths(), conditionalPaths()...) {
		want := runWritePath(t, srv, admin, &n, path, nil)
		for _, action := range []zktest.Action{zktest.DropReply, zktest.DropRequest} {
			t.Run(path.name+"/"+action.String(), func(t *testing.T) {
				fault := &zktest.Fault{Action: action, Op: path.op}
				if got := runWritePath(t, srv, admin, &n, path, fault); !equalSnapshots(got, want) {
					t.Fatalf("ZooKeeper after the fault:\n%v\nwithout it:\n%v", got, want)
				}
			})
		}
	}
}

// Fault: reply lost after commit, and request lost, on each write path of
// the Writer, on a server that enforces SASL (DIGEST-MD5): each recovery
// reconnects and authenticates again before the resent request. Every
// call succeeds and leaves ZooKeeper exactly as without the fault.
func TestSASLEveryWritePath(t *testing.T) {
	everyWritePath(t, securitytest.SASLDigest(t))
}

// Fault: as TestSASLEveryWritePath, with SASL inside TLS.
func TestSASLOverTLSEveryWritePath(t *testing.T) {
	everyWritePath(t, securitytest.SASLDigest(t, zktest.WithTLS()))
}

// Fault: none. Under SASL, Kafka's secure policy gives every znode the
// Writer creates what a broker with zookeeper.set.acl=true gives it: all
// permissions for the sasl identity, read for anyone except on the
// sensitive paths; a client authenticated as another user may read but
// not change them, nor read the sensitive ones.
func TestSASLKafkaSecureACLs(t *testing.T) {
	srv := zktest.Start(t, zktest.WithSASLDigestUser("kafka", "kafka-secret"), zktest.WithSASLDigestUser("other", "other-secret"))
	conn := srv.Connect(t)
	w := (&cluster{t: t, conn: conn, root: "/secure"}).writer(migrationzk.WithKafkaSecureACLs())
	if err := w.CreateTopLevelPaths(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.GetOrCreate(testContext(t), kraft()); err != nil {
		t.Fatal(err)
	}
	kafka := zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: "kafka"}
	world := zk.WorldACL(zk.PermRead)[0]
	other := srv.ConnectWith(t, zkconn.WithSASL(sasl.DigestMD5("other", "other-secret")))
	checkACLs(t, conn, "/secure", map[string][]zk.ACL{
		"":                {kafka, world},
		"/brokers/topics": {kafka, world},
		"/migration":      {kafka, world},
		"/config/users":   {kafka},
		"/config/brokers": {kafka},
		"/consumers":      zk.WorldACL(zk.PermAll),
	})
	if _, err := other.Set("/secure/brokers/topics", []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("sasl:other changed /brokers/topics: %v", err)
	}
	if _, _, err := other.Get("/secure/config/users"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("sasl:other read /config/users: %v", err)
	}
	if _, _, err := other.Get("/secure/brokers/topics"); err != nil {
		t.Fatalf("sasl:other cannot read /brokers/topics: %v", err)
	}
}

// Fault: none. A Writer without SASL on a server that enforces it fails
// its first write at once with ErrAuthFailed naming SASL, and writes
// nothing.
func TestSASLRequiredWriter(t *testing.T) {
	srv := securitytest.SASLDigest(t)
	conn := srv.ConnectWith(t, zkconn.WithoutSASL())
	w := (&cluster{t: t, conn: conn, root: ""}).writer()
	_, _, err := w.GetOrCreate(testContext(t), kraft())
	if !errors.Is(err, migrationzk.ErrAuthFailed) || !strings.Contains(err.Error(), "such as SASL") {
		t.Fatalf("%v; want ErrAuthFailed naming SASL", err)
	}
	if ok, _, err := srv.Connect(t).Exists("/migration"); ok || err != nil {
		t.Fatalf("/migration exists %v, %v", ok, err)
	}
}
