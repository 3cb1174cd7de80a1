package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// znodeAt is what the restore tests compare of a znode: its data and
// version.
type znodeAt struct {
	data    string
	version int32
}

// tree returns every znode under the cluster's root by path relative to
// it, read after a sync.
func (c *cluster) tree() map[string]znodeAt {
	c.t.Helper()
	if _, err := c.admin.Sync(c.root); err != nil {
		c.t.Fatal(err)
	}
	out := map[string]znodeAt{}
	var walk func(rel string)
	walk = func(rel string) {
		data, st := c.get(rel)
		out[rel] = znodeAt{data: string(data), version: st.Version}
		names, _, err := c.admin.Children(c.root + rel)
		if err != nil {
			c.t.Fatal(err)
		}
		for _, n := range names {
			walk(rel + "/" + n)
		}
	}
	walk("")
	return out
}

// sameTree fails unless after holds what before holds, byte for byte and
// at the same versions, but for the paths in ignore.
func (c *cluster) sameTree(what string, before, after map[string]znodeAt, ignore ...string) {
	c.t.Helper()
	skip := map[string]bool{}
	for _, p := range ignore {
		skip[p] = true
	}
	var diffs []string
	for p, b := range before {
		if a, ok := after[p]; !skip[p] && (!ok || a != b) {
			diffs = append(diffs, fmt.Sprintf("%s: %q at version %d, now %q at version %d (present %v)", p, b.data, b.version, a.data, a.version, ok))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, p+": new")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		c.t.Fatalf("%s: %d znodes differ:\n\t%s", what, len(diffs), strings.Join(diffs, "\n\t"))
	}
}

// sync syncs img through m as a new delta and returns the error.
func (m *mirror) sync(img dualwrite.Image) error {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := m.s
	s.KRaftMetadataOffset++
	s, _, err := m.c.Sync(ctx, s, img)
	if err == nil {
		m.s = s
	}
	return err
}

// wantRedactedRefused fails unless err is a *dualwrite.SecretError for
// broker 1's redacted password, the first secret of the plan.
func wantRedactedRefused(t *testing.T, err error) {
	t.Helper()
	var se *dualwrite.SecretError
	if !errors.As(err, &se) || !se.Redacted || !errors.Is(err, migrationzk.ErrInvalidArgument) ||
		se.Entity != "brokers/1" || se.Key != "listener.name.internal.ssl.key.password" {
		t.Fatalf("Sync of a redacted export: %v, want a *dualwrite.SecretError for broker 1's password", err)
	}
}

// TestRedactedExportIsNeverSynced exports a cluster holding a broker's
// encoded password config and a SCRAM credential, with the secret and
// without, reads each export back, and checks that Sync refuses it,
// through a new controller with the secret and one without, in the
// export's form and in version 2's (an archived export): every znode is
// unchanged.
// Fault: none; a plain-text password the secret does not decode, a config
// znode that is not JSON.
func TestRedactedExportIsNeverSynced(t *testing.T) {
	c, _, enc := seedPasswordCluster(t)
	withSecret := []string{passwordSecretEnv + "=" + cliEncoderSecret}
	epoch := int32(7)
	for _, env := range [][]string{withSecret, nil} {
		r := runBinary(t, env, "--zk", c.srv.Addr(), "--root", c.root, "export")
		wantCode(t, r, exitOK)
		const head = "\"schema_version\": 3,\n  \"redacted\": true,\n  \"passwords\": null,"
		if !strings.Contains(r.stdout, head) {
			t.Fatalf("export does not say it is redacted:\n%s", r.stdout)
		}
		archived := strings.Replace(r.stdout, head, "\"schema_version\": 2,", 1)
		for _, doc := range []string{r.stdout, archived} {
			img := readExport(t, doc)
			for _, opts := range [][]dualwrite.Option{{dualwrite.WithPasswordEncoder(enc)}, nil} {
				epoch++
				restorer := c.takeOver(3001, epoch, opts...)
				before := c.tree()
				wantRedactedRefused(t, restorer.sync(img))
				c.sameTree("after a Sync of a redacted export", before, c.tree())
			}
		}
	}
}

// TestExportWithSecretsRestores exports a cluster holding a broker's
// encoded password config and a SCRAM credential with --include-secrets,
// with the secret (plain password values) and without (as ZooKeeper
// stores them), and checks that the file has mode 0600, that stderr warns,
// that a Sync through a Client of the other form is refused, and that a
// Sync through a new controller of the matching form leaves every znode
// but /controller, /controller_epoch and /migration unchanged, byte for
// byte.
// Fault: none; a plain-text password the secret does not decode, a config
// znode that is not JSON.
func TestExportWithSecretsRestores(t *testing.T) {
	c, _, enc := seedPasswordCluster(t)
	dir := t.TempDir()
	withEncoder := []dualwrite.Option{dualwrite.WithPasswordEncoder(enc)}
	for i, tc := range []struct {
		env         []string
		form        dualwrite.SecretForm
		right       []dualwrite.Option
		wrong       []dualwrite.Option
		undecodable int
	}{
		{[]string{passwordSecretEnv + "=" + cliEncoderSecret}, dualwrite.SecretsPlain, withEncoder, nil, 2},
		{nil, dualwrite.SecretsEncoded, nil, withEncoder, 1},
	} {
		file := filepath.Join(dir, fmt.Sprintf("backup-%d.json", i))
		r := runBinary(t, tc.env, "--zk", c.srv.Addr(), "--root", c.root, "export", "--include-secrets", "--output", file)
		wantCode(t, r, exitOK)
		wantStderr(t, r, "warning: "+file+" holds password configs", "--include-secrets")
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("file mode: %v %v", fi, err)
		}
		img, err := readImageFile(file)
		if err != nil || img.Secrets != tc.form || len(img.Undecodable) != tc.undecodable ||
			!img.Scram["alice"][znode.ScramSHA512].Equal(cliScram()) {
			t.Fatalf("backup %s: %v, %q, %+v", file, err, img.Secrets, img)
		}

		before := c.tree()
		err = c.takeOver(3001, int32(10+2*i), tc.wrong...).sync(img)
		if !errors.Is(err, migrationzk.ErrInvalidArgument) || !strings.Contains(err.Error(), "WithPasswordEncoder") {
			t.Fatalf("Sync of a %s backup through a Client of the other form: %v", tc.form, err)
		}
		c.sameTree("after a Sync through a Client of the other form", before, c.tree(), "/controller", "/controller_epoch", "/migration")
		if err := c.takeOver(3002, int32(11+2*i), tc.right...).sync(img); err != nil {
			t.Fatalf("Sync of a %s backup: %v", tc.form, err)
		}
		c.sameTree("after the restore", before, c.tree(), "/controller", "/controller_epoch", "/migration")
	}
}
