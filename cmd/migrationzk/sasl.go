package main

import (
	"fmt"

	"github.com/magiconair/properties"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
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
	settings, err := sasl.SettingsFromProperties(props)
	if err != nil {
		return nil, &saslConfigError{source: "--zk-tls-config-file " + a.g.tlsFile, err: err}
	}
	source := "--zk-tls-config-file " + a.g.tlsFile + " (" + sasl.PropJAASConfig + ")"
	if a.g.jaasFile != "" {
		settings.JAASFile, source = a.g.jaasFile, "--zk-jaas-config"
	}
	mech, err := settings.Mechanism()
	if err != nil {
		return nil, &saslConfigError{source: source, err: err}
	}
	if mech == nil {
		return nil, nil
	}
	return []zkconn.Option{zkconn.WithSASL(mech), zkconn.WithSASLLogger(a.logger())}, nil
}

// saslFailureText says what failed in a SASL exchange, for an operator.
func saslFailureText(se *sasl.Error) string {
	return fmt.Sprintf("SASL %s authentication with %s failed: %v (%v)", se.Mechanism, se.Server, se.Failure, se.Err)
}

// saslKind is the json error kind of a failed SASL exchange.
func saslKind(se *sasl.Error) string {
	switch se.Failure {
	case sasl.Rejected, sasl.Required:
		return kindCredentials
	case sasl.ClientFailure:
		return kindSASLConfig
	}
	return kindSASL
}
