package main

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/zkerr"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// Kinds of error in the json output's "error_kind".
const (
	kindUsage         = "usage"
	kindTLSConfig     = "tls_config"
	kindTLS           = "tls"
	kindCredentials   = "bad_credentials"
	kindNotAuthorized = "not_authorized"
	kindUnreachable   = "unreachable"
	kindNoKafka       = "no_kafka_metadata"
	kindSASLConfig    = "sasl_config"
	kindSASL          = "sasl"
)

// connectError is a failure to get a session with ZooKeeper.
type connectError struct {
	servers string
	timeout time.Duration
	err     error
}

func (e *connectError) Unwrap() error { return e.err }

func (e *connectError) Error() string {
	var he *zkconn.HandshakeError
	var ae *zkconn.AuthError
	var se *sasl.Error
	var dns *net.DNSError
	var mismatch *zkconn.TLSMismatchError
	switch {
	case errors.As(e.err, &mismatch) && mismatch.ServerSpeaksTLS:
		return fmt.Sprintf("ZooKeeper at %s: the server speaks TLS on this port (secureClientPort); pass --zk-tls-config-file", mismatch.Server)
	case errors.As(e.err, &mismatch):
		return fmt.Sprintf("ZooKeeper at %s: the server speaks plaintext on this port (clientPort), and --zk-tls-config-file turns TLS on: "+
			"give --zk the servers' secureClientPort, or leave --zk-tls-config-file out", mismatch.Server)
	case errors.As(e.err, &he):
		return fmt.Sprintf("TLS handshake with %s failed: %s: %s", he.Server, handshakeKind(he.Failure), he.Failure)
	case errors.As(e.err, &se):
		return saslFailureText(se)
	case errors.As(e.err, &ae):
		return fmt.Sprintf("bad credentials: ZooKeeper at %s refused the %s credentials: %v", e.servers, ae.Scheme, ae.Err)
	case errors.Is(e.err, syscall.ECONNREFUSED):
		return fmt.Sprintf("cannot reach ZooKeeper at %s: connection refused (%v)", e.servers, e.err)
	case errors.As(e.err, &dns):
		return fmt.Sprintf("cannot reach ZooKeeper at %s: unknown host %s (%v)", e.servers, dns.Name, e.err)
	}
	return fmt.Sprintf("cannot reach ZooKeeper at %s within %v: %v", e.servers, e.timeout, e.err)
}

// handshakeKind names a TLS failure in a few words.
func handshakeKind(f zkconn.HandshakeFailure) string {
	switch f {
	case zkconn.UntrustedServerCertificate:
		return "untrusted certificate"
	case zkconn.ServerHostnameMismatch:
		return "hostname mismatch"
	case zkconn.ExpiredServerCertificate:
		return "expired server certificate"
	case zkconn.MissingClientCertificate:
		return "no client certificate"
	case zkconn.RejectedClientCertificate:
		return "client certificate rejected"
	case zkconn.ExpiredClientCertificate:
		return "expired client certificate"
	}
	return "TLS error"
}

// tlsConfigError is a --zk-tls-config-file that cannot be used.
type tlsConfigError struct{ err error }

func (e *tlsConfigError) Error() string { return "--zk-tls-config-file: " + e.err.Error() }
func (e *tlsConfigError) Unwrap() error { return e.err }

// credentialsError is digest credentials that name no identity allowed to
// write the control znodes.
type credentialsError struct {
	user, source string
	err          error
}

func (e *credentialsError) Unwrap() error { return e.err }

func (e *credentialsError) Error() string {
	path := "the control znodes"
	var nae *migrationzk.NotAuthorizedError
	if errors.As(e.err, &nae) {
		path = nae.Path
	}
	return fmt.Sprintf("bad credentials: digest user %q (from %s) may not write %s: a wrong password "+
		"(ZooKeeper accepts any password and only refuses the requests), or a user the ACLs do not grant", e.user, e.source, path)
}

// noKafkaError says that no Kafka metadata is under the root.
type noKafkaError struct {
	root     string
	exists   bool
	children []string
}

func (e *noKafkaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no Kafka metadata found under %s", e.root)
	if !e.exists {
		fmt.Fprintf(&b, ": %s does not exist", e.root)
	} else {
		b.WriteString(": it has no brokers/topics, brokers/ids, cluster/id or controller_epoch")
		if len(e.children) > 0 {
			const show = 10
			list := e.children[:min(show, len(e.children))]
			fmt.Fprintf(&b, " (its children: %s", strings.Join(list, ", "))
			if len(e.children) > show {
				fmt.Fprintf(&b, ", and %d more", len(e.children)-show)
			}
			b.WriteString(")")
		}
	}
	b.WriteString("; is --root right? (Kafka's chroot, as zookeeper.connect gives it: host:2181/kafka)")
	return b.String()
}

// describe returns the kind of err for the json output and the message
// that says what failed.
func describe(err error) (kind, message string) {
	var ue usageError
	var ce *connectError
	var te *tlsConfigError
	var cre *credentialsError
	var nke *noKafkaError
	var nae *migrationzk.NotAuthorizedError
	var he *zkconn.HandshakeError
	var sce *saslConfigError
	var se *sasl.Error
	var ke kindedError
	switch {
	case errors.As(err, &ke):
		return ke.errorKind(), err.Error()
	case errors.As(err, &ue):
		return kindUsage, err.Error()
	case errors.As(err, &te):
		return kindTLSConfig, err.Error()
	case errors.As(err, &sce):
		return kindSASLConfig, err.Error()
	case errors.As(err, &ce) && errors.As(err, &se):
		return saslKind(se), err.Error()
	case errors.As(err, &cre):
		return kindCredentials, err.Error()
	case errors.As(err, &nke):
		return kindNoKafka, err.Error()
	case errors.As(err, &ce) && (errors.As(err, &he) || errors.As(err, new(*zkconn.TLSMismatchError))):
		return kindTLS, err.Error()
	case errors.As(err, &ce) && errors.Is(err, migrationzk.ErrAuthFailed), errors.As(err, new(*zkconn.AuthError)):
		return kindCredentials, err.Error()
	case errors.As(err, &ce):
		return kindUnreachable, err.Error()
	case errors.As(err, &nae):
		return kindNotAuthorized, fmt.Sprintf("not authorized for path %s: ZooKeeper refused %s to this client's identities "+
			"(the x509 subject of its certificate, the SASL user, the digest user); authenticate as one the znode's ACL grants, or as a super user (%v)", nae.Path, nae.Op, err)
	case authRequired(err):
		return kindCredentials, "bad credentials: the server requires authentication (enforce.auth.enabled) by a scheme this client did not use, such as SASL: " +
			"give a Kafka JAAS file for SASL (--zk-jaas-config), digest credentials (--zk-digest-file or $" + digestEnv + "), " +
			"or a client certificate if the server counts x509 (" + err.Error() + ")"
	case errors.Is(err, migrationzk.ErrAuthFailed), errors.Is(err, zk.ErrAuthFailed):
		return kindCredentials, "bad credentials: " + err.Error()
	}
	return "", err.Error()
}

// authRequired reports whether err or an error it wraps, alone or among
// several, is ZooKeeper's refusal of a request sent before authenticating.
func authRequired(err error) bool {
	if err == nil {
		return false
	}
	if zkerr.IsAuthRequired(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if authRequired(e) {
				return true
			}
		}
		return false
	}
	return authRequired(errors.Unwrap(err))
}

// errorReport is the json output of a command that failed before it had
// a report of its own.
type errorReport struct {
	header
	Error string `json:"error"`
	// Kind says what failed: usage, tls_config, tls, sasl_config, sasl, bad_credentials,
	// not_authorized, unreachable, no_kafka_metadata; absent otherwise.
	Kind string `json:"error_kind,omitempty"`
}

// header is the start of every json report.
type header struct {
	Schema    int    `json:"schema_version"`
	Command   string `json:"command"`
	ZooKeeper string `json:"zookeeper"`
	Root      string `json:"root"`
}

func (a *app) header() header {
	return header{Schema: schemaVersion, Command: a.cmd, ZooKeeper: a.g.zk, Root: a.g.root}
}

// fail reports an error and returns exitError: on stderr, and in json
// mode as the header, "error" and "error_kind" on the json output, so that
// a consumer always reads valid JSON. When the json output is stderr
// (export writing its image to stdout), it alone goes there.
func (a *app) fail(err error) int {
	kind, msg := describe(err)
	if !a.json() || a.jsonOut != a.stderr {
		fmt.Fprintf(a.stderr, "migrationzk %s: %s\n", a.cmd, msg)
	}
	if a.json() {
		a.emitJSON(errorReport{header: a.header(), Error: msg, Kind: kind})
	}
	return exitError
}

// warn reports an error on stderr and returns its kind and message, as
// describe does.
func (a *app) warn(err error) (kind, message string) {
	kind, message = describe(err)
	fmt.Fprintf(a.stderr, "migrationzk %s: %s\n", a.cmd, message)
	return kind, message
}
