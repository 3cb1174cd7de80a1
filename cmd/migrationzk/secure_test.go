package main

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Identities of the secured test server.
const (
	// kafkaDN is the subject of the certificate Kafka's brokers present: it
	// creates the znodes, so Kafka's ACLs grant it everything.
	kafkaDN = "CN=kafka,OU=brokers,O=Acme"
	// adminDN is the x509 super user.
	adminDN = "CN=admin,O=Acme"
	// operatorDN has a certificate the server trusts and no grant on any
	// znode.
	operatorDN = "CN=operator,O=Acme"

	superUser     = "super"
	superPassword = "sup3r-Pa55-digest"
	// keystorePassword protects the PKCS12 keystores.
	keystorePassword = "k3ystore-Pa55"
	// wrongPassword is a wrong digest password for superUser.
	wrongPassword = "wr0ng-Pa55-digest"
)

// secured is a ZooKeeper that serves TLS only, requires client
// certificates, refuses requests before authentication (digest or x509),
// and has an x509 and a digest super user; and the properties files that
// reach it.
type secured struct {
	srv *zktest.Server
	// admin is a client with Kafka's certificate, connected by the first
	// kafkaCluster.
	admin *zk.Conn
	kafka *zktest.Certificate
	// t is the test that started the server: admin is closed when it ends.
	t   *testing.T
	dir string
	// files are TLS properties files by name: kafka (Kafka's PEM
	// certificate), admin (the x509 super user, PKCS12 with a password),
	// operator (a certificate without grants), no-keystore, wrong-ca,
	// unknown-key, malformed-keystore.
	files map[string]string
}

// startSecured starts a secured server and writes its properties files.
func startSecured(t *testing.T, opts ...zktest.Option) *secured {
	t.Helper()
	opts = append([]zktest.Option{zktest.WithClientAuth(zktest.ClientAuthNeed), zktest.WithX509SuperUser(adminDN),
		zktest.WithDigestSuperUser(superUser, superPassword), zktest.WithAuthEnforced("digest", "x509")}, opts...)
	s := &secured{srv: zktest.Start(t, opts...), t: t, dir: t.TempDir(), files: map[string]string{}}
	ca := s.srv.CA()
	kafka := s.issue(t, pkix.Name{CommonName: "kafka", OrganizationalUnit: []string{"brokers"}, Organization: []string{"Acme"}}, kafkaDN)
	admin := s.issue(t, pkix.Name{CommonName: "admin", Organization: []string{"Acme"}}, adminDN)
	operator := s.issue(t, pkix.Name{CommonName: "operator", Organization: []string{"Acme"}}, operatorDN)
	s.kafka = kafka

	trust := s.write(t, "ca.pem", ca.CertPEM())
	other, err := zktest.NewCertAuthority("another CA")
	if err != nil {
		t.Fatal(err)
	}
	p12, err := pkcs12.Modern2023.Encode(admin.TLS.PrivateKey, admin.TLS.Leaf, []*x509.Certificate{ca.Certificate()}, keystorePassword)
	if err != nil {
		t.Fatal(err)
	}
	kafkaPEM, adminP12 := s.write(t, "kafka.pem", kafka.PEM), s.write(t, "admin.p12", p12)
	s.files["kafka"] = s.properties(t, "kafka", trust, kafkaPEM)
	s.files["admin"] = s.properties(t, "admin", trust, adminP12,
		"zookeeper.ssl.keystore.password="+keystorePassword, "zookeeper.ssl.keystore.type=PKCS12")
	s.files["operator"] = s.properties(t, "operator", trust, s.write(t, "operator.pem", operator.PEM))
	s.files["no-keystore"] = s.properties(t, "no-keystore", trust, "")
	s.files["wrong-ca"] = s.properties(t, "wrong-ca", s.write(t, "other-ca.pem", other.CertPEM()), kafkaPEM)
	s.files["unknown-key"] = s.properties(t, "unknown-key", trust, kafkaPEM, "zookeeper.ssl.keystore.locaton="+kafkaPEM)
	s.files["malformed-keystore"] = s.properties(t, "malformed-keystore", trust, s.write(t, "bad.pem", []byte("-----BEGIN PRIVATE KEY-----\nnot a key\n")))
	return s
}

// issue issues a client certificate for subject and checks its DN.
func (s *secured) issue(t *testing.T, subject pkix.Name, dn string) *zktest.Certificate {
	t.Helper()
	cert, err := s.srv.CA().Issue(zktest.CertRequest{Subject: subject})
	if err != nil || cert.DN() != dn {
		t.Fatalf("issue %s: %v (DN %q)", dn, err, cert.DN())
	}
	return cert
}

func (s *secured) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(s.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// properties writes a TLS properties file, as Kafka's tools take it, with
// the truststore, the keystore (none when empty) and extra lines.
func (s *secured) properties(t *testing.T, name, truststore, keystore string, extra ...string) string {
	t.Helper()
	lines := []string{
		"zookeeper.ssl.client.enable=true",
		"zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
		"zookeeper.ssl.truststore.location=" + truststore,
		"zookeeper.ssl.truststore.type=PEM",
	}
	if keystore != "" {
		lines = append(lines, "zookeeper.ssl.keystore.location="+keystore)
	}
	lines = append(lines, extra...)
	return s.write(t, name+".properties", []byte(strings.Join(lines, "\n")+"\n"))
}

// digestFile writes a digest file holding user:password.
func (s *secured) digestFile(t *testing.T, user, password string) string {
	t.Helper()
	f, err := os.CreateTemp(s.dir, "digest-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(user + ":" + password + "\n"); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// kafkaCluster lays out a rolled-back cluster under a chroot of its own, as
// Kafka with zookeeper.set.acl=true creates it: every znode with
// migrationzk.KafkaSecureACL for Kafka's certificate, and /migration
// created by a Writer WithKafkaSecureACLs.
func (s *secured) kafkaCluster(t *testing.T, name string) *cluster {
	t.Helper()
	if s.admin == nil {
		s.admin = s.srv.ConnectWith(s.t, zkconn.WithTLS(s.srv.CA().ClientConfig(s.kafka)), zkconn.WithoutSASL())
	}
	return kafkaSecureCluster(t, s.srv, s.admin, s.srv.Path("/"+name), uniform("orders", 3, 50), uniform("logs", 2, 12))
}

// kafkaSecureCluster lays out a rolled-back cluster under root of srv, as
// Kafka with zookeeper.set.acl=true creates it through admin: every znode
// with migrationzk.KafkaSecureACL for admin's identity, controller epoch
// 43, a ZooKeeper-mode controller, topics, and /migration created by a
// Writer WithKafkaSecureACLs.
func kafkaSecureCluster(t *testing.T, srv *zktest.Server, admin *zk.Conn, root string, topics ...topic) *cluster {
	t.Helper()
	c := &cluster{t: t, srv: srv, admin: admin, root: root, acl: migrationzk.KafkaSecureACL}
	c.create("", nil, 0)
	c.seedKafka(43, topics...)
	c.zkController(1)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	w := must.Get(migrationzk.New(admin, migrationzk.WithRoot(root), migrationzk.WithKafkaSecureACLs()))
	if _, _, err := w.GetOrCreate(ctx, migrationzk.InitialState()); err != nil {
		t.Fatal(err)
	}
	return c
}

// runAs runs the command against c with the TLS properties file and
// extra environment.
func (c *cluster) runAs(tlsFile string, env []string, args ...string) result {
	c.t.Helper()
	return runBinary(c.t, env, append([]string{"--zk", strings.Join(c.srv.Servers, ",") + c.root, "--zk-tls-config-file", tlsFile, "--timeout", "30s"}, args...)...)
}

// acls returns the ACL of each path under the root.
func (c *cluster) acls(paths ...string) map[string][]zk.ACL {
	c.t.Helper()
	m := map[string][]zk.ACL{}
	for _, p := range paths {
		acl, _, err := c.admin.GetACL(c.root + p)
		if err != nil {
			c.t.Fatalf("getACL %s: %v", c.root+p, err)
		}
		m[p] = acl
	}
	return m
}

// aclPaths returns the znodes whose ACL rollback-fix must keep.
func aclPaths() []string {
	return []string{"", znode.ControllerEpochPath, znode.MigrationPath, "/brokers", znode.TopicsPath,
		znode.TopicsPath + "/orders", znode.PartitionStatePath("orders", 0), znode.PartitionStatePath("logs", 1)}
}

// TestSecuredRollbackFix runs status, rollback-check and rollback-fix
// --apply --yes on a TLS-only server that enforces authentication, over a
// cluster with Kafka's secure ACLs: as Kafka (x509, the znodes' owner), as
// the x509 super user (PKCS12 keystore with a password), and as the digest
// super user (a certificate without grants, credentials from a file and
// from $MIGRATIONZK_DIGEST).
// Situation: a secured cluster; the fix must keep every znode's ACL.
func TestSecuredRollbackFix(t *testing.T) {
	s := startSecured(t)
	for _, tc := range []struct {
		name string
		file string
		env  func(c *cluster) ([]string, []string)
	}{
		{"kafka-x509", "kafka", nil},
		{"x509-super-user", "admin", nil},
		{"digest-super-user-file", "operator", func(c *cluster) ([]string, []string) {
			return nil, []string{"--zk-digest-file", s.digestFile(t, superUser, superPassword)}
		}},
		{"digest-super-user-env", "operator", func(c *cluster) ([]string, []string) {
			return []string{digestEnv + "=" + superUser + ":" + superPassword}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := s.kafkaCluster(t, tc.name)
			var env, flags []string
			if tc.env != nil {
				env, flags = tc.env(c)
			}
			run := func(args ...string) result { return c.runAs(s.files[tc.file], env, append(flags, args...)...) }
			r := run("status")
			wantCode(t, r, exitOK)
			wantOutput(t, r, "ZooKeeper-mode broker 1 (version 0, ephemeral)", "43 (version 43)")
			r = run("rollback-check")
			wantCode(t, r, exitProblem)
			wantOutput(t, r, "AT RISK: 3 partitions are stamped with a controller epoch above 43.",
				"`migrationzk --zk "+c.srv.Addr()+c.root+" --zk-tls-config-file "+s.files[tc.file]+strings.Join(append([]string{""}, flags...), " ")+" rollback-fix`")

			before := c.acls(aclPaths()...)
			r = run("rollback-fix", "--apply", "--yes")
			wantCode(t, r, exitOK)
			wantOutput(t, r, "Applied.", "Verdict: safe.")
			c.unchanged(znode.ControllerEpochPath, []byte("50"), 44)
			if c.exists(znode.ControllerPath) {
				t.Fatal("/controller still exists")
			}
			if after := c.acls(aclPaths()...); !reflect.DeepEqual(before, after) {
				t.Fatalf("ACLs changed:\nbefore %v\nafter  %v", before, after)
			}
			if acl := before[znode.ControllerEpochPath]; len(acl) != 2 || acl[0].Scheme != "x509" || acl[0].ID != kafkaDN {
				t.Fatalf("the cluster lacks Kafka's ACLs: %v", acl)
			}
		})
	}
}

// TestSecuredGrantedDigest runs rollback-fix --apply --yes as a digest
// identity added to the control znodes' ACLs but not granted delete on the
// chroot, which deleting /controller needs.
// Fault: a permission missing for the second write; the tool must find it
// before the first, so that nothing is written.
func TestSecuredGrantedDigest(t *testing.T) {
	s := startSecured(t)
	const user, password = "migration", "m1gration-Pa55"
	grant := zk.ACL{Perms: zk.PermAll, Scheme: "digest", ID: zktest.DigestID(user, password)}
	control := map[string]bool{znode.ControllerEpochPath: true, znode.ControllerPath: true, znode.MigrationPath: true}
	c := s.kafkaCluster(t, "granted")
	for p := range control {
		if _, err := c.admin.SetACL(c.root+p, append(migrationzk.KafkaSecureACL(p), grant), -1); err != nil {
			t.Fatal(err)
		}
	}
	ctl, _ := c.get(znode.ControllerPath)
	start := time.Now()
	r := c.runAs(s.files["operator"], []string{digestEnv + "=" + user + ":" + password}, "rollback-fix", "--apply", "--yes")
	wantBadInput(t, r, "not authorized for path "+c.root+"/controller: ZooKeeper refused delete", start)
	c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
	c.unchanged(znode.ControllerPath, ctl, 0)
	if strings.Contains(r.stderr, "write 1/2") {
		t.Fatalf("a write was attempted: %s", r)
	}
}

// badInput is a secured run that must fail at once with exit 2 and a
// message saying what is wrong.
type badInput struct {
	name  string
	file  string
	env   []string
	flags []string
	want  string
}

// TestSecuredBadInputs runs rollback-fix --apply --yes with inputs that
// cannot work. Each must exit 2 with a message naming the cause, write
// nothing, and fail long before --timeout (30s).
// Faults: a truststore of another CA (untrusted certificate), no keystore
// (no client certificate), a wrong digest password, a certificate
// without grants (not authorized for path), a misspelt key in the TLS
// file, a malformed keystore, a server certificate for another host
// (hostname mismatch), no authentication where the server enforces it.
func TestSecuredBadInputs(t *testing.T) {
	s := startSecured(t)
	c := s.kafkaCluster(t, "bad")
	ctl, ctlStat := c.get(znode.ControllerPath)
	for _, tc := range []badInput{
		{"wrong-ca", "wrong-ca", nil, nil, "TLS handshake with 127.0.0.1:"},
		{"no-client-certificate", "no-keystore", nil, nil, "failed: no client certificate:"},
		{"wrong-digest-password", "operator", []string{digestEnv + "=" + superUser + ":" + wrongPassword}, nil,
			`bad credentials: digest user "super" (from $MIGRATIONZK_DIGEST) may not write ` + c.root + "/controller_epoch"},
		{"wrong-digest-password-file", "operator", nil, []string{"--zk-digest-file", s.digestFile(t, superUser, wrongPassword)},
			`bad credentials: digest user "super" (from ` + s.dir},
		{"not-authorized", "operator", nil, nil, "not authorized for path " + c.root + "/controller: ZooKeeper refused delete"},
		{"unknown-property", "unknown-key", nil, nil, "--zk-tls-config-file: zktls: " + s.files["unknown-key"] + ": zookeeper.ssl.keystore.locaton: unknown property"},
		{"malformed-keystore", "malformed-keystore", nil, nil, "zookeeper.ssl.keystore.location: " + s.dir + "/bad.pem: PEM keystore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := c.runAs(s.files[tc.file], tc.env, append(tc.flags, "rollback-fix", "--apply", "--yes")...)
			wantBadInput(t, r, tc.want, start)
			c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
			c.unchanged(znode.ControllerPath, ctl, ctlStat.Version)
		})
	}
	t.Run("not-authorized-json", func(t *testing.T) {
		r := c.runAs(s.files["operator"], nil, "--output", "json", "rollback-fix", "--apply", "--yes")
		wantCode(t, r, exitError)
		var out fixReport
		r.decode(t, &out)
		if out.ErrorKind != kindNotAuthorized || !strings.Contains(out.Error, "not authorized for path "+c.root+"/controller: ZooKeeper refused delete") ||
			out.Actions[0].Done || out.After != nil {
			t.Fatalf("json: %+v", out)
		}
		c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
	})
	t.Run("not-authorized-set", func(t *testing.T) {
		// No /controller: the only write is the set of /controller_epoch.
		c := s.kafkaCluster(t, "bad-set")
		if err := c.admin.Delete(c.root+znode.ControllerPath, -1); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r := c.runAs(s.files["operator"], nil, "rollback-fix", "--apply", "--yes")
		wantBadInput(t, r, "not authorized for path "+c.root+"/controller_epoch: ZooKeeper refused", start)
		c.unchanged(znode.ControllerEpochPath, []byte("43"), 43)
	})
	t.Run("untrusted-names-the-kind", func(t *testing.T) {
		start := time.Now()
		r := c.runAs(s.files["wrong-ca"], nil, "status")
		wantBadInput(t, r, "failed: untrusted certificate:", start)
	})

	t.Run("no-credentials-enforced", func(t *testing.T) {
		// The server counts digest only: Kafka's certificate is no
		// authentication there.
		other := startSecured(t, zktest.WithAuthEnforced("digest"))
		start := time.Now()
		r := runBinary(t, nil, "--zk", other.srv.Addr()+"/kafka", "--zk-tls-config-file", other.files["kafka"], "--timeout", "30s", "status")
		wantBadInput(t, r, "bad credentials: the server requires authentication (enforce.auth.enabled)", start)
	})

	t.Run("hostname-mismatch", func(t *testing.T) {
		other := startSecured(t, zktest.WithServerHosts("zookeeper.example"))
		start := time.Now()
		r := runBinary(t, nil, "--zk", other.srv.Addr()+"/kafka", "--zk-tls-config-file", other.files["kafka"], "--timeout", "30s", "status")
		wantBadInput(t, r, "failed: hostname mismatch:", start)
	})
}

// wantBadInput fails unless r exited 2 within 15s of start with want on
// stderr, and in text mode nothing on stdout but the header.
func wantBadInput(t *testing.T, r result, want string, start time.Time) {
	t.Helper()
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, r)
	}
	d := time.Since(start)
	if d > fastFail {
		t.Fatalf("took %v, want under %v: %s", d, fastFail, r)
	}
	t.Logf("exit %d after %v: %s", r.code, d.Round(time.Millisecond), strings.TrimSpace(r.stderr))
}

// fastFail bounds how long a failure that retrying cannot cure may take.
const fastFail = 15 * time.Second

// TestSecretsNeverShown runs every command in every output mode with a
// digest password, a keystore password, a wrong digest password, and a
// JAAS file with a SASL password and with a wrong one set, and looks for
// them in stdout and stderr.
// Fault: secrets leaking into text, json or --verbose output, or into
// error messages.
func TestSecretsNeverShown(t *testing.T) {
	s := startSecured(t, zktest.WithSASLDigestUser("kafka", saslPassword))
	secrets := []string{superPassword, keystorePassword, wrongPassword, saslPassword, wrongSASLPassword}
	jaas, wrongJAAS := tempFile(t, "jaas.conf", kafkaJAAS(saslPassword)), tempFile(t, "wrong.conf", kafkaJAAS(wrongSASLPassword))
	modes := map[string][]string{"text": nil, "json": {"--output", "json"}, "verbose": {"--verbose"}, "json-verbose": {"--output", "json", "--verbose"}}
	commands := [][]string{{"status"}, {"rollback-check"}, {"rollback-fix"}, {"rollback-fix", "--apply", "--yes"},
		{"repair-null-migration"}, {"repair-null-migration", "--apply", "--yes"}, {"--help"}, {"frobnicate"}}
	for mode, flags := range modes {
		c := s.kafkaCluster(t, "secrets-"+mode)
		for _, cmd := range commands {
			for _, creds := range []struct {
				file  string
				env   []string
				flags []string
			}{
				// The PKCS12 keystore's password, and the digest super user's.
				{"admin", []string{digestEnv + "=" + superUser + ":" + superPassword}, nil},
				// Bad credentials, from the environment and from a file.
				{"operator", []string{digestEnv + "=" + superUser + ":" + wrongPassword}, nil},
				{"operator", nil, []string{"--zk-digest-file", s.digestFile(t, superUser, wrongPassword)}},
				// SASL over TLS: a JAAS file, right and wrong.
				{"admin", nil, []string{"--zk-jaas-config", jaas}},
				{"operator", nil, []string{"--zk-jaas-config", wrongJAAS}},
			} {
				r := c.runAs(s.files[creds.file], creds.env, append(append(flags, creds.flags...), cmd...)...)
				out := r.stdout + r.stderr
				for _, secret := range secrets {
					if strings.Contains(out, secret) {
						t.Fatalf("%s %v (%s): output shows a secret %q:\n%s", mode, cmd, creds.file, secret, r)
					}
				}
				if r.code == exitError && strings.Contains(out, "panic") {
					t.Fatalf("%s %v: %s", mode, cmd, r)
				}
			}
		}
	}
}
