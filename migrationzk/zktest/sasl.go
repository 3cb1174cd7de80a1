package zktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// saslAuthProvider is the provider that gives SASL-authenticated clients
// their sasl identity; without it ZooKeeper refuses every ACL of scheme
// sasl (InvalidACL).
const saslAuthProvider = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"

// saslServer is how started servers authenticate clients with SASL. A
// ZooKeeper server speaks one mechanism: the one its JAAS Server section's
// login module gives.
type saslServer struct {
	// digestUsers are the DIGEST-MD5 users, user and password, in the
	// order given.
	digestUsers [][2]string
	// setUp, for a mechanism other than DIGEST-MD5, writes what the server
	// needs into dir (which exists) and returns the login module entry of
	// its JAAS Server section, options included and without the final
	// ";", and extra JVM flags.
	setUp func(dir string) (module string, jvmFlags []string, err error)
	// client makes the mechanism with which Connect authenticates, anew
	// for each client, as a program makes one for each.
	client func() (sasl.Mechanism, error)
}

func (o *options) saslServer() *saslServer {
	if o.sasl == nil {
		o.sasl = &saslServer{}
	}
	return o.sasl
}

// WithSASLDigestUser makes started servers authenticate clients with SASL
// DIGEST-MD5 and know user with password, in their JAAS Server section
// (user_NAME="password", as in Kafka's JAAS files); give it once per
// user. Connect and ConnectWith authenticate as the first user given
// (see Security.SASL); the server knows the client as sasl:user. Users
// may not be named "super": ZooKeeper lets a sasl identity "super" past
// every sasl ACL.
//
// ZooKeeper 3.8 has a bug (ZOOKEEPER-4839): a user name it does not know
// authenticates with the password of the user who last authenticated.
// Tests must not count on an unknown user failing.
func WithSASLDigestUser(user, password string) Option {
	return func(o *options) {
		s := o.saslServer()
		s.digestUsers = append(s.digestUsers, [2]string{user, password})
		if len(s.digestUsers) == 1 {
			s.client = func() (sasl.Mechanism, error) { return sasl.DigestMD5(user, password), nil }
		}
	}
}

// WithSASLEnforced makes started servers refuse every request of a
// connection that has not authenticated with SASL
// (zookeeper.sessionRequireClientSASLAuth): such a request, pings
// included, gets error -124 and the connection is closed. It needs a
// SASL option such as WithSASLDigestUser. WithAuthEnforced("sasl") is
// the same through enforce.auth.enabled.
func WithSASLEnforced() Option { return func(o *options) { o.saslEnforced = true } }

// SASL returns the zkconn options with which Connect authenticates to a
// server started with a SASL option (WithSASLDigestUser: DIGEST-MD5 as
// the first user; WithKerberos: GSSAPI as KerberosClientName), or nil:
// zkconn.WithSASL with a mechanism of its own, which holds no ticket yet.
func (s *Security) SASL() []zkconn.Option {
	if s.saslClient == nil {
		return nil
	}
	m, err := s.saslClient()
	if err != nil {
		m = failedMechanism{err}
	}
	return []zkconn.Option{zkconn.WithSASL(m)}
}

// failedMechanism fails every dial, before it is made, with the error
// that kept the mechanism from being made.
type failedMechanism struct{ err error }

func (m failedMechanism) Name() string { return "" }

func (m failedMechanism) Prepare(_ context.Context, address string) error {
	return &sasl.Error{Server: address, Failure: sasl.ClientFailure, Err: m.err}
}

func (m failedMechanism) Authenticate(ctx context.Context, address string) (sasl.Exchange, []byte, error) {
	return nil, nil, m.Prepare(ctx, address)
}

// SASLUser returns the first DIGEST-MD5 user of WithSASLDigestUser and
// its password, or empty strings.
func (s *Security) SASLUser() (user, password string) { return s.saslUser, s.saslPassword }

// setUpSASL writes the server's JAAS file under dir and returns the JVM
// flags that make the server use it; "" without SASL.
func (s *Security) setUpSASL(dir string, o options) (string, error) {
	if o.sasl == nil {
		if o.saslEnforced {
			return "", errors.New("zktest: WithSASLEnforced needs a SASL option, such as WithSASLDigestUser")
		}
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	server := *o.sasl
	server.digestUsers = append([][2]string(nil), o.sasl.digestUsers...)
	s.saslServer, s.saslDir = &server, dir
	flags, err := s.writeJAAS()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "jaas.conf")
	flags = append([]string{"-Djava.security.auth.login.config=" + path}, flags...)
	if o.saslEnforced {
		flags = append(flags, "-Dzookeeper.sessionRequireClientSASLAuth=true")
	}
	s.saslClient = o.sasl.client
	if len(o.sasl.digestUsers) > 0 {
		s.saslUser, s.saslPassword = o.sasl.digestUsers[0][0], o.sasl.digestUsers[0][1]
	}
	return strings.Join(flags, " "), nil
}

// writeJAAS writes the server's JAAS file and returns the JVM flags the
// login module needs.
func (s *Security) writeJAAS() ([]string, error) {
	module, flags, err := s.saslServer.loginModule(s.saslDir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(s.saslDir, "jaas.conf")
	if err := os.WriteFile(path, []byte("Server {\n  "+module+";\n};\n"), 0o600); err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	return flags, nil
}

// SetSASLDigestPassword gives the DIGEST-MD5 user of WithSASLDigestUser
// a new password, or adds the user, in the servers' JAAS file. The
// servers read it when they start: restart them (Stop and Restart) for
// it to take effect. Connect keeps authenticating as before (see SASL).
func (s *Security) SetSASLDigestPassword(user, password string) error {
	if s.saslServer == nil || s.saslServer.setUp != nil {
		return errors.New("zktest: SetSASLDigestPassword: the servers were not started with WithSASLDigestUser")
	}
	users := s.saslServer.digestUsers
	found := false
	for i := range users {
		if users[i][0] == user {
			users[i][1], found = password, true
		}
	}
	if !found {
		s.saslServer.digestUsers = append(users, [2]string{user, password})
	}
	_, err := s.writeJAAS()
	return err
}

// loginModule returns the JAAS Server section's entry and JVM flags.
func (s *saslServer) loginModule(dir string) (string, []string, error) {
	if s.setUp != nil {
		return s.setUp(dir)
	}
	var b strings.Builder
	b.WriteString("org.apache.zookeeper.server.auth.DigestLoginModule required")
	for _, u := range s.digestUsers {
		if strings.ContainsAny(u[0], "\" \t\n=;{}") || strings.ContainsAny(u[1], "\"\\\n") {
			return "", nil, fmt.Errorf("zktest: SASL user %q: name or password a JAAS file cannot hold", u[0])
		}
		fmt.Fprintf(&b, "\n  user_%s=\"%s\"", u[0], u[1])
	}
	return b.String(), nil, nil
}

// closeSessionSASL closes a session as closeSession does, on a connection
// that authenticates with SASL first, as a server that enforces SASL
// requires even of a close.
func (s *Security) closeSessionSASL(ctx context.Context, addr string, id int64, password []byte, deadline time.Time) (bool, error) {
	dial := func(_, address string, _ time.Duration) (net.Conn, error) { return s.dial(ctx, address, deadline) }
	mech, err := s.saslClient()
	if err != nil {
		return false, err
	}
	saslDial, err := sasl.Dialer(dial, mech, SessionTimeout)
	if err != nil {
		return false, err
	}
	c, err := saslDial("tcp", addr, time.Until(deadline))
	if err != nil {
		return false, err
	}
	defer c.Close()
	if _, err := c.Write(wire.ConnectRequest{TimeoutMs: 10000, SessionID: id, Passwd: password}.Append(nil)); err != nil {
		return false, err
	}
	frames := frameReader{r: c}
	frame, err := frames.next() // the SASL exchange comes first
	if err != nil {
		return false, fmt.Errorf("handshake reply: %w", err)
	}
	r, err := wire.ParseConnectResponse(frame)
	if err != nil {
		return false, fmt.Errorf("handshake reply: %w", err)
	}
	if r.SessionID == 0 {
		return true, nil
	}
	_ = c.SetDeadline(deadline)
	const closeXid = 1
	if _, err := c.Write(wire.AppendRequestHeader(nil, closeXid, wire.OpClose)); err != nil {
		return false, err
	}
	for {
		frame, err := frames.next()
		if err != nil {
			return false, fmt.Errorf("close reply: %w", err)
		}
		if h, err := wire.ParseReplyHeader(frame); err == nil && h.Xid == closeXid {
			return true, nil
		}
	}
}
