package zktest

import (
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/zkserver"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// ClientAuth is how a TLS server asks for client certificates, as
// ZooKeeper's ssl.clientAuth.
type ClientAuth string

// The values of ssl.clientAuth.
const (
	// ClientAuthNeed refuses clients without a certificate the server
	// trusts. It is the default.
	ClientAuthNeed ClientAuth = "need"
	// ClientAuthWant asks for a certificate and admits clients without.
	ClientAuthWant ClientAuth = "want"
	// ClientAuthNone asks for none; clients get no x509 identity.
	ClientAuthNone ClientAuth = "none"
)

// DefaultClientDN is the subject of the client certificate a server
// started WithTLS issues for Connect (see Security.ClientCertificate), as
// Certificate.DN prints it: the client's x509 identity.
const DefaultClientDN = "CN=zktest-client,OU=clients,O=zktest"

func defaultClientSubject() pkix.Name {
	return pkix.Name{CommonName: "zktest-client", OrganizationalUnit: []string{"clients"}, Organization: []string{"zktest"}}
}

// WithTLS makes started servers serve clients over TLS only, on their
// client port (secureClientPort, through Netty), with certificates made
// when they start: a CA, a server certificate for 127.0.0.1 and
// localhost, and a client certificate (DefaultClientDN) that Connect
// presents. Clients need a certificate the CA signed (see WithClientAuth),
// and get its subject as their x509 identity. Security options need a
// server zktest starts: with them, Start and NewServer ignore ZK_SERVERS.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// WithClientAuth sets how a TLS server asks for client certificates; it
// implies WithTLS.
func WithClientAuth(mode ClientAuth) Option {
	return func(o *options) { o.tls, o.clientAuth = true, mode }
}

// WithServerHosts makes the server's certificate valid for hosts (DNS names
// and IP addresses) instead of 127.0.0.1 and localhost, so that clients
// dialling 127.0.0.1 see a certificate for the wrong host. It implies
// WithTLS.
func WithServerHosts(hosts ...string) Option {
	return func(o *options) { o.tls, o.serverHosts = true, append([]string(nil), hosts...) }
}

// WithExpiredServerCertificate makes the server present a certificate
// whose validity ended an hour ago. It implies WithTLS.
func WithExpiredServerCertificate() Option {
	return func(o *options) { o.tls, o.expiredServerCert = true, true }
}

// WithX509SuperUser makes the client whose certificate has subject dn (as
// Certificate.DN prints it) a super user, whom no ACL denies
// (X509AuthenticationProvider.superUser). It implies WithTLS.
func WithX509SuperUser(dn string) Option {
	return func(o *options) { o.tls, o.x509SuperUser = true, dn }
}

// WithDigestSuperUser makes the digest user user with password a super
// user, whom no ACL denies (DigestAuthenticationProvider.superDigest); see
// Security.SuperUser. Other digest users need no configuration: the
// server accepts any user:password, and the ACLs decide.
func WithDigestSuperUser(user, password string) Option {
	return func(o *options) { o.superUser, o.superPassword = user, password }
}

// WithAuthEnforced makes the server refuse every request of a connection
// that has not authenticated with one of schemes ("digest" when none are
// given; "x509" counts a TLS client certificate): enforce.auth.enabled. The
// server answers such a request, pings included, with error -124 and
// closes the connection. Authenticate with zkconn.WithDigest through
// ConnectWith.
func WithAuthEnforced(schemes ...string) Option {
	if len(schemes) == 0 {
		schemes = []string{"digest"}
	}
	return func(o *options) { o.enforce = append([]string(nil), schemes...) }
}

// WithSetting adds key=value to the zoo.cfg of started servers, after the
// settings zktest writes, such as "ssl.protocol": "TLSv1.3". ZooKeeper
// makes keys it does not know system properties prefixed "zookeeper.".
// Like the security options, it makes Start and NewServer ignore
// ZK_SERVERS.
func WithSetting(key, value string) Option {
	return func(o *options) {
		if o.settings == nil {
			o.settings = map[string]string{}
		}
		o.settings[key] = value
	}
}

func (o options) secured() bool {
	return o.tls || o.superUser != "" || o.enforce != nil || o.settings != nil || o.sasl != nil || o.saslEnforced
}

// Security is what a client needs to reach and authenticate to a server or
// ensemble started with security options; Server and Ensemble embed it.
// Without them its methods return the plain-text defaults.
type Security struct {
	ca                       *CertAuthority
	client                   *Certificate
	superUser, superPassword string
	enforced                 bool
	saslClient               func() (sasl.Mechanism, error) // how Connect authenticates with SASL
	saslUser, saslPassword   string
	saslServer               *saslServer // the server side, for SetSASLDigestPassword
	saslDir                  string      // holds the server's JAAS file
}

// CA returns the CA that signed the server's certificate and that the
// server trusts for client certificates, or nil without TLS. Issue
// client certificates for chosen subjects with CA().Issue and use them
// with CA().ClientConfig.
func (s *Security) CA() *CertAuthority { return s.ca }

// ClientCertificate returns the client certificate Connect presents, for
// DefaultClientDN, or nil without TLS.
func (s *Security) ClientCertificate() *Certificate { return s.client }

// ClientTLS returns a TLS client configuration that trusts the server and
// presents ClientCertificate, or nil without TLS.
func (s *Security) ClientTLS() *tls.Config {
	if s.ca == nil {
		return nil
	}
	return s.ca.ClientConfig(s.client)
}

// Dialer returns the dialer Connect uses: zkconn.TLSDialer with ClientTLS
// for a TLS server, else net.DialTimeout with zkconn's handshake bound.
// Make it the Dialer of a FaultDialer to inject faults over TLS.
func (s *Security) Dialer() zk.Dialer {
	if s.ca == nil {
		return zkconn.HandshakeTimeoutDialer(nil, zkconn.DefaultHandshakeTimeout)
	}
	return zkconn.TLSDialer(s.ClientTLS(), nil, zkconn.DefaultHandshakeTimeout)
}

// SuperUser returns the digest super user of WithDigestSuperUser, or
// empty strings. zkconn.WithDigest(srv.SuperUser()) authenticates as it.
func (s *Security) SuperUser() (user, password string) { return s.superUser, s.superPassword }

// DigestID returns the id ZooKeeper stores for digest user with password:
// user:base64(sha1(user:password)), as in an ACL entry of scheme "digest".
func DigestID(user, password string) string {
	sum := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// newSecurity makes the certificates o asks for, writes the server's PEM
// files under dir, and returns the server's TLS configuration (nil without
// TLS) and zoo.cfg settings.
func newSecurity(dir string, o options) (*Security, *zkserver.TLS, map[string]string, error) {
	s := &Security{superUser: o.superUser, superPassword: o.superPassword, enforced: o.enforce != nil}
	if !o.tls {
		return s, nil, settingsFor(o), nil
	}
	serverTLS, err := s.makeCertificates(dir, o)
	if err != nil {
		return nil, nil, nil, err
	}
	return s, serverTLS, settingsFor(o), nil
}

// settingsFor returns the zoo.cfg settings of o's authentication options,
// then o's own settings.
func settingsFor(o options) map[string]string {
	settings := map[string]string{}
	if o.superUser != "" {
		settings["DigestAuthenticationProvider.superDigest"] = DigestID(o.superUser, o.superPassword)
	}
	if o.enforce != nil {
		settings["enforce.auth.enabled"] = "true"
		settings["enforce.auth.schemes"] = strings.Join(o.enforce, ",")
	}
	if o.tls {
		settings["authProvider.x509"] = "org.apache.zookeeper.server.auth.X509AuthenticationProvider"
	}
	if o.sasl != nil {
		settings["authProvider.sasl"] = saslAuthProvider
	}
	if o.x509SuperUser != "" {
		settings["X509AuthenticationProvider.superUser"] = o.x509SuperUser
	}
	for k, v := range o.settings {
		settings[k] = v
	}
	return settings
}

// makeCertificates makes the CA, the server's and the default client's
// certificates, and writes the server's keystore and truststore.
func (s *Security) makeCertificates(dir string, o options) (*zkserver.TLS, error) {
	ca, err := NewCertAuthority("zktest CA")
	if err != nil {
		return nil, err
	}
	hosts := o.serverHosts
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "localhost"}
	}
	server, err := ca.Issue(CertRequest{Subject: pkix.Name{CommonName: hosts[0]}, Hosts: hosts, Expired: o.expiredServerCert})
	if err != nil {
		return nil, err
	}
	if s.client, err = ca.Issue(CertRequest{Subject: defaultClientSubject()}); err != nil {
		return nil, err
	}
	s.ca = ca
	t := &zkserver.TLS{
		KeyStore:   filepath.Join(dir, "keystore.pem"),
		TrustStore: filepath.Join(dir, "truststore.pem"),
		ClientAuth: string(o.clientAuth),
		Client:     &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{s.client.TLS}},
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	if err := os.WriteFile(t.KeyStore, server.PEM, 0o600); err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	if err := os.WriteFile(t.TrustStore, ca.CertPEM(), 0o600); err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	return t, nil
}
