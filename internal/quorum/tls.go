package quorum

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/zktls"
)

// tlsKeys maps the TLS keys of a Kafka client to the ZooKeeper client
// keys of zktls, whose key store and trust store readers (JKS, PKCS#12,
// PEM) and protocol and cipher settings the client's take the same
// values as.
func tlsKeys() map[string]string {
	return map[string]string{
		"ssl.keystore.location":                 "zookeeper.ssl.keystore.location",
		"ssl.keystore.password":                 "zookeeper.ssl.keystore.password",
		"ssl.keystore.type":                     "zookeeper.ssl.keystore.type",
		"ssl.truststore.location":               "zookeeper.ssl.truststore.location",
		"ssl.truststore.password":               "zookeeper.ssl.truststore.password",
		"ssl.truststore.type":                   "zookeeper.ssl.truststore.type",
		"ssl.endpoint.identification.algorithm": "zookeeper.ssl.endpoint.identification.algorithm",
		"ssl.protocol":                          "zookeeper.ssl.protocol",
		"ssl.enabled.protocols":                 "zookeeper.ssl.enabled.protocols",
		"ssl.cipher.suites":                     "zookeeper.ssl.cipher.suites",
	}
}

// tlsDefault returns Kafka 3.9's client default of key k where it differs
// from ZooKeeper's client's.
func tlsDefault(k string) (string, bool) {
	switch k {
	case "ssl.keystore.type", "ssl.truststore.type":
		return "JKS", true
	case "ssl.protocol":
		return "TLSv1.3", true
	case "ssl.enabled.protocols":
		return "TLSv1.2,TLSv1.3", true
	}
	return "", false
}

// tlsConfig returns the TLS configuration of a Kafka client's ssl. keys,
// read by zktls; its errors name the client's keys.
func tlsConfig(props map[string]string) (*tls.Config, error) {
	zk := map[string]string{"zookeeper.ssl.client.enable": "true"}
	for k, zkKey := range tlsKeys() {
		v, ok := props[k]
		if !ok {
			v, ok = tlsDefault(k)
		}
		if ok {
			zk[zkKey] = v
		}
	}
	if kp, ok := props[keyKeyPassword]; ok && kp != props["ssl.keystore.password"] {
		return nil, &ConfigError{Key: keyKeyPassword, Err: fmt.Errorf("%w: a key password other than the keystore's", ErrUnsupported)}
	}
	config, err := zktls.FromProperties(zk)
	if err != nil {
		return nil, clientKeyError(err)
	}
	return config, nil
}

// clientKeyError returns err, a zktls error, as a *ConfigError naming the
// client's key rather than ZooKeeper's.
func clientKeyError(err error) error {
	var ze *zktls.Error
	if !errors.As(err, &ze) {
		return &ConfigError{Err: err}
	}
	key := ze.Key
	for k, zkKey := range tlsKeys() {
		if zkKey == ze.Key {
			key = k
		}
	}
	inner := ze.Err
	if ze.Store != "" {
		inner = fmt.Errorf("%s: %w", ze.Store, ze.Err)
	}
	return &ConfigError{Key: key, Err: replaceKeys(inner)}
}

// replaceKeys returns err with the ZooKeeper keys its text names (such as
// "set zookeeper.ssl.keystore.type=PKCS12") replaced by the client's.
func replaceKeys(err error) error {
	text := err.Error()
	replaced := text
	for k, zkKey := range tlsKeys() {
		replaced = strings.ReplaceAll(replaced, zkKey, k)
	}
	if replaced == text {
		return err
	}
	return &renamedError{text: replaced, err: err}
}

// renamedError shows text and wraps err, whose text it rewrites.
type renamedError struct {
	text string
	err  error
}

func (e *renamedError) Error() string { return e.text }
func (e *renamedError) Unwrap() error { return e.err }
