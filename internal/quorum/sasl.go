package quorum

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	zksasl "github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// SASL mechanisms, as Kafka names them.
const (
	mechanismGSSAPI      = "GSSAPI"
	mechanismPlain       = "PLAIN"
	mechanismSCRAMSHA256 = "SCRAM-SHA-256"
	mechanismSCRAMSHA512 = "SCRAM-SHA-512"
)

// The login modules of sasl.jaas.config for each mechanism.
const (
	plainModule    = "org.apache.kafka.common.security.plain.PlainLoginModule"
	scramModule    = "org.apache.kafka.common.security.scram.ScramLoginModule"
	kerberosModule = "com.sun.security.auth.module.Krb5LoginModule"
)

// mechanism returns the SASL mechanism of sasl.mechanism and
// sasl.jaas.config, as franz-go's pkg/sasl implements them.
func mechanism(props map[string]string) (sasl.Mechanism, error) {
	name := props[keyMechanism]
	if name == "" {
		name = mechanismGSSAPI
	}
	entry, err := jaasEntryFor(props, name)
	if err != nil {
		return nil, err
	}
	switch name {
	case mechanismPlain:
		user, pass, err := userPassword(entry)
		if err != nil {
			return nil, err
		}
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case mechanismSCRAMSHA256, mechanismSCRAMSHA512:
		user, pass, err := userPassword(entry)
		if err != nil {
			return nil, err
		}
		if tokenAuth, _ := strconv.ParseBool(entry.Options["tokenauth"]); tokenAuth {
			return nil, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: delegation tokens (tokenauth=true)", ErrUnsupported)}
		}
		auth := scram.Auth{User: user, Pass: pass}
		if name == mechanismSCRAMSHA256 {
			return auth.AsSha256Mechanism(), nil
		}
		return auth.AsSha512Mechanism(), nil
	case mechanismGSSAPI:
		return gssapi(props, entry)
	}
	return nil, &ConfigError{Key: keyMechanism, Err: fmt.Errorf("%w %q: want GSSAPI, PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", ErrUnsupported, name)}
}

// jaasEntryFor reads sasl.jaas.config as Kafka's clients do
// (zkconn/sasl.ParseJAASConfig): one login module, the one the mechanism
// takes.
func jaasEntryFor(props map[string]string, mechanism string) (zksasl.JAASEntry, error) {
	value, ok := props[keyJAAS]
	if !ok || value == "" {
		return zksasl.JAASEntry{}, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: SASL needs sasl.jaas.config in the file (a JAAS file in KAFKA_OPTS is not read)", ErrMissing)}
	}
	entries, err := zksasl.ParseJAASConfig(value)
	if err != nil {
		return zksasl.JAASEntry{}, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	if len(entries) != 1 {
		return zksasl.JAASEntry{}, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: %d login modules; a client takes exactly one", ErrInvalidValue, len(entries))}
	}
	e := entries[0]
	want := map[string]string{mechanismPlain: plainModule, mechanismSCRAMSHA256: scramModule, mechanismSCRAMSHA512: scramModule, mechanismGSSAPI: kerberosModule}[mechanism]
	if want != "" && e.LoginModule != want {
		return zksasl.JAASEntry{}, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: login module %s does not do %s (want %s)", ErrInvalidValue, e.LoginModule, mechanism, want)}
	}
	return e, nil
}

// userPassword returns the username and password options.
func userPassword(e zksasl.JAASEntry) (user, pass string, err error) {
	user, pass = e.Options["username"], e.Options["password"]
	if user == "" || pass == "" {
		return "", "", &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: %s needs username and password options", ErrMissing, shortModule(e.LoginModule))}
	}
	return user, pass, nil
}

func shortModule(class string) string { return class[strings.LastIndexByte(class, '.')+1:] }

// gssapi returns Kerberos through franz-go's pkg/sasl/kerberos, logged in
// from the keytab or the ticket cache Krb5LoginModule's options name,
// with krb5.conf from $KRB5_CONFIG, else /etc/krb5.conf.
func gssapi(props map[string]string, e zksasl.JAASEntry) (sasl.Mechanism, error) {
	service := props[keyServiceName]
	if service == "" {
		return nil, &ConfigError{Key: keyServiceName, Err: fmt.Errorf("%w: GSSAPI needs the brokers' and controllers' Kerberos service name, such as kafka", ErrMissing)}
	}
	cfg, err := krb5Config()
	if err != nil {
		return nil, &ConfigError{Err: fmt.Errorf("krb5.conf: %w", err)}
	}
	cl, err := kerberosClient(e, cfg)
	if err != nil {
		return nil, err
	}
	return kerberos.Auth{Client: cl, Service: service}.AsMechanismWithClose(), nil
}

// krb5Config reads $KRB5_CONFIG, else /etc/krb5.conf.
func krb5Config() (*config.Config, error) {
	path := "/etc/krb5.conf"
	if p := os.Getenv("KRB5_CONFIG"); p != "" {
		path = p
	}
	return config.Load(path)
}

// kerberosClient logs in as Krb5LoginModule's options say: from keyTab
// with useKeyTab=true (principal required), else from the ticket cache
// with useTicketCache=true (ticketCache, else $KRB5CCNAME, else
// /tmp/krb5cc_<uid>).
func kerberosClient(e zksasl.JAASEntry, cfg *config.Config) (*client.Client, error) {
	o := e.Options
	useKeyTab, _ := strconv.ParseBool(o["useKeyTab"])
	useCache, _ := strconv.ParseBool(o["useTicketCache"])
	switch {
	case useKeyTab:
		name, realm, _ := strings.Cut(o["principal"], "@")
		if realm == "" {
			realm = cfg.LibDefaults.DefaultRealm
		}
		if name == "" || o["keyTab"] == "" || realm == "" {
			return nil, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: useKeyTab=true needs keyTab and principal (with a realm, or krb5.conf's default_realm)", ErrMissing)}
		}
		kt, err := keytab.Load(o["keyTab"])
		if err != nil {
			return nil, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("keyTab %s: %w", o["keyTab"], err)}
		}
		return client.NewWithKeytab(name, realm, kt, cfg, client.DisablePAFXFAST(true)), nil
	case useCache:
		path := o["ticketCache"]
		if path == "" {
			path = defaultCCache()
		}
		cc, err := credentials.LoadCCache(path)
		if err != nil {
			return nil, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("ticket cache %s: %w", path, err)}
		}
		cl, err := client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
		if err != nil {
			return nil, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("ticket cache %s: %w", path, err)}
		}
		return cl, nil
	}
	return nil, &ConfigError{Key: keyJAAS, Err: fmt.Errorf("%w: Krb5LoginModule needs useKeyTab=true (with keyTab and principal) or useTicketCache=true", ErrMissing)}
}

// defaultCCache is $KRB5CCNAME (a FILE: cache), else /tmp/krb5cc_<uid>.
func defaultCCache() string {
	if p := os.Getenv("KRB5CCNAME"); p != "" {
		return strings.TrimPrefix(p, "FILE:")
	}
	return "/tmp/krb5cc_" + strconv.Itoa(os.Getuid())
}
