package main

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// What the password test's cluster holds and no output may show.
const (
	cliEncoderSecret = "cli-encoder-secret-5772"
	cliKeyPassword   = "cli-key-password-1123"
	cliPlainPassword = "cli-plain-password-5813"
	cliBrokenConfig  = "cli-broken-password-2134"
)

// cliScram is a SCRAM credential whose parts no output may show.
func cliScram() znode.ScramCredential {
	return znode.ScramCredential{Salt: []byte("scram-salt-3455"), StoredKey: []byte("scram-stored-8914"),
		ServerKey: []byte("scram-server-4233"), Iterations: 4096}
}

// seedPasswordCluster writes, through a client with the secret, a broker
// config with a password and a user's SCRAM credential; and raw, a broker
// config holding a password in plain text, which does not decode with the
// secret, and a config znode that is not JSON.
func seedPasswordCluster(t *testing.T) (*cluster, *mirror, *passwordencoder.Encoder) {
	t.Helper()
	srv := zktest.Start(t)
	c := newCluster(t, srv, srv.Connect(t), "passwords")
	c.seedKafka(3)
	enc, err := passwordencoder.New(cliEncoderSecret, passwordencoder.WithIterations(passwordencoder.MinIterations))
	if err != nil {
		t.Fatal(err)
	}
	m := c.mirrorAs3000(dualwrite.WithPasswordEncoder(enc))
	m.do(func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
		return m.c.WriteConfigs(ctx, s, dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"},
			map[string]string{"listener.name.internal.ssl.key.password": cliKeyPassword, "log.cleaner.threads": "2"})
	})
	m.do(func(ctx context.Context, s migrationzk.State) (migrationzk.State, error) {
		return m.c.WriteClientQuotas(ctx, s, dualwrite.QuotaEntity{User: "alice"}, nil,
			map[string]znode.ScramCredential{znode.ScramSHA512: cliScram()})
	})
	c.create("/config/brokers/2", znode.Config{"ssl.keystore.password": cliPlainPassword}.Encode(), 0)
	c.create("/config/brokers/3", []byte(`{"version":1,"config":{"ssl.key.password":"`+cliBrokenConfig+`"`), 0)
	return c, m, enc
}

// secrets returns what no output may show: the secret, the passwords as
// given and as stored, and the SCRAM credential's parts, raw and in
// Base64.
func secrets(c *cluster) []string {
	out := []string{cliEncoderSecret, cliKeyPassword, cliPlainPassword, cliBrokenConfig}
	stored, _ := c.get("/config/brokers/1")
	cfg, err := znode.DecodeConfig(stored)
	if err != nil {
		c.t.Fatal(err)
	}
	encoded := cfg["listener.name.internal.ssl.key.password"]
	m, _ := passwordencoderFields(encoded)
	out = append(out, m["encryptedPassword"], m["salt"][:40])
	cred := cliScram()
	for _, b := range [][]byte{cred.Salt, cred.StoredKey, cred.ServerKey} {
		out = append(out, string(b), base64.StdEncoding.EncodeToString(b))
	}
	return out
}

// passwordencoderFields splits an encoded password into its fields.
func passwordencoderFields(encoded string) (map[string]string, bool) {
	m := map[string]string{}
	for _, pair := range strings.Split(encoded, ",") {
		k, v, ok := strings.Cut(pair, ":")
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, true
}

// TestPasswordsAreNeverPrinted runs export, diff and status with the
// secret from a file and from the environment, and checks that no output
// shows the secret, a password or a SCRAM credential, while the export
// shows [redacted] where each was.
// Fault: none; a plain-text password the secret does not decode, a config
// znode that is not JSON.
func TestPasswordsAreNeverPrinted(t *testing.T) {
	c, _, _ := seedPasswordCluster(t)
	dir := t.TempDir()
	props := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(props, []byte("node.id=3000\npassword.encoder.secret="+cliEncoderSecret+"\npassword.encoder.iterations=1024\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "cluster.json")
	zkFlags := []string{"--zk", strings.Join(c.srv.Servers, ","), "--root", c.root}
	withFile := append([]string{"--password-encoder-config-file", props}, zkFlags...)
	env := []string{passwordSecretEnv + "=" + cliEncoderSecret}
	var outputs []result
	run := func(env []string, args ...string) result {
		t.Helper()
		r := runBinary(t, env, args...)
		outputs = append(outputs, r)
		return r
	}

	r := run(nil, append(withFile, "export")...)
	wantCode(t, r, exitOK)
	img := readExport(t, r.stdout)
	broker1 := img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}]
	if broker1["listener.name.internal.ssl.key.password"] != dualwrite.RedactedValue || broker1["log.cleaner.threads"] != "2" ||
		img.Scram["alice"][znode.ScramSHA512].Iterations != 4096 || len(img.Undecodable) != 2 {
		t.Fatalf("export with the secret:\n%s", r.stdout)
	}
	wantCode(t, run(env, append(zkFlags, "export", "--output", file)...), exitOK)
	wantCode(t, run(env, append(zkFlags, "--verbose", "diff", file, liveSide)...), exitOK)
	wantCode(t, run(nil, append(withFile, "--output", "json", "diff", liveSide, file)...), exitOK)
	wantCode(t, run(nil, append(zkFlags, "export")...), exitOK)
	wantCode(t, run(nil, append(zkFlags, "diff", file, liveSide)...), exitProblem)
	run(nil, append(withFile, "status")...)
	run(nil, append(withFile, "--output", "json", "status")...)
	r = run(env, append(withFile, "export")...)
	wantCode(t, r, exitError)
	wantStderr(t, r, "give one of them")
	r = run(nil, append(zkFlags, "--password-encoder-secret", cliEncoderSecret, "export")...)
	wantCode(t, r, exitError)

	for _, r := range outputs {
		for _, s := range secrets(c) {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				t.Errorf("output shows %q:\n%s", s, r)
			}
		}
	}
}

// TestPasswordEncoderFlags checks the secret's sources: a file without
// password.encoder.secret, a missing file and a bad setting fail, naming
// the file but not its content.
// Fault: none.
func TestPasswordEncoderFlags(t *testing.T) {
	dir := t.TempDir()
	noSecret := filepath.Join(dir, "no-secret.properties")
	badSetting := filepath.Join(dir, "bad.properties")
	for path, content := range map[string]string{
		noSecret:   "password.encoder.iterations=4096\n",
		badSetting: "password.encoder.secret=" + cliEncoderSecret + "\npassword.encoder.key.length=100\n",
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		file string
		want string
	}{
		{noSecret, "holds no password.encoder.secret"},
		{badSetting, "invalid password encoder setting"},
		{filepath.Join(dir, "missing"), "cannot be read"},
	} {
		r := runBinary(t, nil, "--zk", "127.0.0.1:1", "--password-encoder-config-file", c.file, "export")
		wantCode(t, r, exitError)
		wantStderr(t, r, c.file, c.want)
		if strings.Contains(r.stdout+r.stderr, cliEncoderSecret) {
			t.Errorf("output shows the secret:\n%s", r)
		}
	}
}

// wantStderr fails unless r's stderr holds each of subs.
func wantStderr(t *testing.T, r result, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.stderr, s) {
			t.Fatalf("stderr lacks %q:\n%s", s, r)
		}
	}
}
