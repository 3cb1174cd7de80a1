package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

const (
	// saslPassword is the broker's SASL DIGEST-MD5 password.
	saslPassword = "k4fka-Pa55-sasl"
	// wrongSASLPassword is a wrong one.
	wrongSASLPassword = "wr0ng-Pa55-sasl"
)

// kafkaJAAS is a broker's JAAS file as Kafka's documentation shows one,
// used unchanged, with DIGEST-MD5 as kafka with password for ZooKeeper.
func kafkaJAAS(password string) string { return securitytest.DigestJAAS("kafka", password) }

// tempFile writes content to a new file named name.
func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), name, content)
}

// saslCluster starts a server that enforces SASL and lays out a
// rolled-back cluster as Kafka with zookeeper.set.acl=true creates it
// under SASL: every znode owned by sasl:kafka, readable by anyone where
// Kafka allows it.
func saslCluster(t *testing.T, opts ...zktest.Option) *cluster {
	t.Helper()
	srv := zktest.Start(t, append([]zktest.Option{zktest.WithSASLDigestUser("kafka", saslPassword), zktest.WithSASLEnforced()}, opts...)...)
	return kafkaSecureCluster(t, srv, srv.Connect(t), "/kafka", uniform("orders", 3, 50), uniform("logs", 2, 12))
}

// runSASL runs the command against c with extra flags first.
func (c *cluster) runSASL(env []string, flags []string, args ...string) result {
	c.t.Helper()
	base := []string{"--zk", strings.Join(c.srv.Servers, ",") + c.root, "--timeout", "30s"}
	return runBinary(c.t, env, append(append(base, flags...), args...)...)
}

// TestSASLCommands runs status, rollback-check, rollback-fix --apply --yes
// and export on a cluster whose ZooKeeper enforces SASL, with a Kafka
// JAAS file used unchanged: given with --zk-jaas-config, and as
// java.security.auth.login.config in the --zk-tls-config-file properties.
// Situation: a SASL-only cluster with Kafka's secure ACLs; the fix must
// keep every znode's ACL.
func TestSASLCommands(t *testing.T) {
	jaas := tempFile(t, "kafka_server_jaas.conf", kafkaJAAS(saslPassword))
	props := tempFile(t, "zk.properties", "java.security.auth.login.config="+jaas+"\nzookeeper.sasl.client=true\n")
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"jaas-flag", []string{"--zk-jaas-config", jaas}},
		{"properties", []string{"--zk-tls-config-file", props}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := saslCluster(t)
			run := func(args ...string) result { return c.runSASL(nil, tc.flags, args...) }
			r := run("status")
			wantCode(t, r, exitOK)
			wantOutput(t, r, "ZooKeeper-mode broker 1 (version 0, ephemeral)", "43 (version 43)")
			r = run("rollback-check")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, "AT RISK: 3 partitions are stamped with a controller epoch above 43.",
				"`migrationzk --zk "+c.srv.Addr()+c.root+" "+strings.Join(tc.flags, " ")+" rollback-fix`")
			r = run("export")
			wantCode(t, r, exitOK)
			if img := readExport(t, r.stdout); len(img.Topics) != 2 {
				t.Fatalf("export: %d topics; want 2", len(img.Topics))
			}
			before := c.acls(aclPaths()...)
			r = run("rollback-fix", "--apply", "--yes")
			wantCode(t, r, exitOK)
			wantOutput(t, r, "Applied.", "Verdict: safe.")
			c.unchanged(znode.ControllerEpochPath, []byte("50"), 44)
			if after := c.acls(aclPaths()...); !reflect.DeepEqual(before, after) {
				t.Fatalf("ACLs changed:\nbefore %v\nafter  %v", before, after)
			}
			if acl := before[znode.ControllerEpochPath]; len(acl) != 2 || acl[0] != (zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: "kafka"}) {
				t.Fatalf("the cluster lacks Kafka's ACLs: %v", acl)
			}
		})
	}
}

// TestSASLBadInputs runs rollback-fix --apply --yes with SASL settings
// that cannot work. Each must exit 2 at once with a message naming the
// cause, and write nothing.
// Faults: a wrong password; no SASL where the server enforces it; a JAAS
// file without a Client section, with an unsupported login module, with
// a misspelt option; a section named by zookeeper.sasl.clientconfig that
// is missing; a JAAS file that does not exist.
func TestSASLBadInputs(t *testing.T) {
	c := saslCluster(t)
	ctl, ctlStat := c.get(znode.ControllerPath)
	noClient := tempFile(t, "broker.conf", "KafkaServer {\n org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";\n};\n")
	section := tempFile(t, "section.properties", "java.security.auth.login.config="+tempFile(t, "j.conf", kafkaJAAS(saslPassword))+"\nzookeeper.sasl.clientconfig=ZkClient\n")
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"wrong-password", []string{"--zk-jaas-config", tempFile(t, "wrong.conf", kafkaJAAS(wrongSASLPassword))},
			"SASL DIGEST-MD5 authentication with " + c.srv.Addr() + " failed: the server rejected the credentials"},
		{"no-sasl", nil, "bad credentials: the server requires authentication (enforce.auth.enabled) by a scheme this client did not use, such as SASL: give a Kafka JAAS file for SASL (--zk-jaas-config)"},
		{"no-client-section", []string{"--zk-jaas-config", noClient}, `--zk-jaas-config: sasl: JAAS file ` + noClient + `: no section "Client" (sections: KafkaServer)`},
		{"unsupported-module", []string{"--zk-jaas-config", tempFile(t, "plain.conf", "Client { org.apache.kafka.common.security.plain.PlainLoginModule required; };")},
			"login module org.apache.kafka.common.security.plain.PlainLoginModule is not supported"},
		{"misspelt-option", []string{"--zk-jaas-config", tempFile(t, "typo.conf", "Client { org.apache.zookeeper.server.auth.DigestLoginModule required username=\"kafka\" pasword=\""+saslPassword+"\"; };")},
			"unsupported options pasword"},
		{"missing-section", []string{"--zk-tls-config-file", section}, `no section "ZkClient"`},
		{"missing-file", []string{"--zk-jaas-config", "/nonexistent/jaas.conf"}, "--zk-jaas-config: sasl: JAAS file /nonexistent/jaas.conf: open /nonexistent/jaas.conf: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := c.runSASL(nil, tc.flags, "rollback-fix", "--apply", "--yes")
			wantBadInput(t, r, tc.want, start)
			c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
			c.unchanged(znode.ControllerPath, ctl, ctlStat.Version)
			if strings.Contains(r.stdout+r.stderr, saslPassword) || strings.Contains(r.stdout+r.stderr, wrongSASLPassword) {
				t.Fatalf("output shows a password: %s", r)
			}
		})
	}
	t.Run("wrong-password-json", func(t *testing.T) {
		r := c.runSASL(nil, []string{"--output", "json", "--zk-jaas-config", tempFile(t, "wrong.conf", kafkaJAAS(wrongSASLPassword))}, "status")
		wantCode(t, r, exitError)
		var out errorReport
		r.decode(t, &out)
		if out.Kind != kindCredentials || !strings.Contains(out.Error, "SASL DIGEST-MD5 authentication") {
			t.Fatalf("json: %+v", out)
		}
	})
}
