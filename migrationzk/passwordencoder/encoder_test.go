package passwordencoder

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestIsPasswordConfig follows Kafka 3.9's DynamicBrokerConfig.isPasswordConfig
// (core/src/main/scala/kafka/server/DynamicBrokerConfig.scala): a name is a
// password config when it ends with one of DynamicPasswordConfigs, the
// PASSWORD-typed KafkaConfig keys among AllDynamicConfigs (SslConfigs'
// RECONFIGURABLE_CONFIGS and DynamicListenerConfig's sasl.jaas.config).
// ZkConfigMigrationClient applies it to broker and topic configs.
func TestIsPasswordConfig(t *testing.T) {
	yes := []string{
		"ssl.keystore.password", "ssl.key.password", "ssl.truststore.password", "ssl.keystore.key",
		"ssl.keystore.certificate.chain", "ssl.truststore.certificates", "sasl.jaas.config",
		"listener.name.internal.ssl.key.password", "listener.name.sasl_ssl.plain.sasl.jaas.config",
		"xssl.key.password", "custom.ssl.truststore.password",
	}
	no := []string{
		"", "password", "ssl.keystore.location", "ssl.keystore.type", "sasl.jaas.config.x", "SSL.KEY.PASSWORD",
		"password.encoder.secret", "password.encoder.old.secret", "delegation.token.secret.key",
		"zookeeper.ssl.keystore.password.x", "sasl.login.callback.handler.class", "ssl.key.password ",
		"zookeeper.ssl.truststore.location", "retention.ms",
	}
	for _, name := range yes {
		if !IsPasswordConfig(name) {
			t.Errorf("IsPasswordConfig(%q) = false, want true", name)
		}
	}
	for _, name := range no {
		if IsPasswordConfig(name) {
			t.Errorf("IsPasswordConfig(%q) = true, want false", name)
		}
	}
}

func TestNewRefusesWhatKafkaCannotEncodeWith(t *testing.T) {
	cases := []struct {
		opts []Option
		want error
	}{
		{[]Option{WithKeyLength(64)}, ErrInvalidSetting},
		{[]Option{WithKeyLength(7)}, ErrInvalidSetting},
		{[]Option{WithKeyLength(136)}, ErrInvalidSetting},
		{[]Option{WithIterations(1023)}, ErrInvalidSetting},
		{[]Option{WithKeyFactoryAlgorithm("")}, ErrUnsupportedAlgorithm},
		{[]Option{WithKeyFactoryAlgorithm("PBKDF2WithHmacMD5")}, ErrUnsupportedAlgorithm},
		{[]Option{WithCipherAlgorithm("AES")}, ErrUnsupportedAlgorithm},
		{[]Option{WithCipherAlgorithm("AES/CTR/NoPadding")}, ErrUnsupportedAlgorithm},
		{[]Option{WithCipherAlgorithm("aes/gcm/nopadding")}, ErrUnsupportedAlgorithm},
		{[]Option{WithCipherAlgorithm("AES /CBC/PKCS5Padding")}, ErrUnsupportedAlgorithm},
		{[]Option{nil}, ErrInvalidSetting},
		{[]Option{nil}, ErrInvalidArgument},
		{[]Option{WithKeyLength(256), nil}, ErrInvalidArgument},
	}
	for _, c := range cases {
		if _, err := New("s", c.opts...); !errors.Is(err, c.want) {
			t.Errorf("New with %v: %v, want %v", c.opts, err, c.want)
		}
	}
	if _, err := New("\xff"); !errors.Is(err, ErrInvalidSetting) {
		t.Errorf("New with a non-UTF-8 secret: %v", err)
	}
	for _, ok := range [][]Option{nil, {WithKeyLength(135)}, {WithKeyLength(256), WithIterations(1024)},
		{WithCipherAlgorithm("AES/GCM/ nopadding")}} {
		if _, err := New("", ok...); err != nil {
			t.Errorf("New: %v", err)
		}
	}
}

func TestEncodeUsesAFreshSaltEachTime(t *testing.T) {
	for _, c := range []string{AESCBC, AESGCM} {
		enc, err := New("secret", WithCipherAlgorithm(c), WithIterations(MinIterations))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := enc.Encode("pw")
		b, _ := enc.Encode("pw")
		if a == b || field(a, fieldSalt) == field(b, fieldSalt) || field(a, fieldIV) == field(b, fieldIV) {
			t.Errorf("%s: two encodings share salt or IV:\n%s\n%s", c, a, b)
		}
		if len(field(a, fieldSalt)) != 344 { // 256 bytes in Base64
			t.Errorf("%s: salt %q", c, field(a, fieldSalt))
		}
	}
}

// field returns the value of name in an encoding.
func field(encoded, name string) string {
	m, _ := parseCSVMap(encoded)
	return m[name]
}

// TestErrorsAndPrintsHideSecrets checks that no error, String, %#v or log
// line shows the secret, the password or the encrypted password.
func TestErrorsAndPrintsHideSecrets(t *testing.T) {
	const secret, password = "s3cr3t-value", "p4ssw0rd-value"
	enc, err := New(secret, WithIterations(MinIterations))
	if err != nil {
		t.Fatal(err)
	}
	encoded, _ := enc.Encode(password)
	other, _ := New("other", WithIterations(MinIterations), WithCipherAlgorithm(AESGCM))
	var out strings.Builder
	log := slog.New(slog.NewTextHandler(&out, nil))
	log.Info("encoder", "enc", enc)
	fmt.Fprintf(&out, "%v %+v %#v %s\n", enc, enc, enc, enc)
	for _, in := range []string{password, "nocolon" + password, password + ":x", encoded, strings.Replace(encoded, "salt:", "salt:!", 1),
		strings.Replace(encoded, "keyLength:128", "keyLength:"+password, 1)} {
		for _, e := range []*Encoder{enc, other} {
			if _, err := e.Decode(in); err != nil {
				fmt.Fprintln(&out, err)
			}
		}
	}
	if _, err := enc.Encode("\xff" + password); err != nil {
		fmt.Fprintln(&out, err)
	}
	for _, leak := range []string{secret, password, field(encoded, fieldEncrypted)} {
		if strings.Contains(out.String(), leak) {
			t.Errorf("output shows %q:\n%s", leak, out.String())
		}
	}
	if !strings.Contains(out.String(), "redacted") || strings.Count(out.String(), "passwordencoder:") < 8 {
		t.Errorf("expected redacted prints and errors:\n%s", out.String())
	}
}

func TestDecodeErrors(t *testing.T) {
	enc, _ := New("secret", WithIterations(MinIterations))
	good, _ := enc.Encode("pw")
	cases := []struct {
		in   string
		want error
	}{
		{"plain text password", ErrMalformed},
		{"", ErrMalformed},
		{strings.Replace(good, "AES/CBC", "DES/CBC", 1), ErrUnsupportedAlgorithm},
		{strings.Replace(good, "PBKDF2WithHmacSHA512", "PBKDF2WithHmacMD5", 1), ErrUnsupportedAlgorithm},
		{strings.Replace(good, "passwordLength:2", "passwordLength:3", 1), ErrWrongSecret},
		{strings.Replace(good, "keyLength:128", "keyLength:64", 1), ErrMalformed},
		{strings.Replace(good, "iterations:1024", "iterations:0", 1), ErrMalformed},
	}
	for _, c := range cases {
		if _, err := enc.Decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("Decode(%q): %v, want %v", c.in, err, c.want)
		}
	}
	wrong, _ := New("wrong", WithIterations(MinIterations))
	if _, err := wrong.Decode(good); !errors.Is(err, ErrWrongSecret) {
		t.Errorf("wrong secret: %v", err)
	}
	if _, err := enc.Encode("\xff"); !errors.Is(err, ErrInvalidPassword) {
		t.Errorf("Encode of non-UTF-8: %v", err)
	}
}

func TestFromConfig(t *testing.T) {
	if enc, err := FromConfig(map[string]string{"ssl.key.password": "x"}); enc != nil || err != nil {
		t.Errorf("FromConfig without a secret = %v, %v; want nil, nil", enc, err)
	}
	enc, err := FromConfig(map[string]string{
		SecretConfig: " secret\t", CipherAlgorithmConfig: " AES/GCM/NoPadding ", KeyLengthConfig: " 256",
		IterationsConfig: "+2048", KeyFactoryAlgorithmConfig: "PBKDF2WithHmacSHA256 ",
	})
	if err != nil {
		t.Fatal(err)
	}
	if enc.cipher != AESGCM || enc.keyLength != 256 || enc.iterations != 2048 || enc.keyFactory != PBKDF2WithHmacSHA256 ||
		string(enc.secret) != "secret" {
		t.Errorf("FromConfig: %v", enc)
	}
	plain, _ := New("secret", WithCipherAlgorithm(AESGCM))
	encoded, _ := enc.Encode("pw")
	if got, err := plain.Decode(encoded); err != nil || got != "pw" {
		t.Errorf("a trimmed secret decodes: %q, %v", got, err)
	}
	for _, bad := range []map[string]string{
		{SecretConfig: "s", KeyLengthConfig: "12x"},
		{SecretConfig: "s", IterationsConfig: "10"},
		{SecretConfig: "s", KeyFactoryAlgorithmConfig: " "},
	} {
		if _, err := FromConfig(bad); err == nil {
			t.Errorf("FromConfig(%v) accepted", bad)
		}
	}
}

func TestNilEncoderIsPlainText(t *testing.T) {
	var enc *Encoder
	if got, err := enc.Encode("pw"); got != "pw" || err != nil {
		t.Errorf("nil Encode = %q, %v", got, err)
	}
	if got, err := enc.Decode("pw"); got != "pw" || err != nil {
		t.Errorf("nil Decode = %q, %v", got, err)
	}
	if _, err := enc.Encode("\xff"); !errors.Is(err, ErrInvalidPassword) {
		t.Errorf("nil Encode of non-UTF-8: %v", err)
	}
	if !strings.Contains(enc.String(), "plain text") {
		t.Errorf("nil String = %q", enc.String())
	}
}
