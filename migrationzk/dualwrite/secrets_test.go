package dualwrite_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// redactedWrite is a change writing a redacted secret, and the key its
// *SecretError must name.
type redactedWrite struct {
	name   string
	change func(b *dualwrite.Batch) *dualwrite.Batch
	entity string
	key    string
}

func redactedWrites() []redactedWrite {
	configs := func(r dualwrite.ConfigResource, cfg map[string]string) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch { return b.WriteConfigs(r, cfg) }
	}
	scram := func(creds map[string]znode.ScramCredential) func(*dualwrite.Batch) *dualwrite.Batch {
		return func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.WriteClientQuotas(aliceQuota, map[string]float64{znode.QuotaProducerByteRate: 1024}, creds)
		}
	}
	without := func(mutate func(*znode.ScramCredential)) map[string]znode.ScramCredential {
		c := credential
		mutate(&c)
		return map[string]znode.ScramCredential{znode.ScramSHA512: credential, znode.ScramSHA256: c}
	}
	redactedCred := map[string]znode.ScramCredential{znode.ScramSHA256: {Iterations: 8192}}
	topicT := dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "t"}
	return []redactedWrite{
		{"broker password", configs(brokerOne, map[string]string{"ssl.keystore.password": dualwrite.RedactedValue, "log.cleaner.threads": "2"}), "brokers/1", "ssl.keystore.password"},
		{"first of two in key order", configs(brokerOne, map[string]string{"ssl.truststore.password": dualwrite.RedactedValue, "ssl.key.password": dualwrite.RedactedValue}), "brokers/1", "ssl.key.password"},
		{"listener override", configs(dualwrite.ConfigResource{Type: dualwrite.BrokerConfig}, map[string]string{"listener.name.internal.ssl.key.password": dualwrite.RedactedValue}), "brokers/<default>", "listener.name.internal.ssl.key.password"},
		{"topic JAAS config", configs(topicT, map[string]string{"sasl.jaas.config": dualwrite.RedactedValue}), "topics/t", "sasl.jaas.config"},
		{"SCRAM as redacted", scram(redactedCred), "users/alice", znode.ScramSHA256},
		{"SCRAM without a salt", scram(without(func(c *znode.ScramCredential) { c.Salt = nil })), "users/alice", znode.ScramSHA256},
		{"SCRAM with an empty salt", scram(without(func(c *znode.ScramCredential) { c.Salt = []byte{} })), "users/alice", znode.ScramSHA256},
		{"SCRAM without a stored key", scram(without(func(c *znode.ScramCredential) { c.StoredKey = nil })), "users/alice", znode.ScramSHA256},
		{"SCRAM without a server key", scram(without(func(c *znode.ScramCredential) { c.ServerKey = nil })), "users/alice", znode.ScramSHA256},
		{"SCRAM of an export redacted", scram(dualwrite.Image{Scram: map[string]map[string]znode.ScramCredential{"alice": {znode.ScramSHA512: credential}}}.Redacted().Scram["alice"]), "users/alice", znode.ScramSHA512},
		{"after a valid change", func(b *dualwrite.Batch) *dualwrite.Batch {
			return b.WriteProducerID(6000).WriteConfigs(brokerOne, map[string]string{"ssl.key.password": dualwrite.RedactedValue})
		}, "brokers/1", "ssl.key.password"},
	}
}

// checkSecretError fails unless err is a *SecretError naming entity and
// key, redacted as said, matching migrationzk.ErrInvalidArgument.
func checkSecretError(t *testing.T, err error, entity, key string, redacted bool) {
	t.Helper()
	var se *dualwrite.SecretError
	if !errors.As(err, &se) || !errors.Is(err, migrationzk.ErrInvalidArgument) {
		t.Fatalf("got %v, want a *SecretError matching ErrInvalidArgument", err)
	}
	if se.Entity != entity || se.Key != key || se.Redacted != redacted {
		t.Fatalf("got %#v, want entity %s, key %s, redacted %v", se, entity, key, redacted)
	}
	if msg := err.Error(); !strings.Contains(msg, key) || strings.Contains(msg, "salt=") || strings.Contains(msg, "c2FsdA") {
		t.Fatalf("message %q: want the key named and no value", msg)
	}
}

// Fault: none. A redacted password config or SCRAM credential, whatever
// else the Batch holds, fails it with a *SecretError naming the first
// redacted key, before a request is sent: ZooKeeper is unchanged,
// /migration included. The Client's methods refuse them alike.
func TestRedactedSecretsRefusedBeforeSending(t *testing.T) {
	c := newCluster(t)
	for _, w := range redactedWrites() {
		t.Run(w.name, func(t *testing.T) {
			c := c.in(t)
			before := c.tree()
			c.faults.ResetCounts()
			s, _, err := w.change(c.c.Batch()).Apply(testContext(t), at(c.s, 400))
			checkSecretError(t, err, w.entity, w.key, true)
			if n := c.faults.Requests(); n != 0 {
				t.Fatalf("%d requests sent (%v), want none", n, c.faults.Counts())
			}
			if s.MigrationZkVersion != c.s.MigrationZkVersion {
				t.Fatalf("State moved to /migration version %d", s.MigrationZkVersion)
			}
			c.sameTree("after a redacted write", before, c.tree())
		})
	}
	ctx := testContext(t)
	_, err := c.c.WriteConfigs(ctx, at(c.s, 401), brokerOne, map[string]string{"ssl.keystore.password": dualwrite.RedactedValue})
	checkSecretError(t, err, "brokers/1", "ssl.keystore.password", true)
	_, err = c.c.WriteClientQuotas(ctx, at(c.s, 402), aliceQuota, nil, map[string]znode.ScramCredential{znode.ScramSHA256: {Iterations: 4096}})
	checkSecretError(t, err, "users/alice", znode.ScramSHA256, true)
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("the Client's methods sent %d requests", n)
	}
}

// Fault: none. The rules are exact: "[redacted]" in a config that is no
// password, a password that only looks redacted, and credentials at
// Kafka's bounds of 4096 and 16384 iterations are written.
func TestSecretRulesAreExact(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	cfg := map[string]string{"description": dualwrite.RedactedValue, "ssl.key.password": "[REDACTED]", "ssl.keystore.password": dualwrite.RedactedValue + " "}
	low, high := credential, credential
	low.Iterations, high.Iterations = 4096, 16384
	s, _, err := c.c.Batch().WriteConfigs(brokerOne, cfg).
		WriteClientQuotas(aliceQuota, nil, map[string]znode.ScramCredential{znode.ScramSHA256: low, znode.ScramSHA512: high}).
		Apply(ctx, at(c.s, 400))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.config("/config/brokers/1"); got["description"] != dualwrite.RedactedValue || got["ssl.key.password"] != "[REDACTED]" {
		t.Fatalf("broker config %v", got)
	}
	if got := c.config("/config/users/alice"); got[znode.ScramSHA512] != string(high.Encode()) {
		t.Fatalf("alice's config %v", got)
	}
	c.checkState(s)
}

// Fault: none. A SCRAM credential whose iteration count Kafka refuses is
// written only where ZooKeeper holds it already: a new one is refused
// with a *SecretError after the read that finds it new, before any
// write; one that legacy tools left, and that is written back with the
// user's quotas, is kept; one that changes to such a count is refused.
func TestScramIterationsKafkaRefuses(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	for _, n := range []int32{4095, 16385, 0, -1} {
		cred := credential
		cred.Iterations = n
		before := c.tree()
		c.faults.ResetCounts()
		_, err := c.c.WriteClientQuotas(ctx, at(c.s, 400), aliceQuota, nil, map[string]znode.ScramCredential{znode.ScramSHA256: cred})
		checkSecretError(t, err, "users/alice", znode.ScramSHA256, false)
		if w, all := c.writeRequests(), c.faults.Requests(); w != 0 || all > maxNameReads {
			t.Fatalf("iterations %d: %d write requests, %d requests (%v)", n, w, all, c.faults.Counts())
		}
		c.sameTree("after a credential Kafka refuses", before, c.tree())
	}

	legacy := credential
	legacy.Iterations = 1000
	c.createAll("/config/users/bob", znode.Config{znode.ScramSHA256: string(legacy.Encode())}.Encode())
	bob := dualwrite.QuotaEntity{User: "bob"}
	s, err := c.c.WriteClientQuotas(ctx, at(c.s, 401), bob, map[string]float64{znode.QuotaProducerByteRate: 1024},
		map[string]znode.ScramCredential{znode.ScramSHA256: legacy})
	if err != nil {
		t.Fatalf("bob's quota with his legacy credential: %v", err)
	}
	if got := c.config("/config/users/bob"); got[znode.ScramSHA256] != string(legacy.Encode()) || got[znode.QuotaProducerByteRate] != "1024" {
		t.Fatalf("bob's config %v", got)
	}
	changed := legacy
	changed.Salt = []byte("another salt")
	before := c.tree()
	_, err = c.c.WriteClientQuotas(ctx, at(s, 402), bob, nil, map[string]znode.ScramCredential{znode.ScramSHA256: changed})
	checkSecretError(t, err, "users/bob", znode.ScramSHA256, false)
	c.sameTree("after a changed legacy credential", before, c.tree())
}

// seedSecrets writes, through a Client with the test's secret, a broker
// password config and a SCRAM credential, and returns that Client, the
// State after, and the image it reads then.
func seedSecrets(c *cluster) (*dualwrite.Client, migrationzk.State, dualwrite.Image) {
	c.t.Helper()
	ctx := testContext(c.t)
	pc := must.Get(dualwrite.New(c.w, dualwrite.WithPasswordEncoder(passwordEncoder(c.t, testEncoderSecret))))
	s, _, err := pc.Batch().
		WriteConfigs(brokerOne, map[string]string{"ssl.keystore.password": testKeyPassword, "log.cleaner.threads": "2"}).
		WriteClientQuotas(aliceQuota, map[string]float64{znode.QuotaProducerByteRate: 1024}, map[string]znode.ScramCredential{znode.ScramSHA256: credential}).
		Apply(ctx, at(c.s, 200))
	if err != nil {
		c.t.Fatal(err)
	}
	img, err := pc.Read(ctx, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return pc, s, img
}

// Fault: none. The plan from a tree to its redacted image writes the
// redacted values: Plan.AddTo refuses it with a *SecretError naming the
// first, and the Batch then fails without a request.
func TestPlanAddToRefusesRedacted(t *testing.T) {
	c := newCluster(t)
	pc, s, img := seedSecrets(c)
	ctx := testContext(t)
	plan := dualwrite.Diff(img, img.Redacted())
	if len(plan.Changes) != 2 {
		t.Fatalf("plan %s", plan)
	}
	b := pc.Batch()
	checkSecretError(t, plan.AddTo(b), "brokers/1", "ssl.keystore.password", true)
	c.faults.ResetCounts()
	_, _, err := b.Apply(ctx, at(s, 300))
	checkSecretError(t, err, "brokers/1", "ssl.keystore.password", true)
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// oldSchema rewrites an image JSON of this version as version 2 wrote it:
// without "redacted" and "passwords".
func oldSchema(t *testing.T, data []byte) []byte {
	t.Helper()
	head := []byte("\"schema_version\": 3,\n  \"redacted\": true,\n  \"passwords\": null,")
	if !bytes.Contains(data, head) {
		t.Fatalf("no redacted head in:\n%s", data)
	}
	return bytes.Replace(data, head, []byte(`"schema_version": 2,`), 1)
}

// Fault: none. A redacted image of a tree holding a broker password config
// and a SCRAM credential, through its JSON of this version and of version
// 2 (as archived exports are), reads back and is refused by Sync, with a
// Client with the secret and one without, naming the password config:
// every znode is unchanged, /migration included.
func TestSyncRefusesRedactedImage(t *testing.T) {
	c := newCluster(t)
	pc, s, img := seedSecrets(c)
	ctx := testContext(t)
	data := encode(t, img.Redacted())
	before := c.tree()
	for name, doc := range map[string][]byte{"this version": data, "version 2": oldSchema(t, data)} {
		back, err := dualwrite.ReadImageJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, client := range []*dualwrite.Client{pc, c.c} {
			_, _, err = client.Sync(ctx, at(s, 300), back)
			checkSecretError(t, err, "brokers/1", "ssl.keystore.password", true)
			c.sameTree("after a Sync of a redacted image ("+name+")", before, c.tree())
		}
	}
}

// seedLegacySecrets writes by hand what legacy tools and an earlier
// redacted restore left: a broker password config holding [redacted], a
// credential without a salt (alice) and one of 1000 iterations (bob).
func seedLegacySecrets(c *cluster) znode.ScramCredential {
	c.t.Helper()
	legacy := credential
	legacy.Iterations = 1000
	c.createAll("/config/brokers/1", znode.Config{"ssl.key.password": dualwrite.RedactedValue}.Encode())
	c.createAll("/config/users/alice", znode.Config{znode.ScramSHA256: "salt=,stored_key=,server_key=,iterations=8192"}.Encode())
	c.createAll("/config/users/bob", znode.Config{znode.ScramSHA512: string(legacy.Encode())}.Encode())
	return legacy
}

// Fault: none. Reading never refuses a secret: a tree holding a redacted
// password config, a credential without a salt and one of 1000
// iterations reads with nothing undecodable, and its image JSON reads
// back equal.
func TestReadingNeverRefusesSecrets(t *testing.T) {
	c := newCluster(t)
	seedLegacySecrets(c)
	img, err := c.c.Read(testContext(t), nil)
	if err != nil || len(img.Undecodable) != 0 || img.Secrets != dualwrite.SecretsEncoded {
		t.Fatalf("read: %v, %+v", err, img)
	}
	if img.Configs[brokerOne]["ssl.key.password"] != dualwrite.RedactedValue || img.Scram["bob"][znode.ScramSHA512].Iterations != 1000 ||
		len(img.Scram["alice"][znode.ScramSHA256].Salt) != 0 {
		t.Fatalf("read: %+v", img)
	}
	back, err := dualwrite.ReadImageJSON(bytes.NewReader(encode(t, img)))
	if err != nil {
		t.Fatal(err)
	}
	sameImage(t, img, back)
}

// Fault: none. A Sync looks only at the secrets it writes. Of an image
// read from a tree holding legacy secrets (a redacted password config, a
// credential without a salt, one of 1000 iterations), with a topic config
// added and bob's quota changed, it writes both: the redacted password
// and the saltless credential, which it leaves alone, are not looked at,
// and bob's legacy credential, which ZooKeeper holds, is written back as
// it is.
func TestSyncLeavesLegacySecretsAlone(t *testing.T) {
	c := newCluster(t)
	ctx := testContext(t)
	legacy := seedLegacySecrets(c)
	img, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := c.tree()
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "t"}] = map[string]string{"retention.ms": "1000"}
	img.ClientQuotas[dualwrite.QuotaEntity{User: "bob"}] = map[string]float64{znode.QuotaProducerByteRate: 1024}
	s, rep, err := c.c.Sync(ctx, at(c.s, 300), img)
	if err != nil || len(rep.Plan.Changes) != 2 {
		t.Fatalf("Sync: %v, plan %s", err, rep.Plan)
	}
	if got := c.config("/config/users/bob"); got[znode.ScramSHA512] != string(legacy.Encode()) || got[znode.QuotaProducerByteRate] != "1024" {
		t.Fatalf("bob's config %v", got)
	}
	if c.config("/config/topics/t")["retention.ms"] != "1000" {
		t.Fatal("the topic config was not written")
	}
	after := c.tree()
	for _, p := range []string{"/config/brokers/1", "/config/users/alice"} {
		if before[p] != after[p] {
			t.Fatalf("%s: was %+v, is %+v", p, before[p], after[p])
		}
	}
	c.checkState(s)
}

// Fault: none. Sync refuses, before a request is sent, an image whose
// password values are in a form its Client would store wrongly: plain
// ones without a password encoder, encoded ones with one. An image whose
// form matches its Client syncs to nothing but the checkpoint.
func TestSyncRefusesMismatchedPasswordForm(t *testing.T) {
	c := newCluster(t)
	pc, s, plain := seedSecrets(c)
	ctx := testContext(t)
	encoded, err := c.c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Secrets != dualwrite.SecretsPlain || encoded.Secrets != dualwrite.SecretsEncoded {
		t.Fatalf("read forms %q and %q", plain.Secrets, encoded.Secrets)
	}
	before := c.tree()
	c.faults.ResetCounts()
	for _, tc := range []struct {
		client *dualwrite.Client
		img    dualwrite.Image
		says   string
	}{{c.c, plain, "WithPasswordEncoder"}, {pc, encoded, "without WithPasswordEncoder"}} {
		_, _, err := tc.client.Sync(ctx, at(s, 300), tc.img)
		if !errors.Is(err, migrationzk.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("Sync of a %s image: %v", tc.img.Secrets, err)
		}
	}
	if n := c.faults.Requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	c.sameTree("after the mismatched Syncs", before, c.tree())
	for i, tc := range []struct {
		client *dualwrite.Client
		img    dualwrite.Image
	}{{pc, plain}, {c.c, encoded}} {
		var rep dualwrite.SyncReport
		var err error
		if s, rep, err = tc.client.Sync(ctx, at(s, int64(301+i)), tc.img); err != nil || !rep.Plan.Empty() {
			t.Fatalf("Sync of a %s image: %v, plan %s", tc.img.Secrets, err, rep.Plan)
		}
	}
	c.sameTree("after the matching Syncs", before, c.tree(), "/migration")
}

// TestImageRedacted checks that Redacted replaces every password config's
// value and every SCRAM credential but its iteration count, keeps the
// rest, marks the copy, and leaves the image it copies as it was.
func TestImageRedacted(t *testing.T) {
	img := passwordImage()
	img.Secrets = dualwrite.SecretsPlain
	img.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	img.Scram["nobody"] = nil
	red := img.Redacted()
	if red.Secrets != dualwrite.SecretsRedacted || img.Secrets != dualwrite.SecretsPlain {
		t.Fatalf("Secrets %q, of the original %q", red.Secrets, img.Secrets)
	}
	broker := red.Configs[brokerOne]
	if broker["listener.name.internal.ssl.key.password"] != dualwrite.RedactedValue || broker["log.cleaner.threads"] != "2" ||
		red.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "t"}]["sasl.jaas.config"] != dualwrite.RedactedValue {
		t.Fatalf("redacted configs %v", red.Configs)
	}
	if got := red.Scram["alice"][znode.ScramSHA256]; !got.Equal(znode.ScramCredential{Iterations: credential.Iterations}) || red.Scram["nobody"] != nil {
		t.Fatalf("redacted credentials %+v", red.Scram)
	}
	if img.Configs[brokerOne]["listener.name.internal.ssl.key.password"] != testKeyPassword || !img.Scram["alice"][znode.ScramSHA256].Equal(credential) {
		t.Fatal("Redacted changed the image it copies")
	}
	if len(red.Topics) != 1 || !dualwrite.Diff(red, red.Redacted()).Empty() {
		t.Fatalf("redacted twice differs, or topics lost: %+v", red)
	}
}

// Fault: none (pure). A password config or a SCRAM credential that
// changes shows as changed, never with its value, in text or JSON.
func TestDiffHidesSecrets(t *testing.T) {
	current, desired := fullImage(), fullImage()
	current.Configs[brokerOne]["listener.name.internal.ssl.keystore.password"] = "old-secret"
	desired.Configs[brokerOne] = map[string]string{"log.retention.hours": "1",
		"listener.name.internal.ssl.keystore.password": "new-secret", "ssl.key.password": "added-secret"}
	desired.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: sha512, znode.ScramSHA512: sha512}
	p := dualwrite.Diff(current, desired)
	want := "write-configs brokers/1\n    listener.name.internal.ssl.keystore.password: changed (secret)\n" +
		"    ssl.key.password: (none) -> (secret)\n" +
		"write-client-quotas users/alice\n    SCRAM-SHA-256: changed (secret)\n    SCRAM-SHA-512: (none) -> (secret)\n"
	text := p.String()
	if !strings.HasPrefix(text, want) {
		t.Fatalf("plan:\n%s\nwant\n%s", text, want)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"old-secret", "new-secret", "added-secret", "salt", "stored", "server", "8192", "4096"} {
		if strings.Contains(text, secret) || strings.Contains(string(data), secret) {
			t.Fatalf("%q shows in the plan:\n%s\n%s", secret, text, data)
		}
	}
	for _, f := range p.Changes[0].Fields {
		if !f.Secret {
			t.Fatalf("field %s is not marked secret", f.Field)
		}
	}
	checkJSONRoundTrip(t, p)
}
