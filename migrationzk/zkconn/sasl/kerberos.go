package sasl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/jcmturner/gokrb5/v8/config"
)

// KerberosConfig is the client side of GSSAPI, as Kafka's JAAS
// Krb5LoginModule and ZooKeeper's client settings describe it.
//
// A Principal without realm is in krb5.conf's default_realm. With a
// keytab the Principal is required; with UseTicketCache it is optional
// and, when given, must be the cache's. With both a keytab and
// UseTicketCache the cache is used while it holds a ticket, then the
// keytab, as Krb5LoginModule does. Without either, the keytab is
// KRB5_KTNAME or krb5.conf's default_keytab_name (/etc/krb5.keytab).
type KerberosConfig struct {
	Principal      string // e.g. "kafka/broker1.example.com@EXAMPLE.COM"
	KeyTab         string // path; empty with UseTicketCache
	UseTicketCache bool
	TicketCache    string // path; empty means KRB5CCNAME or the default
	Krb5Conf       string // path; empty means $KRB5_CONFIG or /etc/krb5.conf
	// ServiceName is zookeeper.sasl.client.username: the server
	// principal's first component; empty means "zookeeper".
	ServiceName string
	// ServerPrincipal is zookeeper.server.principal: when set, the whole
	// server principal, and ServiceName and CanonicalizeHostname are not used.
	ServerPrincipal string
	// CanonicalizeHostname is zookeeper.sasl.client.canonicalize.hostname
	// (ZooKeeper's default: true).
	CanonicalizeHostname bool
	// MutualAuth makes the client ask the server to prove it holds the
	// server principal's key (an AP-REP), which costs one more round
	// trip. ZooKeeper's Java client does not ask; neither does the
	// client by default.
	MutualAuth bool
}

// gssapiName is the SASL name of Kerberos V5 through GSS-API.
const gssapiName = "GSSAPI"

// defaultServiceName is zookeeper.sasl.client.username's default.
const defaultServiceName = "zookeeper"

// Kerberos returns GSSAPI (Kerberos V5) as cfg describes, as a Kafka
// broker authenticates with a JAAS Client section of Krb5LoginModule; the
// server then knows the client as sasl:principal, as the server
// canonicalizes it. It reads krb5.conf, and the keytab or the credential
// cache, now; the keytab and the cache are read again at every login. The
// mechanism holds the client's tickets, shared by every connection it
// authenticates: it logs in and gets a ticket for each server before
// dialling it (so that an unreachable KDC, an *Error of Failure
// KDCUnreachable, costs no server session), and renews them before they
// end. Errors are *Error of Failure ClientFailure (bad configuration,
// missing keytab).
func Kerberos(cfg KerberosConfig) (Mechanism, error) {
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func newKerberos(cfg KerberosConfig, res resolver) (*kerberosMechanism, error) {
	krb5, err := loadKrb5Conf(cfg.Krb5Conf)
	if err != nil {
		return nil, clientFailure("", err)
	}
	creds, err := newCredentialSource(cfg, krb5)
	if err != nil {
		return nil, clientFailure("", err)
	}
	return &kerberosMechanism{cfg: cfg, krb5: krb5, resolver: res, tickets: newTicketStore(creds)}, nil
}

// kerberosMechanism is GSSAPI with one client principal's tickets, shared
// by every connection of a client.
type kerberosMechanism struct {
	cfg      KerberosConfig
	krb5     *config.Config
	resolver resolver
	tickets  *ticketStore
}

// Name is "GSSAPI".
func (m *kerberosMechanism) Name() string { return gssapiName }

// Authenticate gets a service ticket for the server at address (from the
// cache while it is fresh) and returns the AP-REQ, made anew for this
// connection.
func (m *kerberosMechanism) Authenticate(ctx context.Context, address string) (Exchange, []byte, error) {
	spn, realm, st, err := m.serviceTicket(ctx, address)
	if err != nil {
		return nil, nil, err
	}
	ex, token, err := newGSSAPIExchange(address, st, m.tickets.creds.client(), m.cfg.MutualAuth)
	if err != nil {
		return nil, nil, clientFailure(address, err)
	}
	m.tickets.refreshAhead(spn, realm)
	return ex, token, nil
}

// Prepare gets the tickets for the server at address before it is
// dialled, from the KDC when those held are not fresh, so that the
// exchange after the session handshake needs no KDC and a KDC that does
// not answer costs no server session.
func (m *kerberosMechanism) Prepare(ctx context.Context, address string) error {
	_, _, _, err := m.serviceTicket(ctx, address)
	return err
}

// loadKrb5Conf reads path, else $KRB5_CONFIG, else /etc/krb5.conf.
// KRB5_CONFIG may list several files separated by colons; the first that
// exists is read.
func loadKrb5Conf(path string) (*config.Config, error) {
	candidates := []string{path}
	if path == "" {
		candidates = append(strings.Split(os.Getenv("KRB5_CONFIG"), ":"), "/etc/krb5.conf")
	}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil && path == "" {
			continue
		}
		cfg, err := config.Load(p)
		if err != nil {
			return nil, fmt.Errorf("read Kerberos configuration %s: %w", p, err)
		}
		return cfg, nil
	}
	return nil, errors.New("no Kerberos configuration: set Krb5Conf or KRB5_CONFIG, or install /etc/krb5.conf")
}

// serverPrincipal is the server principal, service/host without realm,
// as ZooKeeper's client derives it for the server dialed at address:
// zookeeper.server.principal when set; otherwise the service name and
// the host, canonicalized unless told not to.
func (m *kerberosMechanism) serverPrincipal(ctx context.Context, address string) (string, error) {
	if p := m.cfg.ServerPrincipal; p != "" {
		// As ZooKeeper's client, keep service and host and let the
		// realm follow from the host.
		p, _, _ = strings.Cut(p, "@")
		if service, host, ok := strings.Cut(p, "/"); !ok || service == "" || host == "" {
			return "", fmt.Errorf("server principal %q is not service/host", m.cfg.ServerPrincipal)
		}
		return p, nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	service := m.cfg.ServiceName
	if service == "" {
		service = defaultServiceName
	}
	return service + "/" + serverHostName(ctx, m.resolver, host, m.cfg.CanonicalizeHostname), nil
}

// serverRealm is the realm of the server principal spn: krb5.conf's
// domain_realm mapping of its host, else the default realm, else the
// client's. A realm other than the client's is an error: cross-realm
// tickets are not supported.
func (m *kerberosMechanism) serverRealm(spn string) (string, error) {
	_, host, _ := strings.Cut(spn, "/")
	client := m.tickets.creds.client().realm
	r := m.krb5.ResolveRealm(host)
	if r == "" || r == client {
		return client, nil
	}
	return "", fmt.Errorf("the server principal %s is in realm %s (krb5.conf's domain_realm), the client %s in %s: cross-realm authentication is not supported",
		spn, r, m.tickets.creds.client(), client)
}

// serviceTicket derives the server principal for address and returns it
// with a fresh ticket for it, as an *Error on failure.
func (m *kerberosMechanism) serviceTicket(ctx context.Context, address string) (string, string, *ticket, error) {
	spn, err := m.serverPrincipal(ctx, address)
	if err != nil {
		return "", "", nil, clientFailure(address, err)
	}
	realm, err := m.serverRealm(spn)
	if err != nil {
		return "", "", nil, clientFailure(address, err)
	}
	st, err := m.tickets.serviceTicket(ctx, spn, realm)
	if err != nil {
		return "", "", nil, ticketFailure(address, err)
	}
	return spn, realm, st, nil
}

func clientFailure(server string, err error) *Error {
	return &Error{Mechanism: gssapiName, Server: server, Failure: ClientFailure, Err: err}
}
