package kraftdiff

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/kraftfixtures"
	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// syncedTo makes the tree under root hold the image of the scenario's
// metadata, as a KRaft controller's full sync leaves it, with /migration
// at the replayed offset, and returns a Writer and a Client there.
func syncedTo(t *testing.T, srv *zktest.Server, root, dir string) (*migrationzk.Writer, *dualwrite.Client, *kraftmeta.Result) {
	t.Helper()
	ctx := context.Background()
	r := must.Get(kraftmeta.Replay(ctx, dir))
	w := must.Get(migrationzk.New(srv.Connect(t), migrationzk.WithRoot(root)))
	if err := w.CreateTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch = 3000, r.HighestEpoch+1
	s = must.Get(w.ClaimLeadership(ctx, s))
	s, _, err := w.GetOrCreate(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	c := must.Get(dualwrite.New(w))
	s.KRaftMetadataOffset, s.KRaftMetadataEpoch = r.Offset, r.Epoch
	if _, _, err := c.Sync(ctx, s, r.Image); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return w, c, r
}

// TestCompareSynced syncs each scenario of the fixtures that ends in
// dual-write and compares: nothing differs, and nothing follows
// /migration's offset. Without a password encoder, the one password
// config of migration-basic is left out, and listed.
// Fault: none.
func TestCompareSynced(t *testing.T) {
	fixtures := kraftfixtures.Dir(t)
	srv := zktest.Start(t)
	for name, secrets := range map[string]int{"migration-basic": 1, "aborted-migration": 0, "old-metadata-version": 0} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fixtures, "scenarios", name)
			root := srv.Path("/" + name)
			w, c, r := syncedTo(t, srv, root, dir)
			res, err := Compare(context.Background(), c, w, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Plan.Empty() || res.Target != r.Offset || res.KRaft.After.Records != 0 || len(res.NotCompared) != secrets {
				t.Fatalf("at %d: plan %v, after %+v, not compared %v", res.Target, res.Plan, res.KRaft.After, res.NotCompared)
			}
		})
	}
}

// TestCompareNoMigration: /migration absent, or at -1, is
// ErrNoMigration, unless an offset is given.
// Fault: no checkpoint in /migration.
func TestCompareNoMigration(t *testing.T) {
	dir := filepath.Join(kraftfixtures.Dir(t), "scenarios", "migration-basic")
	srv := zktest.Start(t)
	root := srv.Path("/none")
	conn := srv.Connect(t)
	w := must.Get(migrationzk.New(conn, migrationzk.WithRoot(root)))
	if err := w.CreateTopLevelPaths(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := must.Get(dualwrite.New(w))
	if _, err := Compare(context.Background(), c, w, dir, Options{}); !errors.Is(err, ErrNoMigration) {
		t.Fatalf("absent /migration: %v", err)
	}
	must.Get(conn.Create(root+znode.MigrationPath, znode.Migration{KRaftMetadataOffset: -1, KRaftControllerID: -1, KRaftMetadataEpoch: -1, KRaftControllerEpoch: -1}.Encode(), 0, zkWorld()))
	if _, err := Compare(context.Background(), c, w, dir, Options{}); !errors.Is(err, ErrNoMigration) {
		t.Fatalf("/migration at -1: %v", err)
	}
	res, err := Compare(context.Background(), c, w, dir, Options{At: 200, AtSet: true})
	if err != nil || res.Target != 200 || res.Plan.Empty() || res.KRaft.After.LastOffset != 309 {
		t.Fatalf("at 200: %v, %+v", err, res)
	}
}

func zkWorld() []zk.ACL { return zk.WorldACL(zk.PermAll) }

// TestCompareBadMetadata: metadata that cannot be read fails the
// comparison with a *MetadataError, and a log that ends below
// /migration's offset with an *EndError naming both offsets.
// Fault: a path holding no metadata; /migration beyond the log's end.
func TestCompareBadMetadata(t *testing.T) {
	dir := filepath.Join(kraftfixtures.Dir(t), "scenarios", "aborted-migration")
	srv := zktest.Start(t)
	w, c, r := syncedTo(t, srv, srv.Path("/bad"), dir)
	var me *MetadataError
	if _, err := Compare(context.Background(), c, w, t.TempDir(), Options{}); !errors.As(err, &me) || !errors.Is(err, kraftmeta.ErrNoMetadata) {
		t.Fatalf("no metadata: %v", err)
	}
	var ee *EndError
	_, err := Compare(context.Background(), c, w, dir, Options{At: r.Offset + 10, AtSet: true})
	if !errors.As(err, &ee) || ee.End != r.Offset || ee.Target != r.Offset+10 || ee.FromMigration {
		t.Fatalf("beyond the end: %v", err)
	}
}
