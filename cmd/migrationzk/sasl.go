package main

import (
	"fmt"

	"github.com/magiconair/properties"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// saslConfigError is a JAAS file or SASL setting that cannot be used.
type saslConfigError struct {
	source string // the flag or file the setting came from
	err    error
}

func (e *saslConfigError) Error() string { return e.source + ": " + e.err.Error() }
func (e *saslConfigError) Unwrap() error { return e.err }

// saslOptions returns the zkconn options of SASL: the JAAS file of
// --zk-jaas-config, else of java.security.auth.login.config in the
// --zk-tls-config-file properties, with the zookeeper.sasl.* settings of
// those properties, as a Kafka tool takes them as system properties. The
// JAAS file is read and checked here, before any connection.
func (a *app) saslOptions() ([]zkconn.Option, error) {
	props := map[string]string{}
	if a.g.tlsFile != "" {
		loader := &properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
		p, err := loader.LoadFile(a.g.tlsFile)
		if err != nil {
			return nil, &tlsConfigError{err: err}
		}
		props = p.Map()
	}
	settings, err := zkconn.SASLSettingsFromProperties(props)
	if err != nil {
		return nil, &saslConfigError{source: "--zk-tls-config-file " + a.g.tlsFile, err: err}
	}
	source := "--zk-tls-config-file " + a.g.tlsFile + " (" + zkconn.PropJAASConfig + ")"
	if a.g.jaasFile != "" {
		settings.JAASFile, source = a.g.jaasFile, "--zk-jaas-config"
	}
	if settings.JAASFile == "" || settings.Disabled {
		return nil, nil
	}
	if _, err := zkconn.SASLDialer(nil, sessionTimeout, zkconn.WithSASLSettings(settings)); err != nil {
		return nil, &saslConfigError{source: source, err: err}
	}
	return []zkconn.Option{zkconn.WithSASLSettings(settings), zkconn.WithSASLLogger(a.logger())}, nil
}

// saslFailureText says what failed in a SASL exchange, for an operator.
func saslFailureText(se *zkconn.SASLError) string {
	return fmt.Sprintf("SASL %s authentication with %s failed: %v (%v)", se.Mechanism, se.Server, se.Failure, se.Err)
}

// saslKind is the json error kind of a failed SASL exchange.
func saslKind(se *zkconn.SASLError) string {
	switch se.Failure {
	case zkconn.SASLRejected, zkconn.SASLRequired:
		return kindCredentials
	case zkconn.SASLClientFailure:
		return kindSASLConfig
	}
	return kindSASL
}
