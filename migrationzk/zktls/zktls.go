// Package zktls reads the ZooKeeper client TLS properties that Kafka's
// tools take with --zk-tls-config-file, and makes the *tls.Config they
// describe, for zkconn.WithTLS.
//
// It is a package of its own so that programs which connect in plain text,
// or build their tls.Config themselves, do not link the keystore readers.
//
// The file uses Java properties syntax (ISO 8859-1, \uXXXX escapes, no
// ${} expansion, as java.util.Properties reads it). The keys are Kafka's:
//
//	zookeeper.ssl.client.enable                       true turns TLS on (default false)
//	zookeeper.clientCnxnSocket                        org.apache.zookeeper.ClientCnxnSocketNetty, which Kafka requires with TLS
//	zookeeper.ssl.keystore.location                   the client's key and certificate chain
//	zookeeper.ssl.keystore.password
//	zookeeper.ssl.keystore.type                       PEM, PKCS12 or JKS; by default from the file's extension (.pem, .p12, .jks)
//	zookeeper.ssl.truststore.location                 the CAs that sign servers' certificates; the system's when unset
//	zookeeper.ssl.truststore.password
//	zookeeper.ssl.truststore.type
//	zookeeper.ssl.endpoint.identification.algorithm  HTTPS (the default) verifies the server's host name; empty turns that off
//	zookeeper.ssl.protocol                            TLSv1.2 by default
//	zookeeper.ssl.enabled.protocols                   by default the protocol alone
//	zookeeper.ssl.cipher.suites                       Java's (IANA) names
//	zookeeper.ssl.ocsp.enable, zookeeper.ssl.crl.enable  false only: revocation checks are not supported
//
// The SASL settings (java.security.auth.login.config, java.security.krb5.conf,
// zookeeper.sasl.client, zookeeper.sasl.clientconfig,
// zookeeper.sasl.client.username, zookeeper.server.principal,
// zookeeper.sasl.client.canonicalize.hostname) may share the file; they are
// ignored here and read by zkconn/sasl's SettingsFromProperties.
//
// As Kafka's tools do, other keys are ignored, so that a broker's or a
// controller's server.properties may be given as it is; LoadFileIgnoring
// lists them. ZooKeeper's own client property names, such as
// zookeeper.ssl.hostnameVerification, are ignored too (Kafka's tools do not
// read them), and the list names the Kafka key to use instead. Any other
// key starting with zookeeper.ssl. is an error naming it, and the key it
// most likely misspells ("did you mean zookeeper.ssl.truststore.location?"):
// a misspelt key must not silently weaken the connection.
// A PEM keystore is Kafka's: an unencrypted PKCS#8 key ("BEGIN PRIVATE
// KEY") and the certificate chain; a key and its certificate in a JKS
// keystore are protected by the keystore's password, as ZooKeeper's client
// expects.
package zktls

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/magiconair/properties"
)

// Errors that an *Error wraps.
var (
	// ErrUnknownProperty: the key is none of the package's.
	ErrUnknownProperty = errors.New("unknown property")
	// ErrInvalidValue: the key's value is not one it takes.
	ErrInvalidValue = errors.New("invalid value")
	// ErrUnsupported: the setting is valid for Kafka but cannot be honoured
	// here, such as OCSP checks or a BCFKS keystore.
	ErrUnsupported = errors.New("not supported")
	// ErrWrongPassword: a keystore or truststore did not open with the
	// password given (or the file is corrupt: both fail the same check).
	ErrWrongPassword = errors.New("wrong password, or a corrupt file")
	// ErrMalformedStore: a keystore or truststore is not a valid store of
	// its type, or holds no usable key or certificates.
	ErrMalformedStore = errors.New("not a valid store of this type")
)

// Error reports a problem with the properties: with one key, or with the
// keystore or truststore file a key names.
type Error struct {
	// File is the properties file; empty for FromProperties.
	File string
	// Key is the property at fault; empty when the file itself is.
	Key string
	// Store is the keystore or truststore file at fault, if any.
	Store string
	Err   error
}

func (e *Error) Error() string {
	parts := []string{"zktls"}
	for _, p := range []string{e.File, e.Key, e.Store} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ") + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// LoadFile reads the properties file at path and returns the client TLS
// configuration it describes, or nil when it leaves TLS off
// (zookeeper.ssl.client.enable false or unset). Keys that are not Kafka's
// ZooKeeper client keys are ignored (see LoadFileIgnoring). Every error is
// an *Error naming path, and the key and store file at fault.
func LoadFile(path string) (*tls.Config, error) {
	config, _, err := LoadFileIgnoring(path)
	return config, err
}

// LoadFileIgnoring is LoadFile, and also returns the keys of the file it
// ignored, in sorted order.
func LoadFileIgnoring(path string) (*tls.Config, []IgnoredKey, error) {
	loader := &properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
	p, err := loader.LoadFile(path)
	if err != nil {
		return nil, nil, &Error{File: path, Err: err}
	}
	props := p.Map()
	config, err := FromProperties(props)
	var e *Error
	if errors.As(err, &e) {
		e.File = path
	}
	if err != nil {
		return nil, nil, err
	}
	return config, Ignored(props), nil
}

// IgnoredKey is a key that LoadFile and FromProperties ignore.
type IgnoredKey struct {
	Key string
	// Use is the Kafka key to use instead, when Key is ZooKeeper's own
	// name for one of Kafka's ZooKeeper client settings; empty otherwise.
	Use string
}

// Ignored returns the keys of props that FromProperties ignores, in sorted
// order: those that are not Kafka's ZooKeeper client keys, nor a misspelt
// key starting with zookeeper.ssl. (which FromProperties refuses).
func Ignored(props map[string]string) []IgnoredKey {
	var ignored []IgnoredKey
	for k := range props {
		if use, ok := kafkaKeyFor(k); ok {
			ignored = append(ignored, IgnoredKey{Key: k, Use: use})
		} else if !isKnownKey(k) && !strings.HasPrefix(k, sslPrefix) {
			ignored = append(ignored, IgnoredKey{Key: k})
		}
	}
	sort.Slice(ignored, func(i, j int) bool { return ignored[i].Key < ignored[j].Key })
	return ignored
}

// FromProperties returns the client TLS configuration that props, keys
// and values as read from a properties file, describe; see LoadFile.
// Values are trimmed of surrounding space, as Kafka trims them.
func FromProperties(props map[string]string) (*tls.Config, error) {
	if err := checkKeys(props); err != nil {
		return nil, err
	}
	s, err := parseSettings(trimmed(props))
	if err != nil || !s.enabled {
		return nil, err
	}
	return s.tlsConfig()
}

// checkKeys returns an *Error for the first key, in sorted order, that
// starts with zookeeper.ssl. and is neither Kafka's nor ZooKeeper's own
// name of a setting: a misspelling, of the key nearestKey names if any.
func checkKeys(props map[string]string) error {
	var unknown []string
	for k := range props {
		_, zooKeeperName := kafkaKeyFor(k)
		if strings.HasPrefix(k, sslPrefix) && !isKnownKey(k) && !zooKeeperName {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	if like := nearestKey(unknown[0]); like != "" {
		return &Error{Key: unknown[0], Err: fmt.Errorf("%w: did you mean %s?", ErrUnknownProperty, like)}
	}
	return &Error{Key: unknown[0], Err: ErrUnknownProperty}
}

func trimmed(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// tlsConfig builds the configuration of enabled settings.
func (s *settings) tlsConfig() (*tls.Config, error) {
	config := &tls.Config{MinVersion: s.minVersion, MaxVersion: s.maxVersion, CipherSuites: s.cipherSuites}
	if s.keystore.location != "" {
		cert, err := s.keystore.loadKeyStore()
		if err != nil {
			return nil, err
		}
		config.Certificates = []tls.Certificate{cert}
	}
	if s.truststore.location != "" {
		pool, err := s.truststore.loadTrustStore()
		if err != nil {
			return nil, err
		}
		config.RootCAs = pool
	}
	if !s.verifyHostname {
		config.InsecureSkipVerify = true
		config.VerifyConnection = verifyChainOnly(config.RootCAs)
	}
	return config, nil
}

// verifyChainOnly verifies the server's certificate chain against roots
// (the system's when nil) without checking the host name: what a Java
// client does when endpoint identification is off.
func verifyChainOnly(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("zktls: the server sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return fmt.Errorf("tls: failed to verify certificate: %w", err)
		}
		return nil
	}
}
