package krb5kdc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// startKDC starts a realm for t, skipping t without an MIT KDC unless
// ZKWRITER_REQUIRE_ZK=1.
func startKDC(t *testing.T, cfg Config) *KDC {
	t.Helper()
	inst, err := FindInstall()
	if errors.Is(err, ErrNoInstall) && os.Getenv("ZKWRITER_REQUIRE_ZK") != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k, err := Start(ctx, inst, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := k.Stop(); err != nil {
			t.Error(err)
		}
	})
	return k
}

// A principal's keytab gets a ticket from the KDC; a stopped KDC refuses
// connections and serves the same realm again after Restart.
func TestKDCServesKeytabsAndRestarts(t *testing.T) {
	k := startKDC(t, Config{})
	ctx := context.Background()
	if err := k.AddPrincipal(ctx, Principal{Name: "kafka"}); err != nil {
		t.Fatal(err)
	}
	kt := filepath.Join(k.Dir(), "kafka.keytab")
	if err := k.WriteKeytab(ctx, kt, "kafka"); err != nil {
		t.Fatal(err)
	}
	cc := filepath.Join(k.Dir(), "cc")
	if err := k.Kinit(ctx, "kafka", kt, cc, 0); err != nil {
		t.Fatal(err)
	}
	if err := k.Stop(); err != nil {
		t.Fatal(err)
	}
	if k.Running() {
		t.Fatal("running after Stop")
	}
	if err := k.Kinit(ctx, "kafka", kt, cc, 0); err == nil {
		t.Fatal("kinit succeeded against a stopped KDC")
	}
	if err := k.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := k.Kinit(ctx, "kafka", kt, cc, 0); err != nil {
		t.Fatal(err)
	}
	if err := k.AddPrincipal(ctx, Principal{Name: "kafka"}); err == nil {
		t.Fatal("adding a principal twice succeeded")
	}
}
