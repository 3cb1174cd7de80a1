package quorum_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/quorum"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// TestSettings reads Kafka client properties as kafka-metadata-quorum.sh
// takes them: what each security protocol needs, the keys it accepts,
// ignores or refuses, and errors that name the key but never a password
// or the JAAS text.
// Faults: misspelt, unsupported and missing keys; a JAAS value for
// another mechanism; a keystore of another type than its key says.
func TestSettings(t *testing.T) {
	f := newFiles(t)
	ca, err := zktest.NewCertAuthority("settings CA")
	if err != nil {
		t.Fatal(err)
	}
	caPEM := f.write("ca.pem", ca.CertPEM())
	const secret = "s3cret-never-shown"
	plainJAAS := `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="` + secret + `";`

	ok := []struct {
		name          string
		props         map[string]string
		tls, sasl     bool
		ignored       string
		mechanismName string
	}{
		{"empty", nil, false, false, "", ""},
		{"plaintext with other keys", map[string]string{"security.protocol": "plaintext", "client.id": "x", "request.timeout.ms": "1000"}, false, false, "client.id,request.timeout.ms", ""},
		{"ssl, system CAs", map[string]string{"security.protocol": "SSL"}, true, false, "", ""},
		{"ssl, PEM truststore", map[string]string{"security.protocol": "SSL", "ssl.truststore.location": caPEM, "ssl.truststore.type": "PEM", "ssl.keymanager.algorithm": "SunX509"}, true, false, "", ""},
		{"sasl plain", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": strings.TrimPrefix(plainJAAS, "sasl.jaas.config=")}, false, true, "", "PLAIN"},
		{"sasl scram over tls", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "ssl.truststore.location": caPEM, "ssl.truststore.type": "PEM",
			"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="x";`}, true, true, "", "SCRAM-SHA-512"},
	}
	for _, tc := range ok {
		s, err := quorum.FromProperties(tc.props)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if (s.TLS != nil) != tc.tls || (s.SASL != nil) != tc.sasl || strings.Join(s.Ignored, ",") != tc.ignored {
			t.Errorf("%s: TLS %v, SASL %v, ignored %q", tc.name, s.TLS != nil, s.SASL != nil, s.Ignored)
		}
		if tc.sasl && s.SASL.Name() != tc.mechanismName {
			t.Errorf("%s: mechanism %s", tc.name, s.SASL.Name())
		}
		if tc.tls && (s.TLS.MinVersion != 0x0303 || s.TLS.MaxVersion != 0x0304) {
			t.Errorf("%s: TLS versions %x to %x, want Kafka's TLSv1.2 and TLSv1.3", tc.name, s.TLS.MinVersion, s.TLS.MaxVersion)
		}
	}

	bad := []struct {
		name    string
		props   map[string]string
		key     string
		wantErr error
		say     string
	}{
		{"protocol", map[string]string{"security.protocol": "SASL"}, "security.protocol", quorum.ErrInvalidValue, "want PLAINTEXT"},
		{"misspelt", map[string]string{"ssl.truststore.locaton": caPEM}, "ssl.truststore.locaton", quorum.ErrUnknownProperty, ""},
		{"inline PEM", map[string]string{"ssl.keystore.key": "-----BEGIN"}, "ssl.keystore.key", quorum.ErrUnsupported, "ssl.keystore.location"},
		{"oauthbearer", map[string]string{"sasl.oauthbearer.token.endpoint.url": "https://x"}, "sasl.oauthbearer.token.endpoint.url", quorum.ErrUnsupported, "OAUTHBEARER"},
		{"key password", map[string]string{"security.protocol": "SSL", "ssl.keystore.password": secret, "ssl.key.password": secret + "2"}, "ssl.key.password", quorum.ErrUnsupported, ""},
		{"default JKS of a PEM file", map[string]string{"security.protocol": "SSL", "ssl.truststore.location": caPEM}, "ssl.truststore.location", nil, "set ssl.truststore.type=PEM"},
		{"no JAAS", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}, "sasl.jaas.config", quorum.ErrMissing, "sasl.jaas.config in the file"},
		{"JAAS of another mechanism", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": strings.TrimPrefix(plainJAAS, "sasl.jaas.config=")}, "sasl.jaas.config", quorum.ErrInvalidValue, "does not do SCRAM-SHA-256"},
		{"two modules", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": strings.Repeat(strings.TrimPrefix(plainJAAS, "sasl.jaas.config=")+" ", 2)}, "sasl.jaas.config", quorum.ErrInvalidValue, "2 login modules"},
		{"unterminated", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="` + secret + `"`}, "sasl.jaas.config", quorum.ErrInvalidValue, ""},
		{"no password", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="a";`}, "sasl.jaas.config", quorum.ErrMissing, "username and password"},
		{"GSSAPI by default, no service name", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": `com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k" principal="p";`}, "sasl.kerberos.service.name", quorum.ErrMissing, ""},
		{"unknown mechanism", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER", "sasl.jaas.config": "x required;"}, "sasl.mechanism", quorum.ErrUnsupported, ""},
	}
	for _, tc := range bad {
		_, err := quorum.FromProperties(tc.props)
		var ce *quorum.ConfigError
		switch {
		case !errors.As(err, &ce) || ce.Key != tc.key:
			t.Errorf("%s: %v, want an error of key %s", tc.name, err, tc.key)
		case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.wantErr)
		case !strings.Contains(err.Error(), tc.say):
			t.Errorf("%s: %q lacks %q", tc.name, err, tc.say)
		case strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "alice"):
			t.Errorf("%s: %q shows a credential", tc.name, err)
		}
	}

	_, err = quorum.LoadFile(f.properties("security.protocol=SSL", "ssl.truststore.location="+f.dir+"/missing.jks"))
	var ce *quorum.ConfigError
	if !errors.As(err, &ce) || !strings.HasSuffix(ce.File, "client.properties") || ce.Key != "ssl.truststore.location" {
		t.Fatalf("a missing truststore: %v", err)
	}
}

// TestGSSAPITicket takes GSSAPI up to the service ticket: the mechanism
// sasl.jaas.config's Krb5LoginModule describes logs in from a keytab, or
// from a ticket cache, at the project's KDC, gets a ticket for
// kafka/localhost and makes the first SASL message, the AP-REQ. No Kafka
// server here speaks Kerberos (kfake has none), so the exchange with a
// broker is not tested.
// Faults: a keytab whose principal the KDC does not know.
func TestGSSAPITicket(t *testing.T) {
	realm := zktest.StartRealm(t)
	t.Setenv("KRB5_CONFIG", realm.Krb5Conf())
	keytab, err := realm.AddPrincipal("monitor")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := realm.AddPrincipal("kafka/localhost"); err != nil {
		t.Fatal(err)
	}
	ccache, err := realm.Kinit("monitor", keytab)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct{ name, options string }{
		{"keytab", fmt.Sprintf(`useKeyTab=true storeKey=true keyTab="%s" principal="%s"`, keytab, realm.Principal("monitor"))},
		{"ticket cache", fmt.Sprintf(`useTicketCache=true ticketCache="%s"`, ccache)},
	} {
		s, err := quorum.FromProperties(map[string]string{
			"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
			"sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required " + tc.options + ";",
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		session, first, err := s.SASL.Authenticate(ctx, "localhost:9093")
		if err != nil || session == nil || len(first) < 100 || first[0] != 0x60 {
			t.Fatalf("%s: GSSAPI's first message: %d bytes, %v", tc.name, len(first), err)
		}
	}

	other, err := realm.AddPrincipal("gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := realm.DeletePrincipal("gone"); err != nil {
		t.Fatal(err)
	}
	s, err := quorum.FromProperties(map[string]string{
		"security.protocol": "SASL_PLAINTEXT", "sasl.kerberos.service.name": "kafka",
		"sasl.jaas.config": fmt.Sprintf(`com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="%s" principal="gone";`, other),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SASL.Authenticate(ctx, "localhost:9093"); err == nil {
		t.Fatal("a principal the KDC does not know logged in")
	}
}
