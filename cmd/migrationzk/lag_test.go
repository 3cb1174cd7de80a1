package main

import (
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/quorum/quorumtest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// lagJSON runs lag on c with args and decodes its json output.
func lagJSON(t *testing.T, c *cluster, code int, args ...string) lagReport {
	t.Helper()
	r := c.run(append([]string{"--output", "json", "lag"}, args...)...)
	wantCode(t, r, code)
	var out lagReport
	r.decode(t, &out)
	return out
}

// TestLag asks three controllers, of which the third leads, for the high
// watermark, after reading /migration: the true lag, the leader and each
// voter's log end offset; none without a checkpoint.
// Faults: two controllers that do not lead; /migration at offset -1 and
// absent.
func TestLag(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	stub := quorumtest.Start(t, "-leader-node", "2", "-hw", "150", "-leader-id", "3000", "-leader-epoch", "7")
	controllers := strings.Join(stub.Addrs, ",")

	c := newCluster(t, srv, admin, "lag")
	c.seedKafka(43)
	c.kraftController(3000, 7)
	c.migration(checkpoint(100, 3000, 7))
	r := c.run("lag", "--bootstrap-controller", controllers)
	wantCode(t, r, exitOK)
	wantOutput(t, r, "leader 3000, epoch 7, high watermark 150 (answered by "+stub.Addrs[2]+", DescribeQuorum v2)",
		"3000  log end offset 150", "3002  log end offset 148",
		"True lag: 49 records (high watermark 150 - 1 - checkpoint offset 100), NoOps included.")
	out := lagJSON(t, c, exitOK, "--bootstrap-controller", controllers)
	if out.Lag == nil || *out.Lag != 49 || out.Quorum.HighWatermark != 150 || out.Quorum.Asked != stub.Addrs[2] ||
		len(out.Quorum.Voters) != 3 || out.Quorum.Voters[1].LogEndOffset != 149 || out.Migration.Checkpoint.KRaftMetadataOffset != 100 {
		t.Fatalf("json: %+v", out)
	}
	// A KRaft-mode broker forwards the request.
	if out = lagJSON(t, c, exitOK, "--bootstrap-server", stub.Addrs[2]); out.Lag == nil || *out.Lag != 49 {
		t.Fatalf("through a broker: %+v", out)
	}

	loading := newCluster(t, srv, admin, "loading")
	loading.seedKafka(43)
	loading.kraftController(3000, 7)
	loading.migration(checkpoint(-1, 3000, 7))
	out = lagJSON(t, loading, exitOK, "--bootstrap-controller", controllers)
	if out.Lag != nil || !strings.Contains(out.Text, "offset -1, no checkpoint yet") {
		t.Fatalf("initial load: %+v", out)
	}
	absent := newCluster(t, srv, admin, "absent")
	absent.seedKafka(43)
	if out = lagJSON(t, absent, exitOK, "--bootstrap-controller", controllers); out.Lag != nil || !strings.Contains(out.Text, "is absent") {
		t.Fatalf("no /migration: %+v", out)
	}
	c.unchanged(znode.MigrationPath, checkpoint(100, 3000, 7), 0)
}

// TestLagErrors gives each failure its own message and error_kind, exit 2.
// Faults: a ZooKeeper-mode broker; no controller leading; DESCRIBE on
// CLUSTER denied; versions the client does not speak; nothing listening;
// bad flags.
func TestLagErrors(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "lagerrors")
	c.seedKafka(43)
	c.kraftController(3000, 7)
	c.migration(checkpoint(100, 3000, 7))
	for _, tc := range []struct {
		name      string
		stub      []string
		flag      string
		kind, say string
	}{
		{"zookeeper-mode-broker", []string{"-nodes", "1", "-mode", "zkbroker"}, "--bootstrap-server", kindZooKeeperBroker, "ask a controller (--bootstrap-controller)"},
		{"no-leader", []string{"-leader-node", "-1"}, "--bootstrap-controller", kindNoLeader, "each answered NOT_LEADER_OR_FOLLOWER"},
		{"not-authorized", []string{"-nodes", "1", "-mode", "deny"}, "--bootstrap-controller", kindClusterAuthz, "DESCRIBE on the CLUSTER resource"},
		{"unsupported-version", []string{"-nodes", "1", "-versions", "3-3"}, "--bootstrap-controller", kindUnsupportedVersion, "versions 3 to 3, this client versions 0 to 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stub := quorumtest.Start(t, tc.stub...)
			r := c.run("--output", "json", "lag", tc.flag, strings.Join(stub.Addrs, ","))
			wantCode(t, r, exitError)
			var out errorReport
			r.decode(t, &out)
			if out.Kind != tc.kind || !strings.Contains(out.Error, tc.say) || !strings.Contains(r.stderr, tc.say) {
				t.Fatalf("%+v\n%s", out, r)
			}
		})
	}
	r := c.run("--output", "json", "lag", "--bootstrap-controller", "127.0.0.1:1")
	wantCode(t, r, exitError)
	var out errorReport
	r.decode(t, &out)
	if out.Kind != kindKafkaUnreachable {
		t.Fatalf("nothing listening: %+v", out)
	}
	for _, args := range [][]string{{}, {"--bootstrap-controller", "a:1", "--bootstrap-server", "b:2"}, {"--bootstrap-server", "nohost"}} {
		r := c.run(append([]string{"lag"}, args...)...)
		wantCode(t, r, exitError)
	}
}

// TestLagSecured reaches the quorum with --command-config over TLS, and
// with SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 inside TLS; a wrong
// password is a kafka_authentication error that does not show it.
// Faults: a wrong SASL password; a client properties file with a
// misspelt key.
func TestLagSecured(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	c := newCluster(t, srv, admin, "lagsecured")
	c.seedKafka(43)
	c.kraftController(3000, 7)
	c.migration(checkpoint(120, 3000, 7))
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ca, err := zktest.NewCertAuthority("lag CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: "controller"}, Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	pem := write("server.pem", string(cert.PEM))
	caPEM := write("ca.pem", string(ca.CertPEM()))
	stub := quorumtest.Start(t, "-tls-cert", pem, "-tls-key", pem, "-plain", "alice:alice-secret",
		"-scram-sha-256", "bob:bob-secret", "-scram-sha-512", "carol:carol-secret")
	controllers := strings.Join(stub.Addrs, ",")
	trust := []string{"ssl.truststore.location=" + caPEM, "ssl.truststore.type=PEM"}
	jaas := func(module, user, pass string) string {
		return fmt.Sprintf(`sasl.jaas.config=org.apache.kafka.common.security.%s required username="%s" password="%s";`, module, user, pass)
	}
	for _, tc := range []struct{ name, mechanism, module, user string }{
		{"plain", "PLAIN", "plain.PlainLoginModule", "alice"},
		{"scram-sha-256", "SCRAM-SHA-256", "scram.ScramLoginModule", "bob"},
		{"scram-sha-512", "SCRAM-SHA-512", "scram.ScramLoginModule", "carol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := write(tc.name+".properties", append(trust, "security.protocol=SASL_SSL", "sasl.mechanism="+tc.mechanism,
				jaas(tc.module, tc.user, tc.user+"-secret"), "client.id=ops")...)
			r := c.run("lag", "--bootstrap-controller", controllers, "--command-config", good)
			wantCode(t, r, exitOK)
			wantOutput(t, r, "True lag: 29 records")
			if !strings.Contains(r.stderr, "ignored, as they do not concern the connection: client.id") {
				t.Fatalf("ignored keys not listed:\n%s", r)
			}
			bad := write(tc.name+"-bad.properties", append(trust, "security.protocol=SASL_SSL", "sasl.mechanism="+tc.mechanism,
				jaas(tc.module, tc.user, "not-the-password"))...)
			r = c.run("--output", "json", "lag", "--bootstrap-controller", controllers, "--command-config", bad)
			wantCode(t, r, exitError)
			var out errorReport
			r.decode(t, &out)
			if out.Kind != kindKafkaAuth || strings.Contains(r.stdout+r.stderr, "not-the-password") {
				t.Fatalf("wrong password: %s", r)
			}
		})
	}
	misspelt := write("misspelt.properties", "security.protocol=SSL", "ssl.truststore.locaton="+caPEM)
	r := c.run("--output", "json", "lag", "--bootstrap-controller", controllers, "--command-config", misspelt)
	wantCode(t, r, exitError)
	var out errorReport
	r.decode(t, &out)
	if out.Kind != kindKafkaConfig || !strings.Contains(out.Error, "ssl.truststore.locaton: unknown property") {
		t.Fatalf("misspelt key: %+v", out)
	}
}
