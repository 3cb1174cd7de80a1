package main

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// encoderSecret is the password.encoder.secret the tests encode password
// configs with.
const encoderSecret = "kraft-sync-secret"

// syncJSON runs kraft sync on c with env and args, wants code, and
// decodes its report.
func syncJSON(t *testing.T, c *cluster, env []string, code int, args ...string) kraftSyncReport {
	t.Helper()
	r := c.runEnv(env, append([]string{"--output", "json", "kraft", "sync"}, args...)...)
	var rep kraftSyncReport
	r.decode(t, &rep)
	if r.code != code {
		t.Fatalf("kraft sync %v: want exit %d, got %s", args, code, r)
	}
	return rep
}

// diffJSON runs kraft diff on c with env and args, wants code, and
// decodes its report.
func diffJSON(t *testing.T, c *cluster, env []string, code int, args ...string) kraftDiffReport {
	t.Helper()
	r := c.runEnv(env, append([]string{"--output", "json", "kraft", "diff"}, args...)...)
	var rep kraftDiffReport
	r.decode(t, &rep)
	if r.code != code {
		t.Fatalf("kraft diff %v: want exit %d, got %s", args, code, r)
	}
	return rep
}

// TestKRaftSyncScenarios syncs each scenario of the fixtures that ends
// in dual-write into an empty cluster, with --apply --yes: then kraft
// diff finds nothing (exit 0), /migration holds the replayed offset and
// epoch under the claim's identity, /controller is gone, /controller_epoch
// is at least the claim's epoch, and rollback-check reports safe. The
// scenario whose migration is not committed (open-transaction) is
// refused and nothing is written. migration-basic holds a broker
// password config: synced with the password encoder, ZooKeeper holds it
// encoded, and kraft diff compares it. kraft export of one is equal to
// export of the synced tree, as diff compares them. large (100,000
// partitions) runs unless -short.
// Fault: none (and the refused scenario: PRE_MIGRATION).
func TestKRaftSyncScenarios(t *testing.T) {
	srv := zktest.Start(t)
	secret := []string{passwordSecretEnv + "=" + encoderSecret}
	for _, tc := range []struct {
		name   string
		env    []string
		offset int64
		epoch  int32
		leader int32
	}{
		{"migration-basic", secret, 312, 3, 3002},
		{"aborted-migration", nil, 191, 2, 3001},
		{"old-metadata-version", nil, 105, 2, 3002},
		{"large", nil, 102054, 2, 3001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "large" && testing.Short() {
				t.Skip("100,000 partitions: skipped with -short")
			}
			dir := scenario(t, tc.name)
			c := kraftCluster(t, srv, tc.name)
			rep := syncJSON(t, c, tc.env, exitOK, dir, "--cluster-id", testClusterID, "--apply", "--yes")
			if rep.Outcome != outcomeApplied || rep.Claim == nil || rep.Claim.ControllerID != tc.leader || rep.Claim.KRaftEpoch != tc.epoch+1 ||
				rep.After == nil || rep.After.Verdict != verdictSafe || len(rep.Changes) == 0 {
				t.Fatalf("sync: %+v", rep)
			}
			data, _ := c.get(znode.MigrationPath)
			m, err := znode.DecodeMigration(data)
			if err != nil || m.KRaftMetadataOffset != tc.offset || m.KRaftMetadataEpoch != tc.epoch ||
				m.KRaftControllerEpoch != rep.Claim.KRaftEpoch || m.KRaftControllerID != rep.Claim.ControllerID {
				t.Fatalf("/migration %+v, %v; claim %+v", m, err, rep.Claim)
			}
			if c.exists(znode.ControllerPath) {
				t.Fatal("/controller is left after the sync")
			}
			if e, _ := c.get(znode.ControllerEpochPath); string(e) != string(znode.EncodeControllerEpoch(rep.Claim.ControllerEpoch)) || rep.Claim.ControllerEpoch < rep.Claim.KRaftEpoch {
				t.Fatalf("/controller_epoch %s, claim %+v", e, rep.Claim)
			}
			d := diffJSON(t, c, tc.env, exitOK, dir)
			if d.Divergence.Kind != divergenceEqual || d.After.Kind != afterCurrent || d.At != tc.offset || len(d.Divergence.NotCompared) != 0 {
				t.Fatalf("diff after the sync: %+v", d)
			}
			wantCode(t, c.run("rollback-check"), exitOK)
			if again := syncJSON(t, c, tc.env, exitOK, dir, "--cluster-id", testClusterID); again.Outcome != outcomeNothingToDo {
				t.Fatalf("second sync: %+v", again)
			}
		})
	}
	t.Run("open-transaction", func(t *testing.T) {
		c := kraftCluster(t, srv, "open-transaction")
		before := c.tree()
		rep := syncJSON(t, c, nil, exitError, scenario(t, "open-transaction"), "--cluster-id", testClusterID, "--apply", "--yes")
		if rep.Outcome != outcomeRefused || len(rep.Refusals) != 1 || rep.Refusals[0].Kind != refuseMigrationState ||
			!strings.Contains(rep.Refusals[0].Text, "PRE_MIGRATION") || rep.Image.OpenTransaction == nil {
			t.Fatalf("open transaction: %+v", rep)
		}
		c.sameTree("a refused sync", before, c.tree())
	})
}

// TestKRaftSyncPasswords: migration-basic's broker password config is
// written encoded with the encoder given, which decodes it to KRaft's
// plain value; kraft diff without the encoder marks it not compared, and
// with it compares it and finds a value changed behind the tool's back.
// export of the synced tree and kraft export of the metadata, both
// redacted, are equal to diff.
// Fault: a password config rewritten behind the tool's back.
func TestKRaftSyncPasswords(t *testing.T) {
	srv := zktest.Start(t)
	dir := scenario(t, "migration-basic")
	c := kraftCluster(t, srv, "passwords")
	env := []string{passwordSecretEnv + "=" + encoderSecret}
	syncJSON(t, c, env, exitOK, dir, "--cluster-id", testClusterID, "--apply", "--yes")
	path := znode.BrokerConfigEntity("1").Path()
	data, _ := c.get(path)
	cfg, err := znode.DecodeConfig(data)
	enc, _ := passwordencoder.New(encoderSecret)
	const key = "listener.name.internal.ssl.key.password"
	if err != nil {
		t.Fatal(err)
	}
	plain, err := enc.Decode(cfg[key])
	if err != nil || plain == "" || strings.Contains(string(data), plain) {
		t.Fatalf("%s holds %s not encoded with the secret given: %q, %v", path, key, data, err)
	}
	d := diffJSON(t, c, nil, exitOK, dir)
	if len(d.Divergence.NotCompared) != 1 || d.Divergence.NotCompared[0].Entity != "brokers/1" || d.Divergence.NotCompared[0].Key != key {
		t.Fatalf("without the encoder: %+v", d.Divergence)
	}
	wantCode(t, c.runEnv(env, "kraft", "diff", dir), exitOK)

	other, _ := enc.Encode("not-what-kraft-holds")
	cfg[key] = other
	if _, err := c.admin.Set(c.root+path, cfg.Encode(), -1); err != nil {
		t.Fatal(err)
	}
	d = diffJSON(t, c, env, exitProblem, dir)
	if len(d.Divergence.Changes) != 1 || d.Divergence.Changes[0].Subject != "brokers/1" || strings.Contains(c.runEnv(env, "kraft", "diff", dir).stdout, "not-what") {
		t.Fatalf("a password changed: %+v", d.Divergence)
	}
	wantCode(t, c.runEnv(nil, "kraft", "diff", dir), exitOK)

	files := t.TempDir()
	wantCode(t, c.runEnv(nil, "kraft", "export", dir, "--output", filepath.Join(files, "kraft.json")), exitOK)
	wantCode(t, c.run("diff", filepath.Join(files, "kraft.json"), "live"), exitOK)

	backup := filepath.Join(files, "backup.json")
	r := c.runEnv(nil, "kraft", "export", dir, "--include-secrets", "--output", backup)
	wantCode(t, r, exitOK)
	fi, err := os.Stat(backup)
	data, _ = os.ReadFile(backup)
	img := readExport(t, string(data))
	if err != nil || fi.Mode().Perm() != 0o600 || img.Secrets != dualwrite.SecretsPlain || img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}][key] != plain ||
		!strings.Contains(r.stderr, "warning: "+backup+" holds password configs (in plain text, as KRaft holds them)") {
		t.Fatalf("kraft export --include-secrets: %v, %v, %s", fi, err, r)
	}
}

// cutLog truncates the last segment of the log directory dir after its
// first n batches, as the log of a follower that lags ends.
func cutLog(t *testing.T, dir string, n int) {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, kraftmeta.MetadataPartitionDir, "*.log"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segment in %s: %v", dir, err)
	}
	seg := segs[len(segs)-1]
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	pos := 0
	for i := 0; i < n; i++ {
		pos += int(binary.BigEndian.Uint32(data[pos+8:])) + 12
	}
	if err := os.WriteFile(seg, data[:pos], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKRaftSyncVoters gives kraft sync three voters' directories of
// aborted-migration: one whole, one that lags (cut after 25 of its 31
// batches), one that stopped in epoch 1 and then appended NoOps no later
// leader kept, so that its log runs beyond the whole one's. It syncs the
// whole one's image, which a Raft election would choose (the highest
// last epoch, then the highest end offset), and says how each other
// differs; kraft diff of the chosen one then finds nothing.
// Fault: a lagging voter; a voter with an uncommitted tail in an older
// epoch.
func TestKRaftSyncVoters(t *testing.T) {
	srv := zktest.Start(t)
	whole, lagging, stale := copyScenario(t, "aborted-migration"), copyScenario(t, "aborted-migration"), copyScenario(t, "aborted-migration")
	cutLog(t, lagging, 25)
	cutLog(t, stale, 15)
	d, err := kraftmeta.Inspect(context.Background(), stale)
	if err != nil || d.LastEpoch != 1 {
		t.Fatalf("the stale voter: %+v, %v", d, err)
	}
	s := &kraftlog.SegmentWriter{Next: d.LogEndOffset, Epoch: 1, Timestamp: 1732093300000}
	for i := 0; i < 100; i++ {
		if err := s.Batch(&kraftlog.NoOpRecord{}); err != nil {
			t.Fatal(err)
		}
	}
	appendToLog(t, stale, s)
	c := kraftCluster(t, srv, "voters")
	rep := syncJSON(t, c, nil, exitOK, stale, lagging, whole, "--cluster-id", testClusterID, "--apply", "--yes")
	v := rep.Voters
	if rep.Metadata != whole || len(v) != 3 || !v[0].Chosen || v[0].Path != whole || v[0].LogEndOffset != 192 ||
		v[1].Path != lagging || !strings.Contains(v[1].Text, "before the chosen one's") || v[1].Changes == 0 ||
		v[2].Path != stale || v[2].LogEndOffset != d.LogEndOffset+100 || !strings.Contains(v[2].Text, "beyond the chosen one's, but ends in epoch 1, below 2") {
		t.Fatalf("voters: %+v", v)
	}
	diffJSON(t, c, nil, exitOK, whole)
}
