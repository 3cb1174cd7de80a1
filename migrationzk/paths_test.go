package migrationzk_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Fault: the reply to one create lost after the server applied it, then a
// second call on a complete tree. Every path exists with null data and the
// Writer's ACL; the second call changes nothing.
func TestCreateTopLevelPaths(t *testing.T) {
	c := newCluster(t)
	root := c.p("/fresh/kafka")
	w := must.Get(migrationzk.New(c.conn, migrationzk.WithRoot(root)))
	c.faults.Arm(zktest.Fault{Action: zktest.DropReply, Op: zktest.OpCreate, Path: "/config/changes"})
	if err := w.CreateTopLevelPaths(testContext(t)); err != nil {
		t.Fatal(err)
	}
	under := &cluster{t: t, admin: c.admin, root: root}
	stats := map[string]int32{}
	for _, p := range append([]string{"", "/brokers", "/config", "/admin"}, znode.TopLevelPaths()...) {
		data, st := under.get(p)
		if data != nil {
			t.Fatalf("%s holds %q, want null data", p, data)
		}
		acl, _, err := c.admin.GetACL(under.p(p))
		if err != nil || len(acl) != 1 || acl[0] != worldACL[0] {
			t.Fatalf("%s: ACL %v (%v)", p, acl, err)
		}
		stats[p] = st.Cversion
	}
	if err := w.CreateTopLevelPaths(testContext(t)); err != nil {
		t.Fatalf("second call: %v", err)
	}
	for p, cversion := range stats {
		if _, st := under.get(p); st.Cversion != cversion {
			t.Fatalf("%s changed by the second call", p)
		}
	}
	if w.Stats().LostAcks != 0 {
		t.Fatal("a path that only has to exist counted as a recovered write")
	}
}
