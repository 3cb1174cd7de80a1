package main

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestFlags checks flag handling and exit codes without a cluster: help,
// unknown commands, bad flag values, a malformed chroot, digest
// credentials given twice (a file and $MIGRATIONZK_DIGEST, set for every
// case), and an unreachable ZooKeeper.
// Fault: ZooKeeper unreachable (nothing listens on the port).
func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no-command", nil, exitError, "Run 'migrationzk --help' for usage."},
		{"unknown-command", []string{"frobnicate"}, exitError, `unknown command "frobnicate"`},
		{"unknown-flag", []string{"status", "--bogus"}, exitError, "flag provided but not defined: -bogus"},
		{"bad-output", []string{"--output", "yaml", "status"}, exitError, `--output "yaml": want text or json`},
		{"bad-root", []string{"--root", "kafka", "status"}, exitError, `--root "kafka"`},
		{"bad-zk", []string{"--zk", "localhost:1:2", "status"}, exitError, `--zk "localhost:1:2": server "localhost:1:2": too many colons`},
		{"empty-zk", []string{"--zk", "", "status"}, exitError, "--zk is empty (an unset shell variable?)"},
		{"empty-zk-after-command", []string{"status", "--zk="}, exitError, "--zk is empty (an unset shell variable?)"},
		{"ipv6-without-brackets", []string{"--zk", "::1:37429/kafka", "status"}, exitError, "an IPv6 address needs brackets: [::1]:37429"},
		{"timeout-without-unit", []string{"--timeout", "5", "status"}, exitError, "did you mean 5s?"},
		{"writes-without-target", []string{"rollback-fix"}, exitError, "rollback-fix writes to ZooKeeper: name the servers with --zk or $ZK_SERVERS"},
		{"repair-without-target", []string{"repair-null-migration", "--apply", "--yes"}, exitError, "repair-null-migration writes to ZooKeeper: name the servers"},
		{"bad-chroot", []string{"--zk", "127.0.0.1:1/kafka/", "status"}, exitError, `--zk "127.0.0.1:1/kafka/": the chroot "/kafka/": a znode path must not end with a slash, as ZooKeeper's client refuses it: say /kafka`},
		{"digest-file-and-env", []string{"--zk-digest-file", "/dev/null", "status"}, exitError, "both --zk-digest-file and $MIGRATIONZK_DIGEST are set"},
		{"bad-timeout", []string{"--timeout", "0s", "status"}, exitError, "--timeout 0s: must be positive"},
		{"extra-args", []string{"status", "extra"}, exitError, "unexpected arguments: extra"},
		{"unreachable", []string{"--zk", "127.0.0.1:1", "--timeout", "500ms", "status"}, exitError, "cannot reach ZooKeeper at 127.0.0.1:1: connection refused"},
		{"unreachable-after-command", []string{"rollback-check", "--zk", "127.0.0.1:1", "--timeout", "500ms"}, exitError, "cannot reach ZooKeeper at 127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBinary(t, []string{digestEnv + "=" + "u:p"}, tc.args...)
			wantCode(t, r, tc.code)
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("stderr lacks %q:\n%s", tc.stderr, r)
			}
		})
	}

	for _, tc := range []struct {
		name, stdout string
		args         []string
	}{
		{"help", "Commands:", []string{"--help"}},
		{"help-command", "rollback-check", []string{"help"}},
		{"command-help", "-apply", []string{"rollback-fix", "--help"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBinary(t, nil, tc.args...)
			wantCode(t, r, exitOK)
			if !strings.Contains(r.stdout, tc.stdout) || r.stderr != "" {
				t.Fatalf("want the help on stdout (with %q), nothing on stderr:\n%s", tc.stdout, r)
			}
		})
	}

	t.Run("unreachable-json", func(t *testing.T) {
		r := runBinary(t, nil, "--zk", "127.0.0.1:1", "--timeout", "300ms", "--output", "json", "status")
		wantCode(t, r, exitError)
		var out struct {
			Schema  int    `json:"schema_version"`
			Command string `json:"command"`
			Error   string `json:"error"`
		}
		r.decode(t, &out)
		if out.Schema != 1 || out.Command != "status" || !strings.Contains(out.Error, "cannot reach ZooKeeper") {
			t.Fatalf("json error: %+v", out)
		}
	})
}

// TestStatus runs status against the layouts a migration goes through:
// dual-write under a KRaft controller, ZooKeeper mode, a rolled-back
// cluster, no controller, and /migration absent, null, empty or garbage.
// Fault: none; null, empty and garbage /migration data.
func TestStatus(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)

	t.Run("dual-write", func(t *testing.T) {
		c := newCluster(t, srv, admin, "dual")
		c.seedKafka(43, uniform("orders", 3, 7))
		c.kraftController(3000, 7)
		c.migration(checkpoint(1234, 3000, 7))

		r := c.run("status")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "Owner: kraft.", "KRaft controller 3000, KRaft epoch 7 (version 0, persistent)",
			"metadata offset 1234, metadata epoch 7, KRaft controller 3000, KRaft controller epoch 7",
			"43 (version 43)", "up to offset 1234")

		// Global flags after the command.
		r = runBinary(t, nil, "status", "--zk", srv.Addr(), "--root", c.root, "--output", "json")
		wantCode(t, r, exitOK)
		var out statusReport
		r.decode(t, &out)
		if out.Owner != ownerKRaft || out.Migration.State != stateOK || out.Migration.Version != 0 ||
			out.Migration.Checkpoint == nil || *out.Migration.Checkpoint != (checkpointView{1234, 3000, 7, 7}) ||
			out.Controller.Kind != kindKRaft || out.Controller.BrokerID != 3000 || out.Controller.KRaftControllerEpoch != 7 ||
			out.Controller.Ephemeral || out.ControllerEpoch.Value != 43 || out.ControllerEpoch.Version != 43 ||
			out.Migration.Modified == "" || len(out.Problems) != 0 || out.Schema != 1 {
			t.Fatalf("status json: %+v\n%s", out, r)
		}
	})

	// A KRaft controller that took over holds /controller while
	// /migration still names its predecessor, by id or by epoch: flagged.
	// A ZooKeeper-mode broker beside a KRaft checkpoint is not this
	// problem (the rolled-back case below).
	for _, tc := range []struct {
		name      string
		id, epoch int32
	}{{"other-controller", 3001, 8}, {"same-id-newer-epoch", 3000, 8}} {
		t.Run("identity-"+tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, "identity-"+tc.name)
			c.seedKafka(43, uniform("orders", 3, 7))
			c.kraftController(tc.id, tc.epoch)
			c.migration(checkpoint(1234, 3000, 7))
			r := c.run("status")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, fmt.Sprintf("Problem: %s/controller names KRaft controller %d (epoch %d), but %s/migration names KRaft controller 3000 (epoch 7)",
				c.root, tc.id, tc.epoch, c.root))
			r = c.run("--output", "json", "status")
			wantCode(t, r, exitProblem)
			var out statusReport
			r.decode(t, &out)
			if len(out.Problems) != 1 || !strings.Contains(out.Problems[0], "under its own identity") {
				t.Fatalf("problems %q", out.Problems)
			}
		})
	}

	t.Run("zookeeper-mode", func(t *testing.T) {
		c := newCluster(t, srv, admin, "zkmode")
		c.seedKafka(5, uniform("orders", 3, 5))
		c.zkController(1)
		r := c.run("--output", "json", "status")
		wantCode(t, r, exitOK)
		var out statusReport
		r.decode(t, &out)
		if out.Owner != ownerZooKeeper || out.Migration.State != stateAbsent || out.Migration.Version != -1 ||
			out.Controller.Kind != kindZooKeeper || !out.Controller.Ephemeral || out.Controller.KRaftControllerEpoch != -1 {
			t.Fatalf("status json: %+v", out)
		}
		r = c.run("status")
		wantOutput(t, r, "absent: no migration has started", "ZooKeeper-mode broker 1 (version 0, ephemeral)",
			"no KRaft controller has written a checkpoint")
	})

	t.Run("rolled-back", func(t *testing.T) {
		c := newCluster(t, srv, admin, "rolledback")
		c.seedKafka(44, uniform("orders", 3, 50))
		c.zkController(1)
		c.migration(checkpoint(1234, 3000, 50))
		r := c.run("status")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "Owner: zookeeper.", "Run rollback-check")
	})

	t.Run("no-controller", func(t *testing.T) {
		c := newCluster(t, srv, admin, "nocontroller")
		c.seedKafka(3)
		r := c.run("status")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "Owner: none.", "absent: no controller is elected")
	})

	for _, tc := range []struct {
		name  string
		data  []byte
		state string
		say   string
	}{
		{"null-migration", nil, stateNull, "null data: Kafka 3.9 cannot parse it and retries forever; repair-null-migration fixes it"},
		{"empty-migration", []byte{}, stateEmpty, "empty data"},
		{"garbage-migration", []byte(`{"version":1,"kraft_metadata_offset":"soon"}`), stateUndecodable, `undecodable: field "version": unknown version`},
		{"not-json-migration", []byte("\x00\x01binary"), stateUndecodable, "undecodable: invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, tc.name)
			c.seedKafka(43)
			c.kraftController(3000, 7)
			c.migration(tc.data)
			r := c.run("status")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, tc.say, "Problem: ")
			r = c.run("--output", "json", "status")
			wantCode(t, r, exitProblem)
			var out statusReport
			r.decode(t, &out)
			if out.Migration.State != tc.state || out.Migration.Checkpoint != nil || len(out.Problems) != 1 || out.Migration.Data != string(tc.data) {
				t.Fatalf("status json: %+v", out)
			}
			c.unchanged(znode.MigrationPath, tc.data, 0)
		})
	}

	t.Run("zk-servers-env", func(t *testing.T) {
		c := newCluster(t, srv, admin, "env")
		c.seedKafka(1)
		r := runBinary(t, []string{zktest.EnvServers + "=" + strings.Join(srv.Servers, ",")}, "--root", c.root, "status")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "ZooKeeper "+strings.Join(srv.Servers, ","))
	})
}

// TestRollbackCheck scans partition states and reports those a
// ZooKeeper-mode controller elected after a rollback would leave offline.
// Fault: none; garbage and null partition states, a wrong --root.
func TestRollbackCheck(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)

	t.Run("at-risk", func(t *testing.T) {
		c := newCluster(t, srv, admin, "atrisk")
		// The next ZooKeeper-mode controller gets 44: partitions stamped 50
		// by the KRaft controller are at risk, those stamped 44 or less not.
		c.seedKafka(43, uniform("orders", 3, 50), uniform("payments", 2, 44), topic{"legacy", []int32{40, 12}})
		c.kraftController(3000, 50)
		r := c.run("rollback-check")
		wantCode(t, r, exitProblem)
		wantOutput(t, r, "Scanned 3 topics and 7 partition states", "The next ZooKeeper-mode controller gets epoch 44.",
			"Highest controller epoch stamped on a partition: 50 (orders-0).",
			"AT RISK: 3 partitions are stamped with a controller epoch above 44.",
			"  orders-2  controller_epoch 50", "rollback-fix", "raise "+c.root+"/controller_epoch to 50")

		r = c.run("--output", "json", "rollback-check")
		wantCode(t, r, exitProblem)
		var out checkReport
		r.decode(t, &out)
		want := []stampedPartition{{"orders", 0, 50}, {"orders", 1, 50}, {"orders", 2, 50}}
		if out.NextControllerEpoch != 44 || out.ElectionEpoch != 44 || out.HighestStampedEpoch != 50 ||
			out.AtRiskCount != 3 || len(out.AtRisk) != 3 || out.Topics != 3 || out.Partitions != 7 ||
			out.Verdict != verdictAtRisk || !strings.Contains(out.Remedy, "rollback-fix") || out.UndecodableCount != 0 {
			t.Fatalf("json: %+v", out)
		}
		for i := range want {
			if out.AtRisk[i] != want[i] {
				t.Fatalf("at_risk[%d] = %+v, want %+v", i, out.AtRisk[i], want[i])
			}
		}
	})

	t.Run("sitting-zookeeper-controller", func(t *testing.T) {
		c := newCluster(t, srv, admin, "sitting")
		// A ZooKeeper-mode controller already elected runs under epoch 43
		// itself: a stamp of 44 is above it.
		c.seedKafka(43, uniform("orders", 2, 44), uniform("old", 1, 43))
		c.zkController(1)
		r := c.run("--output", "json", "rollback-check")
		wantCode(t, r, exitProblem)
		var out checkReport
		r.decode(t, &out)
		if out.ElectionEpoch != 43 || out.NextControllerEpoch != 44 || out.AtRiskCount != 2 {
			t.Fatalf("json: %+v", out)
		}
		r = c.run("rollback-check")
		wantOutput(t, r, "ZooKeeper-mode broker 1 is the controller, with epoch 43")
	})

	t.Run("safe", func(t *testing.T) {
		c := newCluster(t, srv, admin, "safe")
		c.seedKafka(43, uniform("orders", 4, 44), uniform("logs", 2, 3))
		r := c.run("rollback-check")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "Verdict: safe.")
		r = c.run("--output", "json", "rollback-check")
		var out checkReport
		r.decode(t, &out)
		if out.Verdict != verdictSafe || out.AtRiskCount != 0 || out.AtRisk == nil || out.Remedy != "" || out.HighestStampedEpoch != 44 {
			t.Fatalf("json: %+v", out)
		}
	})

	t.Run("undecodable-states", func(t *testing.T) {
		c := newCluster(t, srv, admin, "undecodable")
		c.seedKafka(43, uniform("orders", 2, 50))
		c.create("/brokers/topics/broken", nil, 0)
		c.create("/brokers/topics/broken/partitions", nil, 0)
		c.create("/brokers/topics/broken/partitions/0", nil, 0)
		c.create("/brokers/topics/broken/partitions/0/state", []byte("garbage"), 0)
		c.create("/brokers/topics/broken/partitions/1", nil, 0)
		c.create("/brokers/topics/broken/partitions/1/state", nil, 0)
		c.create("/brokers/topics/broken/partitions/2", nil, 0) // no state yet
		r := c.run("--output", "json", "rollback-check")
		wantCode(t, r, exitProblem)
		var out checkReport
		r.decode(t, &out)
		if out.UndecodableCount != 2 || out.AtRiskCount != 2 || out.PartitionsWithoutState != 1 ||
			out.Undecodable[0].Partition != "0" || out.Undecodable[0].Data != "garbage" ||
			!strings.Contains(out.Undecodable[1].Error, "null data") {
			t.Fatalf("json: %+v", out)
		}
		r = c.run("rollback-check")
		wantOutput(t, r, "2 partition states do not decode and were skipped", "/broken/partitions/0/state: invalid JSON")
	})

	t.Run("long-list", func(t *testing.T) {
		c := newCluster(t, srv, admin, "long")
		c.seedKafka(2, uniform("orders", 25, 9))
		r := c.run("rollback-check")
		wantCode(t, r, exitProblem)
		wantOutput(t, r, "  orders-19  controller_epoch 9\n  ... and 5 more (--output json lists them all)")
	})

	t.Run("wrong-root", func(t *testing.T) {
		c := newCluster(t, srv, admin, "empty")
		r := c.run("rollback-check")
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "is --root right?") {
			t.Fatalf("stderr: %s", r)
		}
	})

	t.Run("garbage-controller-epoch", func(t *testing.T) {
		c := newCluster(t, srv, admin, "badepoch")
		c.seedKafka(0, uniform("orders", 1, 9))
		if _, err := admin.Set(c.root+znode.ControllerEpochPath, []byte("forty"), -1); err != nil {
			t.Fatal(err)
		}
		r := c.run("rollback-check")
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "the next controller's epoch cannot be told") {
			t.Fatalf("stderr: %s", r)
		}
	})
}

// TestRollbackFix raises /controller_epoch above every stamp and forces an
// election: dry run, apply, a KRaft controller refused and forced, nothing
// to do, a stamp no epoch can exceed, and an undecodable /controller.
// Fault: none; a KRaft-held and an undecodable /controller.
func TestRollbackFix(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)

	rolledBack := func(t *testing.T, name string) *cluster {
		c := newCluster(t, srv, admin, name)
		c.seedKafka(43, uniform("orders", 3, 50), uniform("logs", 2, 12))
		c.zkController(1)
		c.migration(checkpoint(1234, 3000, 50))
		return c
	}

	t.Run("dry-run", func(t *testing.T) {
		c := rolledBack(t, "dryrun")
		ctl, ctlStat := c.get(znode.ControllerPath)
		r := c.run("rollback-fix")
		wantCode(t, r, exitProblem)
		wantOutput(t, r, "Plan:\n  1. set "+c.root+"/controller_epoch from 43 to 50, if still at version 43; the next controller then gets epoch 51",
			"  2. delete "+c.root+"/controller (ZooKeeper-mode broker 1), if still at version 0, to force a controller election",
			"Dry run: nothing was changed. Run again with --apply to act.")
		c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
		c.unchanged(znode.ControllerPath, ctl, ctlStat.Version)

		r = c.run("--output", "json", "rollback-fix")
		var out fixReport
		r.decode(t, &out)
		if !out.DryRun || out.Outcome != outcomePlanned || len(out.Actions) != 2 || out.Actions[0].Done ||
			*out.Actions[0].From != 43 || *out.Actions[0].To != 50 || out.Actions[1].Action != "delete" || out.After != nil {
			t.Fatalf("json: %+v", out)
		}
	})

	t.Run("apply", func(t *testing.T) {
		c := rolledBack(t, "apply")
		r := c.run("rollback-fix", "--apply", "--yes")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "  1. set "+c.root+"/controller_epoch from 43 to 50, if still at version 43; the next controller then gets epoch 51, above every stamp: done (ok, now version 44)",
			"to force a controller election: done (ok)", "Applied.", "After:", "The next ZooKeeper-mode controller gets epoch 51.", "Verdict: safe.")
		c.unchanged(znode.ControllerEpochPath, []byte("50"), 44)
		if c.exists(znode.ControllerPath) {
			t.Fatal("/controller still exists")
		}
		// Running it again finds nothing to do.
		r = c.run("--output", "json", "rollback-fix", "--apply")
		wantCode(t, r, exitOK)
		var out fixReport
		r.decode(t, &out)
		if out.Outcome != outcomeNothingToDo || len(out.Actions) != 0 || out.Before.NextControllerEpoch != 51 {
			t.Fatalf("json: %+v", out)
		}
	})

	t.Run("kraft-controller-refused", func(t *testing.T) {
		c := newCluster(t, srv, admin, "kraft")
		c.seedKafka(43, uniform("orders", 3, 50))
		c.kraftController(3000, 50)
		ctl, _ := c.get(znode.ControllerPath)
		for _, args := range [][]string{{"rollback-fix"}, {"rollback-fix", "--apply"}} {
			r := c.run(args...)
			wantCode(t, r, exitError)
			wantOutput(t, r, "Refused: KRaft controller 3000 (epoch 50) holds "+c.root+"/controller, so the migration is still driven by KRaft.",
				"pass --force", "Nothing was changed.")
			c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
			c.unchanged(znode.ControllerPath, ctl, 0)
		}
		r := c.run("--output", "json", "rollback-fix", "--apply")
		var out fixReport
		r.decode(t, &out)
		if out.Outcome != outcomeRefused || len(out.Actions) != 0 {
			t.Fatalf("json: %+v", out)
		}

		r = c.run("rollback-fix", "--apply", "--force", "--yes")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "delete "+c.root+"/controller (KRaft controller 3000 with epoch 50), if still at version 0", "Verdict: safe.")
		c.unchanged(znode.ControllerEpochPath, []byte("50"), 44)
		if c.exists(znode.ControllerPath) {
			t.Fatal("/controller still exists")
		}
	})

	t.Run("no-controller", func(t *testing.T) {
		c := newCluster(t, srv, admin, "nocontroller")
		c.seedKafka(43, uniform("orders", 1, 60))
		r := c.run("--output", "json", "rollback-fix", "--apply", "--yes")
		wantCode(t, r, exitOK)
		var out fixReport
		r.decode(t, &out)
		if out.Outcome != outcomeApplied || len(out.Actions) != 1 || !out.Actions[0].Done || out.After.NextControllerEpoch != 61 || out.After.AtRiskCount != 0 {
			t.Fatalf("json: %+v", out)
		}
	})

	t.Run("nothing-to-do", func(t *testing.T) {
		c := newCluster(t, srv, admin, "nothing")
		c.seedKafka(43, uniform("orders", 2, 44))
		c.zkController(2)
		// Broker 2 runs under 43 and nothing is stamped above 44: only
		// the next controller would be safe, so the sitting one is not.
		r := c.run("rollback-fix")
		wantCode(t, r, exitProblem)
		c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)

		c2 := newCluster(t, srv, admin, "nothing2")
		c2.seedKafka(43, uniform("orders", 2, 43))
		c2.zkController(2)
		r = c2.run("rollback-fix", "--apply")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "Nothing to fix: no partition is at risk.")
		c2.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
	})

	t.Run("largest-epoch", func(t *testing.T) {
		c := newCluster(t, srv, admin, "maxepoch")
		c.seedKafka(43, uniform("orders", 1, math.MaxInt32))
		r := c.run("rollback-fix", "--apply")
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "no controller epoch can exceed it; nothing was changed") {
			t.Fatalf("stderr: %s", r)
		}
		c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
	})

	t.Run("garbage-controller", func(t *testing.T) {
		c := newCluster(t, srv, admin, "badcontroller")
		c.seedKafka(43, uniform("orders", 1, 50))
		c.create(znode.ControllerPath, []byte(`{"version":1,"brokerid":"one"}`), 0)
		r := c.run("rollback-fix", "--apply", "--force")
		wantCode(t, r, exitError)
		if !strings.Contains(r.stderr, "cannot tell whether a KRaft controller holds it; nothing was changed") {
			t.Fatalf("stderr: %s", r)
		}
		c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
		c.unchanged(znode.ControllerPath, []byte(`{"version":1,"brokerid":"one"}`), 0)
	})
}

// TestRepairNullMigration replaces a null or empty /migration with the
// initial state, printing the write as it is made, and leaves everything
// else alone.
// Fault: none; null, empty and garbage /migration data.
func TestRepairNullMigration(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	initial := znode.InitialMigration().Encode()

	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"null", nil},
		{"empty", []byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, srv, admin, tc.name)
			c.seedKafka(43)
			c.migration(tc.data)
			r := c.run("repair-null-migration")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, "Dry run: "+c.root+"/migration holds "+tc.name+" data at version 0", string(initial), "Nothing was changed.")
			c.unchanged(znode.MigrationPath, tc.data, 0)

			r = c.run("--output", "json", "repair-null-migration", "--apply", "--yes")
			wantCode(t, r, exitOK)
			if want := fmt.Sprintf("write 1/1: set %s/migration at version 0 from %s data to %q\nwrite 1/1: ok, now version 1\n", c.root, tc.name, initial); !strings.Contains(r.stderr, want) {
				t.Fatalf("stderr lacks the write %q:\n%s", want, r)
			}
			var out repairReport
			r.decode(t, &out)
			if out.Outcome != outcomeApplied || out.Before.State != tc.name || out.After == nil || out.After.State != stateOK ||
				out.After.Version != 1 || *out.After.Checkpoint != (checkpointView{-1, -1, -1, -1}) {
				t.Fatalf("json: %+v\n%s", out, r)
			}
			c.unchanged(znode.MigrationPath, initial, 1)

			r = c.run("repair-null-migration", "--apply")
			wantCode(t, r, exitOK)
			wantOutput(t, r, "Nothing to repair: "+c.root+"/migration holds a valid checkpoint.")
			c.unchanged(znode.MigrationPath, initial, 1)
		})
	}

	t.Run("garbage", func(t *testing.T) {
		c := newCluster(t, srv, admin, "garbage")
		c.seedKafka(43)
		garbage := []byte(`{"version":1,"kraft_metadata_offset":99}`)
		c.migration(garbage)
		for _, args := range [][]string{{"repair-null-migration"}, {"repair-null-migration", "--apply"}} {
			r := c.run(args...)
			wantCode(t, r, exitError)
			wantOutput(t, r, "Refused: "+c.root+"/migration holds data that is not null and does not decode", "It is left alone")
			c.unchanged(znode.MigrationPath, garbage, 0)
		}
	})

	t.Run("absent", func(t *testing.T) {
		c := newCluster(t, srv, admin, "absent")
		c.seedKafka(43)
		r := c.run("repair-null-migration", "--apply")
		wantCode(t, r, exitOK)
		wantOutput(t, r, "Nothing to repair: "+c.root+"/migration does not exist")
		if c.exists(znode.MigrationPath) {
			t.Fatal("/migration was created")
		}
	})
}

// TestHelpAfterFlags checks the help: the true defaults whatever flags
// came before --help, and after a bad flag only the error and a line
// naming the help to read.
// Fault: global flags given before --help; an unknown flag after them.
func TestHelpAfterFlags(t *testing.T) {
	given := []string{"--zk", "10.0.0.1:2181", "--timeout", "3s", "--root", "/given"}
	for _, args := range [][]string{{"--help"}, {"status", "--help"}, {"export", "--help"}} {
		r := runBinary(t, nil, append(append([]string{}, given...), args...)...)
		wantCode(t, r, exitOK)
		for _, bad := range []string{"(default 3s)", "10.0.0.1", "/given", `(default "` + defaultServers + `")`} {
			if strings.Contains(r.stdout, bad) {
				t.Fatalf("%v: the help shows %q, a value given, as a default:\n%s", args, bad, r)
			}
		}
		if !strings.Contains(r.stdout, "(default 15s)") || strings.Count(r.stdout, defaultServers) != 1 {
			t.Fatalf("%v: want the true defaults, the servers' once:\n%s", args, r)
		}
	}
	for _, args := range [][]string{{"--bogus", "status"}, {"status", "--bogus"}, {"diff", "--bogus", "a", "b"}} {
		r := runBinary(t, nil, append(append([]string{}, given...), args...)...)
		wantCode(t, r, exitError)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "flag provided but not defined: -bogus") || !strings.Contains(lines[1], "--help' for usage.") || r.stdout != "" {
			t.Fatalf("%v: want the error and one line naming --help on stderr:\n%s", args, r)
		}
	}
}
