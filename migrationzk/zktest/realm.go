package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/krb5kdc"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// DefaultRealm is the name of the realms NewRealm makes unless told
// otherwise.
const DefaultRealm = "EXAMPLE.TEST"

// howToKerberos says how to get a KDC when none is installed.
const howToKerberos = "install MIT Kerberos (apt-get install krb5-kdc krb5-admin-server krb5-user)"

// kdcTimeout bounds each command run for a realm.
const kdcTimeout = 30 * time.Second

// Realm is a Kerberos realm for tests: an MIT KDC from a local
// installation (Debian's krb5-kdc, krb5-admin-server and krb5-user)
// serving on a free loopback port, with its database, configuration and
// keytabs in a temporary directory. Nothing of it is checked in or
// touches the system's Kerberos files. Its methods are safe to call from
// any goroutine.
type Realm struct {
	// Name is the realm's name, such as "EXAMPLE.TEST".
	Name string

	kdc *krb5kdc.KDC
	dir string

	adding  sync.Mutex // held by ensurePrincipal while it adds
	mu      sync.Mutex
	keytabs map[string]string // principal name: keytab, of AddPrincipal
}

// RealmOption configures a realm that NewRealm or StartRealm makes.
type RealmOption func(*krb5kdc.Config)

// WithRealmName names the realm; the default is DefaultRealm.
func WithRealmName(name string) RealmOption { return func(c *krb5kdc.Config) { c.Realm = name } }

// WithMaxTicketLife caps the lifetime of every ticket of the realm; the
// default is 24 hours. Principals can have shorter caps (see
// Realm.AddPrincipalWith).
func WithMaxTicketLife(d time.Duration) RealmOption {
	return func(c *krb5kdc.Config) { c.MaxLife = d }
}

// noKDCError reports that no KDC can be started here; StartRealm skips
// the test on it, as Start does without ZooKeeper.
type noKDCError struct{ err error }

func (e noKDCError) Error() string {
	return "zktest: no Kerberos KDC available (" + e.err.Error() + "): " + howToKerberos
}

func (e noKDCError) Is(target error) bool { return target == errUnavailable }
func (e noKDCError) Unwrap() error        { return e.err }

// NewRealm makes a realm and starts its KDC, for a program, which must
// Close it. When no MIT KDC is installed the error says how to get one.
func NewRealm(opts ...RealmOption) (*Realm, error) {
	inst, err := krb5kdc.FindInstall()
	if err != nil {
		return nil, noKDCError{err}
	}
	dir, err := os.MkdirTemp("", "zktest-realm-")
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	cfg := krb5kdc.Config{Dir: dir, Realm: DefaultRealm}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kdcTimeout)
	defer cancel()
	kdc, err := krb5kdc.Start(ctx, inst, cfg)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("zktest: %w", err)
	}
	return &Realm{Name: kdc.Realm(), kdc: kdc, dir: dir, keytabs: map[string]string{}}, nil
}

// StartRealm makes a realm for t, closed when the test ends. It skips t
// when no MIT KDC is installed, or fails it under ZKWRITER_REQUIRE_ZK=1.
func StartRealm(t testing.TB, opts ...RealmOption) *Realm {
	t.Helper()
	r, err := NewRealm(opts...)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("zktest: %v", err)
		}
	})
	return r
}

// Close stops the KDC and removes the realm's directory.
func (r *Realm) Close() error {
	return errors.Join(r.kdc.Stop(), os.RemoveAll(r.dir))
}

// Krb5Conf is the path of the realm's krb5.conf, for clients
// (KerberosConfig.Krb5Conf, KRB5_CONFIG) and servers
// (java.security.krb5.conf) alike.
func (r *Realm) Krb5Conf() string { return r.kdc.Krb5Conf() }

// KDCAddr is the KDC's address, 127.0.0.1:port.
func (r *Realm) KDCAddr() string { return r.kdc.Addr() }

// Dir is the realm's directory, which holds its keytabs.
func (r *Realm) Dir() string { return r.dir }

// Stop stops the KDC, so that clients find no KDC, until Restart.
func (r *Realm) Stop() error { return r.kdc.Stop() }

// Restart starts a stopped KDC again, on the same port and database.
func (r *Realm) Restart() error {
	ctx, cancel := context.WithTimeout(context.Background(), kdcTimeout)
	defer cancel()
	return r.kdc.Restart(ctx)
}

// KDCRunning reports whether the KDC serves.
func (r *Realm) KDCRunning() bool { return r.kdc.Running() }

// Principal returns name qualified with the realm: name@REALM.
func (r *Realm) Principal(name string) string { return name + "@" + r.Name }

// KerberosPrincipal is a principal to add to a realm.
type KerberosPrincipal struct {
	// Name is the principal without realm, such as "kafka" or
	// "kafka/localhost".
	Name string
	// MaxLife, when positive, caps the lifetime of the principal's
	// tickets, such as a minute for a test of ticket renewal.
	MaxLife time.Duration
}

// AddPrincipal adds principal name (without realm) with a random key and
// returns the path of a keytab that holds the key.
func (r *Realm) AddPrincipal(name string) (keytab string, err error) {
	return r.AddPrincipalWith(KerberosPrincipal{Name: name})
}

// AddPrincipalWith adds p with a random key and returns the path of a
// keytab that holds the key.
func (r *Realm) AddPrincipalWith(p KerberosPrincipal) (keytab string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), kdcTimeout)
	defer cancel()
	if err := r.kdc.AddPrincipal(ctx, krb5kdc.Principal{Name: p.Name, MaxLife: p.MaxLife}); err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	keytab = filepath.Join(r.dir, strings.ReplaceAll(p.Name, "/", "_")+".keytab")
	if err := r.writeKeytab(keytab, p.Name); err != nil {
		return "", err
	}
	r.mu.Lock()
	r.keytabs[p.Name] = keytab
	r.mu.Unlock()
	return keytab, nil
}

// Keytab returns the path of a keytab of principal name (without realm),
// adding the principal with AddPrincipal unless it was added before, as
// the principals of WithKerberos are when a server starts.
func (r *Realm) Keytab(name string) (path string, err error) {
	r.adding.Lock()
	defer r.adding.Unlock()
	r.mu.Lock()
	keytab, ok := r.keytabs[name]
	r.mu.Unlock()
	if ok {
		return keytab, nil
	}
	return r.AddPrincipal(name)
}

// writeKeytab writes the keys of principal name to a keytab at path.
func (r *Realm) writeKeytab(path, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), kdcTimeout)
	defer cancel()
	if err := r.kdc.WriteKeytab(ctx, path, name); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	return nil
}

// DeletePrincipal removes principal name (without realm) from the realm:
// its keytabs stay, but the KDC no longer knows it.
func (r *Realm) DeletePrincipal(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), kdcTimeout)
	defer cancel()
	return r.kdc.DeletePrincipal(ctx, name)
}

// Kinit gets a ticket-granting ticket for principal name with keytab
// into a new credential cache file, with MIT's kinit, and returns its
// path, for KerberosConfig.TicketCache or KRB5CCNAME.
func (r *Realm) Kinit(name, keytab string) (ccache string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), kdcTimeout)
	defer cancel()
	f, err := os.CreateTemp(r.dir, "ccache-")
	if err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	ccache = f.Name()
	f.Close()
	if err := os.Remove(ccache); err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	if err := r.kdc.Kinit(ctx, name, keytab, ccache, 0); err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	return ccache, nil
}

// ClientConfig returns the client configuration of principal name
// (without realm) with keytab, for servers of the realm named
// zookeeper/localhost: the realm's krb5.conf, and hostname
// canonicalization as ZooKeeper's default.
func (r *Realm) ClientConfig(name, keytab string) sasl.KerberosConfig {
	return sasl.KerberosConfig{
		Principal:            r.Principal(name),
		KeyTab:               keytab,
		Krb5Conf:             r.Krb5Conf(),
		CanonicalizeHostname: true,
	}
}

// LogTail returns up to n trailing bytes of the KDC's log, for failure
// messages.
func (r *Realm) LogTail(n int) string { return r.kdc.LogTail(n) }
