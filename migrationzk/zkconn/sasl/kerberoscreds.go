package sasl

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// errTicketExpired reports a ticket-granting ticket of a credential cache
// that has expired and can no longer be renewed.
var errTicketExpired = errors.New("the ticket-granting ticket has expired and cannot be renewed")

// clientPrincipal is the client's principal name and realm.
type clientPrincipal struct {
	name  types.PrincipalName
	realm string
}

func (p clientPrincipal) String() string { return p.name.PrincipalNameString() + "@" + p.realm }

// parseClientPrincipal splits "name[/instance][@REALM]"; the realm
// defaults to krb5.conf's default_realm.
func parseClientPrincipal(s string, krb5 *config.Config) (clientPrincipal, error) {
	name, realm, _ := strings.Cut(s, "@")
	if realm == "" {
		realm = krb5.LibDefaults.DefaultRealm
	}
	if name == "" || realm == "" {
		return clientPrincipal{}, fmt.Errorf("principal %q names no user or realm (and krb5.conf no default_realm)", s)
	}
	return clientPrincipal{name: types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, name), realm: realm}, nil
}

// ticket is a Kerberos ticket with its session key and times.
type ticket struct {
	ticket     messages.Ticket
	key        types.EncryptionKey
	start, end time.Time
	renewTill  time.Time
	renewable  bool
}

// credentialSource yields ticket-granting tickets for one client.
type credentialSource interface {
	client() clientPrincipal
	// kdc is the gokrb5 client that exchanges with the KDC.
	kdc() *client.Client
	// login returns a fresh ticket-granting ticket, renewing old when
	// it can. old may be nil.
	login(old *ticket) (*ticket, error)
}

// newCredentialSource returns the ticket cache with UseTicketCache, the
// keytab otherwise; with both, as Krb5LoginModule, the cache while it
// serves, then the keytab.
func newCredentialSource(cfg KerberosConfig, krb5 *config.Config) (credentialSource, error) {
	if !cfg.UseTicketCache {
		return newKeytabSource(cfg, krb5)
	}
	cc, ccErr := newCCacheSource(cfg, krb5)
	if cfg.KeyTab == "" {
		if ccErr != nil {
			return nil, ccErr
		}
		return cc, nil
	}
	kt, err := newKeytabSource(cfg, krb5)
	if err != nil {
		return nil, err
	}
	if ccErr != nil || cc.principal.String() != kt.principal.String() {
		return kt, nil
	}
	return &cacheThenKeytab{cc: cc, kt: kt, current: cc}, nil
}

// cacheThenKeytab logs in from the credential cache, and from the keytab
// when the cache has no ticket left to give.
type cacheThenKeytab struct {
	cc      *ccacheSource
	kt      *keytabSource
	current credentialSource // the last that logged in
}

func (s *cacheThenKeytab) client() clientPrincipal { return s.kt.principal }
func (s *cacheThenKeytab) kdc() *client.Client     { return s.current.kdc() }

func (s *cacheThenKeytab) login(old *ticket) (*ticket, error) {
	if t, err := s.cc.login(old); err == nil {
		s.current = s.cc
		return t, nil
	}
	s.current = s.kt
	return s.kt.login(old)
}

// keytabSource logs in with the keys of a keytab, read again at every
// login so that a rotated keytab is picked up.
type keytabSource struct {
	path      string
	principal clientPrincipal
	krb5      *config.Config
	cl        *client.Client
}

func newKeytabSource(cfg KerberosConfig, krb5 *config.Config) (*keytabSource, error) {
	if cfg.Principal == "" {
		return nil, errors.New("a keytab needs a principal")
	}
	p, err := parseClientPrincipal(cfg.Principal, krb5)
	if err != nil {
		return nil, err
	}
	path := cfg.KeyTab
	if path == "" {
		path = os.Getenv("KRB5_KTNAME")
	}
	if path == "" {
		path = krb5.LibDefaults.DefaultKeytabName
	}
	kt, err := loadKeytab(path)
	if err != nil {
		return nil, err
	}
	cl := client.NewWithKeytab(p.name.PrincipalNameString(), p.realm, kt, krb5, client.DisablePAFXFAST(true))
	return &keytabSource{path: path, principal: p, krb5: krb5, cl: cl}, nil
}

func loadKeytab(path string) (*keytab.Keytab, error) {
	path = strings.TrimPrefix(path, "FILE:")
	kt, err := keytab.Load(path)
	if err != nil {
		return nil, fmt.Errorf("read keytab %s: %w", path, err)
	}
	return kt, nil
}

func (s *keytabSource) client() clientPrincipal { return s.principal }
func (s *keytabSource) kdc() *client.Client     { return s.cl }

// login makes an AS exchange with the keytab's current keys.
func (s *keytabSource) login(*ticket) (*ticket, error) {
	kt, err := loadKeytab(s.path)
	if err != nil {
		return nil, err
	}
	cl := client.NewWithKeytab(s.principal.name.PrincipalNameString(), s.principal.realm, kt, s.krb5, client.DisablePAFXFAST(true))
	req, err := messages.NewASReqForTGT(s.principal.realm, s.krb5, s.principal.name)
	if err != nil {
		return nil, err
	}
	rep, err := cl.ASExchange(s.principal.realm, req, 0)
	if err != nil {
		return nil, fmt.Errorf("log in as %s: %w", s.principal, err)
	}
	s.cl = cl
	return kdcTicket(rep.Ticket, rep.DecryptedEncPart), nil
}

func kdcTicket(t messages.Ticket, part messages.EncKDCRepPart) *ticket {
	start := part.StartTime
	if start.IsZero() {
		start = part.AuthTime
	}
	return &ticket{
		ticket: t, key: part.Key, start: start, end: part.EndTime, renewTill: part.RenewTill,
		renewable: types.IsFlagSet(&part.Flags, flags.Renewable),
	}
}

// ccacheSource takes ticket-granting tickets from an MIT credential cache
// file, read again at every login so that a kinit elsewhere is picked up,
// and renews them while they are renewable.
type ccacheSource struct {
	path      string
	principal clientPrincipal
	krb5      *config.Config
	cl        *client.Client
}

func newCCacheSource(cfg KerberosConfig, krb5 *config.Config) (*ccacheSource, error) {
	path, err := ccachePath(cfg.TicketCache)
	if err != nil {
		return nil, err
	}
	cc, err := credentials.LoadCCache(path)
	if err != nil {
		return nil, fmt.Errorf("read credential cache %s: %w", path, err)
	}
	p := clientPrincipal{name: cc.GetClientPrincipalName(), realm: cc.GetClientRealm()}
	if cfg.Principal != "" {
		want, err := parseClientPrincipal(cfg.Principal, krb5)
		if err != nil {
			return nil, err
		}
		if want.String() != p.String() {
			return nil, fmt.Errorf("credential cache %s holds tickets of %s, not of %s", path, p, want)
		}
	}
	cl := client.NewWithKeytab(p.name.PrincipalNameString(), p.realm, keytab.New(), krb5, client.DisablePAFXFAST(true))
	return &ccacheSource{path: path, principal: p, krb5: krb5, cl: cl}, nil
}

// ccachePath resolves the credential cache as MIT's library does: the
// configured path, else KRB5CCNAME, else /tmp/krb5cc_<uid>. Only file
// caches can be read.
func ccachePath(configured string) (string, error) {
	name := configured
	if name == "" {
		name = os.Getenv("KRB5CCNAME")
	}
	if name == "" {
		return "/tmp/krb5cc_" + strconv.Itoa(os.Getuid()), nil
	}
	if kind, rest, ok := strings.Cut(name, ":"); ok && !strings.Contains(kind, "/") {
		if kind != "FILE" {
			return "", fmt.Errorf("credential cache %q: only FILE caches are supported", name)
		}
		name = rest
	}
	return name, nil
}

func (s *ccacheSource) client() clientPrincipal { return s.principal }
func (s *ccacheSource) kdc() *client.Client     { return s.cl }

// login reads the cache's ticket-granting ticket; when neither it nor
// old is fresh, it renews the later of the two.
func (s *ccacheSource) login(old *ticket) (*ticket, error) {
	cached, err := s.read()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	if cached.fresh(now, refreshMargin) {
		return cached, nil
	}
	if old == nil || cached.end.After(old.end) {
		old = cached
	}
	if !old.renewable || !now.Before(old.renewTill) {
		if now.Before(old.end) {
			return old, nil // not fresh, still valid: use it while it lasts
		}
		return nil, fmt.Errorf("credential cache %s: %w (it ended %s)", s.path, errTicketExpired, old.end.Format(time.RFC3339))
	}
	spn := types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", s.principal.realm}}
	_, rep, err := s.cl.TGSREQGenerateAndExchange(spn, s.principal.realm, old.ticket, old.key, true)
	if err != nil {
		return nil, fmt.Errorf("renew the ticket-granting ticket of %s: %w", s.principal, err)
	}
	return kdcTicket(rep.Ticket, rep.DecryptedEncPart), nil
}

// read returns the cache's ticket-granting ticket for the client's realm.
func (s *ccacheSource) read() (*ticket, error) {
	cc, err := credentials.LoadCCache(s.path)
	if err != nil {
		return nil, fmt.Errorf("read credential cache %s: %w", s.path, err)
	}
	spn := types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", s.principal.realm}}
	cred, ok := cc.GetEntry(spn)
	if !ok {
		return nil, fmt.Errorf("credential cache %s holds no ticket-granting ticket for %s", s.path, s.principal.realm)
	}
	var t messages.Ticket
	if err := t.Unmarshal(cred.Ticket); err != nil {
		return nil, fmt.Errorf("credential cache %s: %w", s.path, err)
	}
	return &ticket{
		ticket: t, key: cred.Key, start: cred.StartTime, end: cred.EndTime, renewTill: cred.RenewTill,
		renewable: types.IsFlagSet(&cred.TicketFlags, flags.Renewable),
	}, nil
}
