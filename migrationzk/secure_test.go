package migrationzk_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// digestID is the ACL id ZooKeeper stores for digest credentials user:pass.
func digestID(t *testing.T, user, pass string) zk.ACL {
	t.Helper()
	return zk.DigestACL(zk.PermAll, user, pass)[0]
}

// Fault: none. Under Kafka's secure policy every znode the Writer creates,
// parents included, carries exactly Kafka's ACL for its path, for the
// identity the client authenticated as; a client without the credentials
// can read but not change them, nor read the sensitive ones.
func TestKafkaSecureACLs(t *testing.T) {
	c := newCluster(t)
	if err := c.conn.AddAuth("digest", []byte("kafka:secret")); err != nil {
		t.Fatal(err)
	}
	root := c.p("/secure")
	w := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(root), migrationzk.WithKafkaSecureACLs()))
	if err := w.CreateTopLevelPaths(testContext(t)); err != nil {
		t.Fatal(err)
	}
	kafka := digestID(t, "kafka", "secret")
	// Read by the creator: ZooKeeper hides a digest from others.
	checkACLs(t, c.conn, root, map[string][]zk.ACL{
		"/brokers/topics": {kafka, zk.WorldACL(zk.PermRead)[0]},
		"/config/users":   {kafka},
		"/config/brokers": {kafka},
		"/consumers":      zk.WorldACL(zk.PermAll),
		"":                {kafka, zk.WorldACL(zk.PermRead)[0]},
	})
	if _, err := c.admin.Set(root+"/brokers/topics", []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a client without the credentials changed /brokers/topics: %v", err)
	}
	if _, _, err := c.admin.Get(root + "/config/users"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a client without the credentials read /config/users: %v", err)
	}
}

// checkACLs fails t unless each path of want, under root, has its ACL,
// in order, as conn reads it.
func checkACLs(t *testing.T, conn *zk.Conn, root string, want map[string][]zk.ACL) {
	t.Helper()
	for path, acl := range want {
		got, _, err := conn.GetACL(root + path)
		if err != nil || !slices.Equal(got, acl) {
			t.Errorf("%s: ACL %v (%v), want %v", path, got, err, acl)
		}
	}
}

// Fault: none. A Writer without the credentials the znodes demand gets a
// *NotAuthorizedError naming the znode and the op, sent once, never an
// unknown outcome or a conflict, and ZooKeeper is unchanged;
// CheckCredentials finds it before any write, and a wrong digest password
// (which ZooKeeper takes without complaint) too.
func TestNotAuthorized(t *testing.T) {
	c := newCluster(t)
	owner := c.srv.Connect(t)
	if err := owner.AddAuth("digest", []byte("kafka:secret")); err != nil {
		t.Fatal(err)
	}
	root := c.p("/secure")
	ownerW := must.Get(migrationzk.New(owner, migrationzk.WithRoot(root), migrationzk.WithKafkaSecureACLs()))
	if err := ownerW.CreateTopLevelPaths(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if err := ownerW.CheckCredentials(testContext(t), "/brokers/topics"); err != nil {
		t.Fatalf("the owner's credentials: %v", err)
	}
	if err := c.conn.AddAuth("digest", []byte("kafka:wrong")); err != nil {
		t.Fatalf("AddAuth with a wrong password: %v", err)
	}
	w := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(root)))
	err := w.CheckCredentials(testContext(t), "/brokers/topics")
	var nae *migrationzk.NotAuthorizedError
	if !errors.As(err, &nae) || nae.Path != root+"/brokers/topics" || nae.Op != "setData" {
		t.Fatalf("CheckCredentials with a wrong password: %v", err)
	}
	c.faults.ResetCounts()
	_, err = w.ConditionalUpdate(testContext(t), "/brokers/topics", []byte("x"), 0, nil)
	if !errors.As(err, &nae) || errors.Is(err, migrationzk.ErrOutcomeUnknown) || errors.Is(err, migrationzk.ErrConflict) {
		t.Fatalf("update without permission: %v", err)
	}
	if n := c.faults.Count(zktest.OpSetData); n != 1 {
		t.Fatalf("%d setData requests: a refusal for want of permission was retried", n)
	}
	if data, _, _ := owner.Get(root + "/brokers/topics"); data != nil {
		t.Fatalf("/brokers/topics changed to %q", data)
	}
}

// Fault: none. A batch whose op ZooKeeper refuses for want of permission
// stops with a *NotAuthorizedError naming that op's znode; nothing of its
// transaction, nor of a later one, lands, and the Writer is not retired.
func TestApplyNotAuthorized(t *testing.T) {
	c := newCluster(t)
	w := c.writer(migrationzk.WithMaxRequestBytes(smallTxn))
	s := c.start(w)
	owner := c.srv.Connect(t)
	if err := owner.AddAuth("digest", []byte("other:secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Create(c.p("/brokers/topics/theirs"), nil, 0, zk.DigestACL(zk.PermAll, "other", "secret")); err != nil {
		t.Fatal(err)
	}
	ops := append([]migrationzk.Op{migrationzk.Create("/brokers/topics/ours", nil),
		migrationzk.SetData("/brokers/topics/theirs", []byte("x"), 0)}, bigOps("later", 20)...)
	s.KRaftMetadataOffset = 9000
	got, _, err := w.Apply(testContext(t), s, ops...)
	var nae *migrationzk.NotAuthorizedError
	if !errors.As(err, &nae) || nae.Path != c.p("/brokers/topics/theirs") || nae.Op != "setData" {
		t.Fatalf("err = %v, want not authorized to set /brokers/topics/theirs", err)
	}
	if c.exists("/brokers/topics/ours") || c.exists(ops[2].Path()) || got.MigrationZkVersion != s.MigrationZkVersion {
		t.Fatalf("part of the batch landed (state version %d)", got.MigrationZkVersion)
	}
	if retired, _ := w.Retired(); retired {
		t.Fatal("retired for want of permission")
	}
	c.tenMoreWrites(w, s)
}
