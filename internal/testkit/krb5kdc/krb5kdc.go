// Package krb5kdc runs a real MIT Kerberos KDC (Debian's krb5-kdc and
// krb5-admin-server packages) on loopback for tests: a realm made in a
// scratch directory, principals and keytabs made with kadmin.local, and
// a krb5kdc process that can be stopped and started again.
//
// Nothing is read from or written to the system's Kerberos files: every
// command runs with KRB5_CONFIG and KRB5_KDC_PROFILE pointing into the
// realm's directory.
package krb5kdc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNoInstall reports that the MIT KDC's programs were not found.
var ErrNoInstall = errors.New("krb5kdc: no MIT Kerberos KDC found (apt-get install krb5-kdc krb5-admin-server krb5-user)")

// Install locates the programs of an MIT Kerberos installation.
type Install struct {
	KDC         string // krb5kdc
	DBUtil      string // kdb5_util
	KAdminLocal string // kadmin.local
	Kinit       string // kinit; empty when krb5-user is missing
}

// FindInstall looks for the KDC's programs on PATH and in /usr/sbin.
func FindInstall() (Install, error) {
	find := func(name string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, dir := range []string{"/usr/sbin", "/usr/bin", "/sbin"} {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
		return ""
	}
	inst := Install{KDC: find("krb5kdc"), DBUtil: find("kdb5_util"), KAdminLocal: find("kadmin.local"), Kinit: find("kinit")}
	if inst.KDC == "" || inst.DBUtil == "" || inst.KAdminLocal == "" {
		return Install{}, ErrNoInstall
	}
	return inst, nil
}

// Config is the realm a KDC serves.
type Config struct {
	// Dir holds the database, the configuration files and the KDC's log.
	Dir string
	// Realm is the realm's name; empty means "EXAMPLE.TEST".
	Realm string
	// MaxLife caps every ticket's lifetime; zero means 24 hours.
	MaxLife time.Duration
	// MaxRenewableLife caps how long tickets can be renewed; zero means
	// 7 days.
	MaxRenewableLife time.Duration
}

func (c *Config) setDefaults() {
	if c.Realm == "" {
		c.Realm = "EXAMPLE.TEST"
	}
	if c.MaxLife <= 0 {
		c.MaxLife = 24 * time.Hour
	}
	if c.MaxRenewableLife <= 0 {
		c.MaxRenewableLife = 7 * 24 * time.Hour
	}
}

// KDC is a realm and the krb5kdc process that serves it.
type KDC struct {
	cfg     Config
	install Install
	port    int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start creates the realm's database in cfg.Dir, writes krb5.conf and
// kdc.conf there, and starts krb5kdc on a free loopback port (TCP and
// UDP). It returns once the KDC accepts connections.
func Start(ctx context.Context, install Install, cfg Config) (*KDC, error) {
	cfg.setDefaults()
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("krb5kdc: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("krb5kdc: no free port: %w", err)
	}
	k := &KDC{cfg: cfg, install: install, port: port}
	if err := k.writeConfig(); err != nil {
		return nil, err
	}
	if err := k.createDatabase(ctx); err != nil {
		return nil, err
	}
	// The ticket-granting service's own caps bound every ticket's; set
	// them to the realm's.
	tgs := "krbtgt/" + cfg.Realm
	if err := k.kadmin(ctx, "modprinc -maxlife "+quote(kadminDuration(cfg.MaxLife))+" -maxrenewlife "+quote(kadminDuration(cfg.MaxRenewableLife))+" "+quote(tgs)); err != nil {
		return nil, err
	}
	if err := k.Restart(ctx); err != nil {
		return nil, err
	}
	return k, nil
}

// freePort returns a loopback port free for both TCP and UDP.
func freePort() (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		l.Close()
		if err == nil {
			u.Close()
			return port, nil
		}
	}
	return 0, errors.New("no port free for both TCP and UDP")
}

// Realm is the realm's name.
func (k *KDC) Realm() string { return k.cfg.Realm }

// Addr is the KDC's address, 127.0.0.1:port.
func (k *KDC) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(k.port)) }

// Dir is the realm's directory.
func (k *KDC) Dir() string { return k.cfg.Dir }

// Krb5Conf is the path of the client configuration (krb5.conf) for the
// realm, for KRB5_CONFIG, java.security.krb5.conf and gokrb5 alike.
func (k *KDC) Krb5Conf() string { return filepath.Join(k.cfg.Dir, "krb5.conf") }

func (k *KDC) kdcConf() string { return filepath.Join(k.cfg.Dir, "kdc.conf") }

// Env is the environment the MIT programs run with for this realm.
func (k *KDC) Env() []string {
	return append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf(), "KRB5_KDC_PROFILE="+k.kdcConf())
}

func (k *KDC) writeConfig() error {
	if err := os.WriteFile(k.Krb5Conf(), []byte(k.renderKrb5Conf()), 0o644); err != nil {
		return fmt.Errorf("krb5kdc: %w", err)
	}
	if err := os.WriteFile(k.kdcConf(), []byte(k.renderKDCConf()), 0o600); err != nil {
		return fmt.Errorf("krb5kdc: %w", err)
	}
	return nil
}

// renderKrb5Conf is the client side: TCP only, no DNS, localhost in the
// realm.
func (k *KDC) renderKrb5Conf() string {
	r := k.cfg.Realm
	return "[libdefaults]\n" +
		" default_realm = " + r + "\n" +
		" dns_lookup_kdc = false\n dns_lookup_realm = false\n" +
		" rdns = false\n dns_canonicalize_hostname = false\n" +
		" udp_preference_limit = 1\n" +
		" default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96\n" +
		" default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96\n" +
		" permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96\n" +
		"[realms]\n " + r + " = {\n  kdc = " + k.Addr() + "\n }\n" +
		"[domain_realm]\n localhost = " + r + "\n .localhost = " + r + "\n"
}

func (k *KDC) renderKDCConf() string {
	d := k.cfg.Dir
	return "[kdcdefaults]\n kdc_listen = " + k.Addr() + "\n kdc_tcp_listen = " + k.Addr() + "\n" +
		"[realms]\n " + k.cfg.Realm + " = {\n" +
		"  database_name = " + filepath.Join(d, "principal") + "\n" +
		"  key_stash_file = " + filepath.Join(d, "stash") + "\n" +
		"  acl_file = " + filepath.Join(d, "kadm5.acl") + "\n" +
		"  kdc_listen = " + k.Addr() + "\n  kdc_tcp_listen = " + k.Addr() + "\n" +
		"  max_life = " + kadminDuration(k.cfg.MaxLife) + "\n" +
		"  max_renewable_life = " + kadminDuration(k.cfg.MaxRenewableLife) + "\n" +
		"  master_key_type = aes256-cts-hmac-sha1-96\n" +
		"  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal\n" +
		" }\n[logging]\n kdc = FILE:" + filepath.Join(d, "kdc.log") + "\n"
}

// kadminDuration formats d as MIT's "N seconds" duration.
func kadminDuration(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + " seconds"
}

func (k *KDC) createDatabase(ctx context.Context) error {
	var pw [16]byte
	_, _ = rand.Read(pw[:])
	return k.run(ctx, k.install.DBUtil, "create", "-s", "-r", k.cfg.Realm, "-P", hex.EncodeToString(pw[:]))
}

// run runs an MIT program for the realm and returns its output in the
// error when it fails.
func (k *KDC) run(ctx context.Context, prog string, args ...string) error {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = k.Env()
	cmd.Dir = k.cfg.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("krb5kdc: %s %s: %w\n%s", filepath.Base(prog), args[0], err, out)
	}
	return nil
}

// kadmin runs one kadmin.local query and fails when it prints an error
// (kadmin.local exits 0 after most failed queries).
func (k *KDC) kadmin(ctx context.Context, query string) error {
	cmd := exec.CommandContext(ctx, k.install.KAdminLocal, "-r", k.cfg.Realm, "-q", query)
	cmd.Env = k.Env()
	cmd.Dir = k.cfg.Dir
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "while ") {
		err = errors.New("kadmin.local reported an error")
	}
	if err != nil {
		return fmt.Errorf("krb5kdc: kadmin.local %q: %w\n%s", query, err, out)
	}
	return nil
}

// Principal is a principal to add to the realm.
type Principal struct {
	// Name is the principal without realm, such as "kafka" or
	// "zookeeper/localhost".
	Name string
	// Password, when set, is the principal's password; otherwise its key
	// is random and only a keytab holds it.
	Password string
	// MaxLife, when positive, caps the lifetime of its tickets.
	MaxLife time.Duration
	// MaxRenewableLife, when positive, caps how long its tickets can be
	// renewed.
	MaxRenewableLife time.Duration
}

// AddPrincipal adds p to the realm.
func (k *KDC) AddPrincipal(ctx context.Context, p Principal) error {
	q := "addprinc"
	if p.Password != "" {
		q += " -pw " + quote(p.Password)
	} else {
		q += " -randkey"
	}
	if p.MaxLife > 0 {
		q += " -maxlife " + quote(kadminDuration(p.MaxLife))
	}
	if p.MaxRenewableLife > 0 {
		q += " -maxrenewlife " + quote(kadminDuration(p.MaxRenewableLife))
	}
	return k.kadmin(ctx, q+" "+quote(p.Name))
}

// DeletePrincipal removes principal (without realm) from the realm.
func (k *KDC) DeletePrincipal(ctx context.Context, principal string) error {
	return k.kadmin(ctx, "delprinc -force "+quote(principal))
}

// WriteKeytab adds the current keys of principals (without realm) to the
// keytab at path, keeping their keys and key version numbers.
func (k *KDC) WriteKeytab(ctx context.Context, path string, principals ...string) error {
	for _, p := range principals {
		if err := k.kadmin(ctx, "ktadd -norandkey -k "+quote(path)+" "+quote(p)); err != nil {
			return err
		}
	}
	return nil
}

// Kinit gets a ticket-granting ticket for principal (without realm) from
// keytab into the credential cache file ccache, with kinit; renewable for
// renewFor when positive, else not renewable.
func (k *KDC) Kinit(ctx context.Context, principal, keytab, ccache string, renewFor time.Duration) error {
	if k.install.Kinit == "" {
		return errors.New("krb5kdc: no kinit (apt-get install krb5-user)")
	}
	args := []string{"-k", "-t", keytab, "-c", "FILE:" + ccache}
	if renewFor > 0 {
		args = append(args, "-r", strconv.FormatInt(int64(renewFor/time.Second), 10)+"s")
	}
	return k.run(ctx, k.install.Kinit, append(args, principal+"@"+k.cfg.Realm)...)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
