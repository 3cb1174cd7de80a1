package passwordencoder

import (
	"fmt"
	"strings"
)

// The password.encoder.* settings of a Kafka controller or broker.
const (
	SecretConfig              = "password.encoder.secret"
	KeyFactoryAlgorithmConfig = "password.encoder.keyfactory.algorithm"
	CipherAlgorithmConfig     = "password.encoder.cipher.algorithm"
	KeyLengthConfig           = "password.encoder.key.length"
	IterationsConfig          = "password.encoder.iterations"
)

// DynamicPasswordConfigs returns the config names Kafka 3.9 treats as
// dynamic password configs: the broker configs of type PASSWORD that can
// be set dynamically (DynamicBrokerConfig.DynamicPasswordConfigs, the
// intersection of AllDynamicConfigs with KafkaConfig's PASSWORD keys).
func DynamicPasswordConfigs() []string {
	return []string{
		"ssl.keystore.password",
		"ssl.key.password",
		"ssl.truststore.password",
		"ssl.keystore.key",
		"ssl.keystore.certificate.chain",
		"ssl.truststore.certificates",
		"sasl.jaas.config",
	}
}

// IsPasswordConfig reports whether Kafka encodes the config name with its
// password encoder: whether name ends with one of DynamicPasswordConfigs
// (DynamicBrokerConfig.isPasswordConfig), so that listener overrides such
// as listener.name.internal.ssl.key.password count too. Kafka's migration
// applies the rule to broker and topic configs alike
// (ZkConfigMigrationClient).
func IsPasswordConfig(name string) bool {
	for _, suffix := range DynamicPasswordConfigs() {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// FromConfig returns the Encoder a Kafka controller with the given
// properties uses for ZooKeeper, or nil when password.encoder.secret is
// not set: Kafka's migration then writes and reads password configs as
// plain text. Values are trimmed as Kafka's config parser trims them;
// other keys are ignored.
func FromConfig(props map[string]string) (*Encoder, error) {
	secret, ok := props[SecretConfig]
	if !ok {
		return nil, nil
	}
	var opts []Option
	if v, ok := props[KeyFactoryAlgorithmConfig]; ok {
		opts = append(opts, WithKeyFactoryAlgorithm(javaTrim(v)))
	}
	if v, ok := props[CipherAlgorithmConfig]; ok {
		opts = append(opts, WithCipherAlgorithm(javaTrim(v)))
	}
	for _, s := range []struct {
		key string
		opt func(int) Option
	}{{KeyLengthConfig, WithKeyLength}, {IterationsConfig, WithIterations}} {
		v, ok := props[s.key]
		if !ok {
			continue
		}
		n, err := javaParseInt(javaTrim(v))
		if err != nil {
			return nil, fmt.Errorf("passwordencoder: %w: %s=%q: not a 32-bit integer", ErrInvalidSetting, s.key, v)
		}
		opts = append(opts, s.opt(n))
	}
	return New(javaTrim(secret), opts...)
}
