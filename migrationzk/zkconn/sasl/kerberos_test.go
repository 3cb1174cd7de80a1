package sasl

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/krb5kdc"
)

// fakeResolver maps names to addresses and back.
type fakeResolver struct {
	forward map[string][]string
	reverse map[string][]string
}

func (f fakeResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if n, ok := f.reverse[addr]; ok {
		return n, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f fakeResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	if a, ok := f.forward[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// The server principal is derived as ZooKeeper 3.8's client derives it.
func TestServerPrincipal(t *testing.T) {
	res := fakeResolver{
		forward: map[string][]string{
			"zk1":                   {"10.0.0.1"},
			"zk1.example.com":       {"10.0.0.1"},
			"alias.example.com":     {"10.0.0.2"},
			"liar.example.com":      {"10.9.9.9"},
			"localhost":             {"127.0.0.1"},
			"unresolvable.example.": nil,
		},
		reverse: map[string][]string{
			"10.0.0.1":  {"zk1.example.com."},
			"10.0.0.2":  {"zk2.example.com."},
			"10.0.0.3":  {"liar.example.com."},
			"127.0.0.1": {"localhost"},
		},
	}
	res.forward["zk2.example.com"] = []string{"10.0.0.2"}
	cases := []struct {
		cfg     KerberosConfig
		address string
		want    string
	}{
		{KerberosConfig{CanonicalizeHostname: true}, "zk1:2181", "zookeeper/zk1.example.com"},
		{KerberosConfig{CanonicalizeHostname: false}, "zk1:2181", "zookeeper/zk1"},
		{KerberosConfig{CanonicalizeHostname: true}, "alias.example.com:2181", "zookeeper/zk2.example.com"},
		{KerberosConfig{CanonicalizeHostname: false}, "10.0.0.1:2181", "zookeeper/zk1.example.com"},
		{KerberosConfig{CanonicalizeHostname: true}, "127.0.0.1:2181", "zookeeper/localhost"},
		// A reverse name that does not map back is not trusted.
		{KerberosConfig{CanonicalizeHostname: true}, "10.0.0.3:2181", "zookeeper/10.0.0.3"},
		{KerberosConfig{CanonicalizeHostname: true}, "10.0.0.4:2181", "zookeeper/10.0.0.4"},
		{KerberosConfig{CanonicalizeHostname: true}, "nowhere:2181", "zookeeper/nowhere"},
		{KerberosConfig{ServiceName: "zk", CanonicalizeHostname: false}, "zk1:2181", "zk/zk1"},
		{KerberosConfig{ServerPrincipal: "zookeeper/fixed.example.com@OTHER.REALM", ServiceName: "zk", CanonicalizeHostname: true}, "zk1:2181", "zookeeper/fixed.example.com"},
		{KerberosConfig{ServerPrincipal: "zookeeper/fixed"}, "zk1:2181", "zookeeper/fixed"},
	}
	for _, c := range cases {
		m := &kerberosMechanism{cfg: c.cfg, resolver: res}
		got, err := m.serverPrincipal(context.Background(), c.address)
		if err != nil || got != c.want {
			t.Errorf("%+v at %s: %q, %v; want %q", c.cfg, c.address, got, err, c.want)
		}
	}
	for _, bad := range []string{"zookeeper", "zookeeper/", "/host@R"} {
		m := &kerberosMechanism{cfg: KerberosConfig{ServerPrincipal: bad}, resolver: res}
		if got, err := m.serverPrincipal(context.Background(), "zk1:2181"); err == nil {
			t.Errorf("server principal %q: %q, no error", bad, got)
		}
	}
}

func startWith(t *testing.T, m *kerberosMechanism) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := m.Authenticate(ctx, "127.0.0.1:2181")
	return err
}

// A configuration the client cannot use fails when the mechanism is made.
func TestKerberosConfigErrors(t *testing.T) {
	r := startTestRealm(t)
	cases := map[string]func(c *KerberosConfig){
		"missing keytab":    func(c *KerberosConfig) { c.KeyTab = filepath.Join(t.TempDir(), "none.keytab") },
		"no principal":      func(c *KerberosConfig) { c.Principal = "" },
		"missing krb5.conf": func(c *KerberosConfig) { c.Krb5Conf = filepath.Join(t.TempDir(), "krb5.conf") },
		"missing ticket cache": func(c *KerberosConfig) {
			c.UseTicketCache, c.KeyTab, c.TicketCache = true, "", filepath.Join(t.TempDir(), "cc")
		},
		"keyring ticket cache": func(c *KerberosConfig) { c.UseTicketCache, c.KeyTab, c.TicketCache = true, "", "KEYRING:persistent:0" },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := r.config()
			change(&cfg)
			m, err := Kerberos(cfg)
			if m != nil {
				t.Errorf("a mechanism for a bad configuration")
			}
			wantFailure(t, err, ClientFailure)
		})
	}
}

// Without a KDC, start fails with KDCUnreachable, and works again
// once the KDC is back.
func TestKerberosKDCDown(t *testing.T) {
	r := startTestRealm(t)
	m, err := newKerberos(r.config(), systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.kdc.Stop(); err != nil {
		t.Fatal(err)
	}
	wantFailure(t, startWith(t, m), KDCUnreachable)
	if err := r.kdc.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
}

// A principal or a service the KDC does not know is a client failure
// naming the cause.
func TestKerberosUnknownPrincipals(t *testing.T) {
	r := startTestRealm(t)
	ghostKT := r0(t, r.kdc, "ghost")
	if err := r.kdc.DeletePrincipal(context.Background(), "ghost"); err != nil {
		t.Fatal(err)
	}
	cfg := r.config()
	cfg.Principal, cfg.KeyTab = "ghost", ghostKT
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	err = startWith(t, m)
	wantFailure(t, err, ClientFailure)
	if !strings.Contains(err.Error(), "PRINCIPAL_UNKNOWN") {
		t.Errorf("error %q does not name the cause", err)
	}
	cfg = r.config()
	cfg.ServiceName = "nosuchservice"
	if m, err = newKerberos(cfg, systemResolver{}); err != nil {
		t.Fatal(err)
	}
	err = startWith(t, m)
	wantFailure(t, err, ClientFailure)
	if !strings.Contains(err.Error(), "nosuchservice/localhost") {
		t.Errorf("error %q does not name the service principal", err)
	}
}

// Tickets from a credential cache that kinit filled work; once the
// ticket-granting ticket ends and cannot be renewed, start says so.
func TestKerberosTicketCache(t *testing.T) {
	r := startTestRealm(t)
	shortKT := r0(t, r.kdc, "short", 6*time.Second)
	cc := filepath.Join(t.TempDir(), "cc")
	if err := r.kdc.Kinit(context.Background(), "short", shortKT, cc, 0); err != nil {
		t.Fatal(err)
	}
	cfg := KerberosConfig{UseTicketCache: true, TicketCache: cc, Krb5Conf: r.kdc.Krb5Conf(), CanonicalizeHostname: true}
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
	if got := m.tickets.creds.client().String(); got != "short@EXAMPLE.TEST" {
		t.Errorf("client %s", got)
	}
	time.Sleep(7 * time.Second)
	err = startWith(t, m)
	wantFailure(t, err, ClientFailure)
	if !errors.Is(err, errTicketExpired) {
		t.Errorf("error %v does not say the ticket expired", err)
	}
	// With the keytab too, as Krb5LoginModule: the keytab takes over.
	cfg.KeyTab, cfg.Principal = shortKT, "short"
	if m, err = newKerberos(cfg, systemResolver{}); err != nil {
		t.Fatal(err)
	}
	if err := startWith(t, m); err != nil {
		t.Fatalf("with a keytab behind the expired cache: %v", err)
	}
}

// With a keytab, tickets about to end are replaced before use: a new
// ticket-granting ticket and a new service ticket.
func TestKerberosRenewsShortTickets(t *testing.T) {
	r := startTestRealm(t)
	cfg := r.config()
	cfg.Principal, cfg.KeyTab = "brief", r0(t, r.kdc, "brief", 8*time.Second)
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
	if logins, fetches := m.tickets.counts(); logins != 1 || fetches != 1 {
		t.Fatalf("%d logins, %d service tickets after the first start", logins, fetches)
	}
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
	if logins, fetches := m.tickets.counts(); logins != 1 || fetches != 1 {
		t.Fatalf("%d logins, %d service tickets: fresh tickets were not reused", logins, fetches)
	}
	time.Sleep(5 * time.Second) // within refreshMargin (4s) of the end
	ex, token := startExchange(t, m)
	if logins, fetches := m.tickets.counts(); logins != 2 || fetches != 2 {
		t.Fatalf("%d logins, %d service tickets: tickets about to end were used", logins, fetches)
	}
	a := r.accept(t, token)
	if left := time.Until(a.req.Ticket.DecryptedEncPart.EndTime); left < 6*time.Second {
		t.Errorf("the server got a ticket that ends in %v", left)
	}
	if _, _, err := ex.Challenge(a.offer([]byte{1, 1, 0, 0})); err != nil {
		t.Fatal(err)
	}
}

// Tickets past two thirds of their lifetime, still fresh enough to use,
// are replaced in the background after a connection used them, so that
// the next connection need not wait for the KDC.
func TestKerberosRefreshesAhead(t *testing.T) {
	r := startTestRealm(t)
	cfg := r.config()
	cfg.Principal, cfg.KeyTab = "steady", r0(t, r.kdc, "steady", time.Minute)
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	var skew atomic.Int64
	m.tickets.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
	skew.Store(int64(30 * time.Second)) // half the lifetime: nothing due
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
	// Kerberos times are whole seconds: let one pass, so that new
	// tickets end later than the first.
	time.Sleep(1100 * time.Millisecond)
	if logins, fetches := m.tickets.counts(); logins != 1 || fetches != 1 {
		t.Fatalf("%d logins, %d service tickets at half the lifetime; want 1, 1", logins, fetches)
	}
	skew.Store(int64(45 * time.Second)) // 15s left: fresh, and due ahead
	if err := startWith(t, m); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		logins, fetches := m.tickets.counts()
		if logins == 2 && fetches == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d logins, %d service tickets 10s after a start at three quarters of the lifetime; want 2, 2", logins, fetches)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server principal that krb5.conf puts in another realm is refused
// before any ticket is asked for: cross-realm is not supported.
func TestKerberosCrossRealmRefused(t *testing.T) {
	r := startTestRealm(t)
	conf, err := os.ReadFile(r.kdc.Krb5Conf())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(path, append(conf, " zk.other.test = OTHER.TEST\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := r.config()
	cfg.Krb5Conf, cfg.ServerPrincipal = path, "zookeeper/zk.other.test"
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	err = startWith(t, m)
	wantFailure(t, err, ClientFailure)
	if !strings.Contains(err.Error(), "cross-realm") {
		t.Errorf("error %q does not say cross-realm", err)
	}
	if logins, fetches := m.tickets.counts(); logins != 0 || fetches != 0 {
		t.Errorf("%d logins, %d service tickets for a server in another realm", logins, fetches)
	}
}

// A renewable ticket-granting ticket from a credential cache is renewed
// at the KDC when it is about to end, and the server gets a ticket that
// outlives the one kinit got.
func TestKerberosRenewsTicketCache(t *testing.T) {
	r := startTestRealm(t)
	ctx := context.Background()
	if err := r.kdc.AddPrincipal(ctx, krb5kdc.Principal{Name: "renewing", MaxLife: 6 * time.Second, MaxRenewableLife: time.Hour}); err != nil {
		t.Fatal(err)
	}
	keytab := filepath.Join(t.TempDir(), "renewing.keytab")
	if err := r.kdc.WriteKeytab(ctx, keytab, "renewing"); err != nil {
		t.Fatal(err)
	}
	cc := filepath.Join(t.TempDir(), "cc")
	if err := r.kdc.Kinit(ctx, "renewing", keytab, cc, time.Hour); err != nil {
		t.Fatal(err)
	}
	cfg := KerberosConfig{UseTicketCache: true, TicketCache: cc, Krb5Conf: r.kdc.Krb5Conf(), CanonicalizeHostname: true}
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	startExchange(t, m)
	kinitEnd := m.tickets.tgt.end
	time.Sleep(4 * time.Second) // within refreshMargin (3s) of the end
	_, token := startExchange(t, m)
	if !m.tickets.tgt.end.After(kinitEnd) {
		t.Fatalf("the ticket-granting ticket still ends at %v: not renewed", kinitEnd)
	}
	a := r.accept(t, token)
	if end := a.req.Ticket.DecryptedEncPart.EndTime; !end.After(kinitEnd) {
		t.Errorf("the server got a ticket ending %v, no later than kinit's %v", end, kinitEnd)
	}
}
