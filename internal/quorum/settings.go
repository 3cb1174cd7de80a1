package quorum

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/magiconair/properties"
	"github.com/twmb/franz-go/pkg/sasl"
)

// Settings are how to reach the quorum: a Kafka client properties file,
// as kafka-metadata-quorum.sh takes it with --command-config, read.
type Settings struct {
	// Protocol is security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or
	// SASL_SSL.
	Protocol string
	// TLS is the TLS configuration, nil without TLS.
	TLS *tls.Config
	// SASL is the mechanism, nil without SASL.
	SASL sasl.Mechanism
	// Ignored are the keys of the file that do not concern the connection
	// (client.id, request.timeout.ms, ...), sorted.
	Ignored []string
}

// Security protocols, as Kafka names them.
const (
	protocolPlaintext     = "PLAINTEXT"
	protocolSSL           = "SSL"
	protocolSASLPlaintext = "SASL_PLAINTEXT"
	protocolSASLSSL       = "SASL_SSL"
)

// Errors that a *ConfigError wraps.
var (
	// ErrUnsupported: the setting is valid for Kafka but cannot be
	// honoured here.
	ErrUnsupported = errors.New("not supported")
	// ErrInvalidValue: the key's value is not one it takes.
	ErrInvalidValue = errors.New("invalid value")
	// ErrUnknownProperty: an ssl. or sasl. key Kafka's client does not
	// have: a misspelling must not silently weaken the connection.
	ErrUnknownProperty = errors.New("unknown property")
	// ErrMissing: a setting the security protocol needs is missing.
	ErrMissing = errors.New("missing")
)

// ConfigError is a client properties file that cannot be used. Its text
// never quotes a password or the JAAS configuration.
type ConfigError struct {
	// File is the properties file; empty for FromProperties.
	File string
	// Key is the property at fault, if one is.
	Key string
	Err error
}

func (e *ConfigError) Error() string {
	parts := []string{}
	for _, p := range []string{e.File, e.Key} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return e.Err.Error()
	}
	return strings.Join(parts, ": ") + ": " + e.Err.Error()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// LoadFile reads a Kafka client properties file (Java properties,
// ISO 8859-1, no ${} expansion) and returns the settings it describes.
// Every error is a *ConfigError naming path.
func LoadFile(path string) (Settings, error) {
	loader := &properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
	p, err := loader.LoadFile(path)
	if err != nil {
		return Settings{}, &ConfigError{File: path, Err: err}
	}
	s, err := FromProperties(p.Map())
	var ce *ConfigError
	if errors.As(err, &ce) {
		ce.File = path
	}
	return s, err
}

// FromProperties returns the settings of a Kafka client's properties,
// keys and values as read from a file, values trimmed as Kafka trims
// them:
//
//	security.protocol                      PLAINTEXT (default), SSL, SASL_PLAINTEXT or SASL_SSL
//	ssl.keystore.location, .password, .type  the client's key and chain: JKS (Kafka's default), PKCS12 or PEM
//	ssl.key.password                       only as the keystore's own password
//	ssl.truststore.location, .password, .type  the CAs of the servers' certificates; the system's when unset
//	ssl.endpoint.identification.algorithm  https (the default) verifies the server's host name; empty turns that off
//	ssl.protocol, ssl.enabled.protocols, ssl.cipher.suites
//	sasl.mechanism                         GSSAPI (Kafka's default), PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
//	sasl.jaas.config                       one login module: PlainLoginModule, ScramLoginModule or Krb5LoginModule
//	sasl.kerberos.service.name             the brokers' and controllers' Kerberos service name, for GSSAPI
//
// Keys that tune what a one-request client does not do (ticket renewal,
// login refresh, key manager algorithms) are accepted and ignored; so are
// keys outside ssl., sasl. and security., listed in Settings.Ignored.
// Other ssl. and sasl. keys are errors naming the key.
func FromProperties(props map[string]string) (Settings, error) {
	props = trimmed(props)
	if err := checkKeys(props); err != nil {
		return Settings{}, err
	}
	s := Settings{Protocol: strings.ToUpper(props[keyProtocol]), Ignored: ignoredKeys(props)}
	if s.Protocol == "" {
		s.Protocol = protocolPlaintext
	}
	var err error
	switch s.Protocol {
	case protocolPlaintext:
	case protocolSSL:
		s.TLS, err = tlsConfig(props)
	case protocolSASLPlaintext:
		s.SASL, err = mechanism(props)
	case protocolSASLSSL:
		if s.TLS, err = tlsConfig(props); err == nil {
			s.SASL, err = mechanism(props)
		}
	default:
		err = &ConfigError{Key: keyProtocol, Err: fmt.Errorf("%w %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", ErrInvalidValue, props[keyProtocol])}
	}
	if err != nil {
		return Settings{}, err
	}
	return s, nil
}

// The keys this package reads.
const (
	keyProtocol    = "security.protocol"
	keyKeyPassword = "ssl.key.password"
	keyMechanism   = "sasl.mechanism"
	keyJAAS        = "sasl.jaas.config"
	keyServiceName = "sasl.kerberos.service.name"
)

// acceptedIgnored reports whether k is an ssl. or sasl. key that tunes
// what this client does not do: accepted, it changes nothing.
func acceptedIgnored(k string) bool {
	switch k {
	case "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm", "ssl.secure.random.implementation", "ssl.provider",
		"sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.ticket.renew.jitter",
		"sasl.kerberos.ticket.renew.window.factor", "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter",
		"sasl.login.refresh.min.period.seconds", "sasl.login.refresh.buffer.seconds", "sasl.login.connect.timeout.ms",
		"sasl.login.read.timeout.ms", "sasl.login.retry.backoff.ms", "sasl.login.retry.backoff.max.ms":
		return true
	}
	return false
}

// unsupported returns why k, a key of Kafka's client, changes the
// connection in a way not supported here, and what to do instead.
func unsupported(k string) (string, bool) {
	switch k {
	case "ssl.keystore.key":
		return "a PEM key given inline; put it in a file named by ssl.keystore.location (type PEM)", true
	case "ssl.keystore.certificate.chain":
		return "a PEM chain given inline; put it in a file named by ssl.keystore.location (type PEM)", true
	case "ssl.truststore.certificates":
		return "PEM certificates given inline; put them in a file named by ssl.truststore.location (type PEM)", true
	case "ssl.engine.factory.class":
		return "a custom SSL engine factory", true
	case "sasl.client.callback.handler.class":
		return "a custom SASL callback handler", true
	case "sasl.login.callback.handler.class":
		return "a custom login callback handler", true
	case "sasl.login.class":
		return "a custom login class", true
	}
	return "", false
}

// isKnown reports whether k is a key this package reads or accepts.
func isKnown(k string) bool {
	if _, ok := tlsKeys()[k]; ok {
		return true
	}
	switch k {
	case keyProtocol, keyKeyPassword, keyMechanism, keyJAAS, keyServiceName:
		return true
	}
	return acceptedIgnored(k)
}

// checkKeys refuses, in sorted order, an unsupported key and an ssl. or
// sasl. key Kafka's client does not have.
func checkKeys(props map[string]string) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if why, ok := unsupported(k); ok {
			return &ConfigError{Key: k, Err: fmt.Errorf("%w: %s", ErrUnsupported, why)}
		}
		if (strings.HasPrefix(k, "ssl.") || strings.HasPrefix(k, "sasl.") || strings.HasPrefix(k, "security.")) && !isKnown(k) {
			if strings.HasPrefix(k, "sasl.oauthbearer.") {
				return &ConfigError{Key: k, Err: fmt.Errorf("%w: OAUTHBEARER", ErrUnsupported)}
			}
			return &ConfigError{Key: k, Err: ErrUnknownProperty}
		}
	}
	return nil
}

// ignoredKeys returns the keys outside ssl., sasl. and security., sorted.
func ignoredKeys(props map[string]string) []string {
	var out []string
	for k := range props {
		if !strings.HasPrefix(k, "ssl.") && !strings.HasPrefix(k, "sasl.") && !strings.HasPrefix(k, "security.") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func trimmed(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = strings.TrimSpace(v)
	}
	return out
}
