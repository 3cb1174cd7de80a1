package dualwrite_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

// The secret and the passwords of the password tests, which no error,
// image or stored value may show in plain text.
const (
	testEncoderSecret = "encoder-secret-3141"
	testKeyPassword   = "key-password-2718"
	testJaasConfig    = `org.apache.kafka.common.security.plain.PlainLoginModule required password="jaas-password-1618";`
)

// passwordEncoder returns an encoder with secret, at the least iteration
// count, so that tests stay fast.
func passwordEncoder(t *testing.T, secret string) *passwordencoder.Encoder {
	t.Helper()
	enc, err := passwordencoder.New(secret, passwordencoder.WithIterations(passwordencoder.MinIterations))
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// passwordImage is a KRaft image with password configs in plain text: a
// broker's listener key password, a topic's JAAS config, and a default
// broker truststore password.
func passwordImage() dualwrite.Image {
	img := dualwrite.NewImage()
	img.Topics["t"] = topic("t", 1)
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}] = map[string]string{
		"listener.name.internal.ssl.key.password": testKeyPassword, "log.cleaner.threads": "2"}
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: ""}] = map[string]string{
		"ssl.truststore.password": "truststore-password-1414"}
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "t"}] = map[string]string{
		"sasl.jaas.config": testJaasConfig, "retention.ms": "1000"}
	return img
}

// Fault: none. With a secret, a Sync of an image holding plain passwords
// stores them encoded, each with its own salt; Read gives them back plain;
// and a second Sync of the same image plans nothing and writes at most
// the checkpoint, although every encoding of a password differs.
func TestSyncOfPasswordConfigsConverges(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	enc := passwordEncoder(t, testEncoderSecret)
	pc := must.Get(dualwrite.New(c.w, dualwrite.WithPasswordEncoder(enc)))
	desired := passwordImage()
	s, _, err := pc.Sync(ctx, at(c.s, 200), desired)
	if err != nil {
		t.Fatal(err)
	}
	stored := c.config("/config/brokers/1")
	key := stored["listener.name.internal.ssl.key.password"]
	if key == testKeyPassword || !strings.Contains(key, "encryptedPassword:") || stored["log.cleaner.threads"] != "2" {
		t.Fatalf("stored broker config %q: want the password encoded, the rest as given", stored)
	}
	if got, err := enc.Decode(key); err != nil || got != testKeyPassword {
		t.Fatalf("stored password decodes to %q, %v", got, err)
	}
	if jaas := c.config("/config/topics/t")["sasl.jaas.config"]; jaas == testJaasConfig || !strings.Contains(jaas, "salt:") {
		t.Fatalf("topic password config stored as %q", jaas)
	}
	img, err := pc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(img.Configs, desired.Configs, func(a, b map[string]string) bool { return maps.Equal(a, b) }) {
		t.Fatalf("Read configs %v, want %v", img.Configs, desired.Configs)
	}
	if plan := dualwrite.Diff(img, desired); !plan.Empty() {
		t.Fatalf("Diff(Read(), desired) = %s", plan)
	}
	notes := len(c.notifications("/config/changes", "config_change_"))
	c.faults.ResetCounts()
	s, rep, err := pc.Sync(ctx, at(s, 300), desired)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Plan.Empty() || c.writeRequests() > 1 {
		t.Fatalf("second Sync planned %s and sent %d write requests; want nothing but the checkpoint", rep.Plan, c.writeRequests())
	}
	if got := len(c.notifications("/config/changes", "config_change_")); got != notes {
		t.Fatalf("second Sync notified: %d notifications, had %d", got, notes)
	}
	c.checkState(s)
	if c.config("/config/brokers/1")["listener.name.internal.ssl.key.password"] != key {
		t.Fatal("second Sync rewrote the password")
	}
}

// Fault: none. WriteConfigs with the same plain password writes nothing;
// with another, writes it encoded and notifies.
func TestWriteConfigsComparesDecodedPasswords(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	pc := must.Get(dualwrite.New(c.w, dualwrite.WithPasswordEncoder(passwordEncoder(t, testEncoderSecret))))
	broker := dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}
	cfg := map[string]string{"ssl.keystore.password": testKeyPassword}
	s, err := pc.WriteConfigs(ctx, at(c.s, 200), broker, cfg)
	if err != nil {
		t.Fatal(err)
	}
	v := c.version("/config/brokers/1")
	if s, err = pc.WriteConfigs(ctx, at(s, 201), broker, cfg); err != nil {
		t.Fatal(err)
	}
	if c.version("/config/brokers/1") != v {
		t.Fatal("WriteConfigs of the same password rewrote it")
	}
	if _, err = pc.WriteConfigs(ctx, at(s, 202), broker, map[string]string{"ssl.keystore.password": "another"}); err != nil {
		t.Fatal(err)
	}
	if c.version("/config/brokers/1") != v+1 || len(c.notifications("/config/changes", "config_change_")) != 2 {
		t.Fatalf("a changed password: version %d (was %d), notifications %v", c.version("/config/brokers/1"), v,
			c.notifications("/config/changes", "config_change_"))
	}
	_, err = pc.WriteConfigs(ctx, at(s, 203), broker, map[string]string{"ssl.key.password": "\xff" + testKeyPassword})
	if !errors.Is(err, migrationzk.ErrInvalidArgument) || strings.Contains(err.Error(), testKeyPassword) {
		t.Fatalf("a non-UTF-8 password: %v", err)
	}
}

// Fault: none. A Client with another secret cannot decode the passwords:
// Read lists the znode as undecodable, naming the config and not its
// value; Sync leaves it alone; WriteConfigs refuses to write over it.
func TestPasswordsUnderAnotherSecret(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	pc := must.Get(dualwrite.New(c.w, dualwrite.WithPasswordEncoder(passwordEncoder(t, testEncoderSecret))))
	s, _, err := pc.Sync(ctx, at(c.s, 200), passwordImage())
	if err != nil {
		t.Fatal(err)
	}
	before := c.tree()
	other := must.Get(dualwrite.New(c.w, dualwrite.WithPasswordEncoder(passwordEncoder(t, "another secret"))))
	img, err := other.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, u := range img.Undecodable {
		bad = append(bad, u.Path)
		if msg := u.Err.Error(); !errors.Is(u.Err, passwordencoder.ErrWrongSecret) || strings.Contains(msg, testKeyPassword) ||
			strings.Contains(msg, "jaas-password") || strings.Contains(msg, "encryptedPassword") {
			t.Errorf("undecodable %s: %v", u.Path, u.Err)
		}
	}
	if len(bad) != 3 {
		t.Fatalf("undecodable %q; want the three config znodes", bad)
	}
	_, rep, err := other.Sync(ctx, at(s, 300), passwordImage())
	if err != nil || len(rep.Plan.Skipped) != 3 {
		t.Fatalf("Sync under another secret: %v, plan %s", err, rep.Plan)
	}
	c.sameTree("Sync under another secret", before, c.tree(), "/migration")
	_, err = other.WriteConfigs(ctx, at(s, 301), dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"},
		map[string]string{"ssl.keystore.password": "x"})
	if err == nil || strings.Contains(err.Error(), "encryptedPassword") {
		t.Fatalf("WriteConfigs over a password of another secret: %v", err)
	}
}

// Fault: none. Without a secret, as Kafka's migration without
// password.encoder.secret (PasswordEncoder.NOOP), passwords are written
// and read in plain text, and a second Sync writes nothing.
func TestPasswordConfigsWithoutSecretArePlain(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	s, _, err := c.c.Sync(ctx, at(c.s, 200), passwordImage())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.config("/config/brokers/1")["listener.name.internal.ssl.key.password"]; got != testKeyPassword {
		t.Fatalf("stored %q, want the plain password", got)
	}
	_, rep, err := c.c.Sync(ctx, at(s, 300), passwordImage())
	if err != nil || !rep.Plan.Empty() {
		t.Fatalf("second Sync: %v, plan %s", err, rep.Plan)
	}
}

// Fault: none. A config znode that does not decode is reported without
// its data, which may hold passwords.
func TestUndecodableConfigWithholdsData(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	c.create("/config/brokers/2", []byte(`{"version":1,"config":{"ssl.key.password":"`+testKeyPassword+`",`))
	c.create("/config/users/alice", []byte(`{"version":1,"config":{"SCRAM-SHA-256":"salt=c2FsdA==,stored_key=`+testKeyPassword+`"}}`))
	img, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(img.Undecodable) != 2 {
		t.Fatalf("undecodable %v", img.Undecodable)
	}
	for _, u := range img.Undecodable {
		if strings.Contains(u.Err.Error(), testKeyPassword) || !strings.Contains(u.Err.Error(), "withheld") {
			t.Errorf("%s: %v", u.Path, u.Err)
		}
	}
	_, err = c.c.WriteConfigs(ctx, at(c.s, 200), dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "2"}, map[string]string{"a": "b"})
	if err == nil || strings.Contains(err.Error(), testKeyPassword) {
		t.Fatalf("WriteConfigs over undecodable data: %v", err)
	}
}
