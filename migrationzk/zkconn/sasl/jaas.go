package sasl

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The system properties through which Kafka brokers and tools configure
// SASL for ZooKeeper's Java client.
const (
	PropJAASConfig           = "java.security.auth.login.config"
	PropSASLClientConfig     = "zookeeper.sasl.clientconfig"
	PropSASLClient           = "zookeeper.sasl.client"
	PropSASLServiceName      = "zookeeper.sasl.client.username"
	PropServerPrincipal      = "zookeeper.server.principal"
	PropCanonicalizeHostname = "zookeeper.sasl.client.canonicalize.hostname"
	PropKrb5Conf             = "java.security.krb5.conf"
)

// DefaultJAASSection is the JAAS section ZooKeeper's client reads unless
// zookeeper.sasl.clientconfig names another.
const DefaultJAASSection = "Client"

// Settings are the SASL settings of ZooKeeper's Java client, which a
// Kafka broker or tool takes from system properties.
type Settings struct {
	// JAASFile is java.security.auth.login.config: the JAAS file whose
	// section configures the client. Empty means no SASL.
	JAASFile string
	// Section is zookeeper.sasl.clientconfig; empty means "Client".
	Section string
	// Disabled is zookeeper.sasl.client=false: no SASL, JAAS file or not.
	Disabled bool
	// ServiceName is zookeeper.sasl.client.username, the first component
	// of the server's Kerberos principal; empty means "zookeeper".
	ServiceName string
	// ServerPrincipal is zookeeper.server.principal, the server's whole
	// Kerberos principal.
	ServerPrincipal string
	// NoCanonicalization is
	// zookeeper.sasl.client.canonicalize.hostname=false: the host of the
	// server principal is the host dialled, not its canonical name.
	NoCanonicalization bool
	// Krb5Conf is java.security.krb5.conf; empty means $KRB5_CONFIG or
	// /etc/krb5.conf.
	Krb5Conf string
}

// SettingsFromProperties reads Settings from properties named as the
// Java system properties (PropJAASConfig and the others); other keys are
// ignored. A boolean that is neither true nor false is an error.
func SettingsFromProperties(props map[string]string) (Settings, error) {
	s := Settings{
		JAASFile:        props[PropJAASConfig],
		Section:         props[PropSASLClientConfig],
		ServiceName:     props[PropSASLServiceName],
		ServerPrincipal: props[PropServerPrincipal],
		Krb5Conf:        props[PropKrb5Conf],
	}
	enabled, err := boolProperty(props, PropSASLClient, true)
	if err != nil {
		return Settings{}, err
	}
	canonicalize, err := boolProperty(props, PropCanonicalizeHostname, true)
	if err != nil {
		return Settings{}, err
	}
	s.Disabled, s.NoCanonicalization = !enabled, !canonicalize
	return s, nil
}

func boolProperty(props map[string]string, key string, def bool) (bool, error) {
	v, ok := props[key]
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil || (strings.TrimSpace(v) != "true" && strings.TrimSpace(v) != "false") {
		return false, fmt.Errorf("sasl: %s=%q: want true or false", key, v)
	}
	return b, nil
}

// JAASError reports a JAAS configuration that cannot be used: a file that
// cannot be read or parsed, a section that is missing, or a login module
// or option that is not supported. Err never holds a password.
type JAASError struct {
	// Path is the file, or empty for text not read from a file.
	Path string
	// Line is where the problem is, or 0 for the whole configuration.
	Line int
	Err  error
}

func (e *JAASError) Error() string {
	where := "JAAS configuration"
	if e.Path != "" {
		where = "JAAS file " + e.Path
	}
	if e.Line > 0 {
		return fmt.Sprintf("sasl: %s, line %d: %v", where, e.Line, e.Err)
	}
	return fmt.Sprintf("sasl: %s: %v", where, e.Err)
}

func (e *JAASError) Unwrap() error { return e.Err }

// The login modules a ZooKeeper client section may name.
const (
	digestLoginModule = "org.apache.zookeeper.server.auth.DigestLoginModule"
	krb5LoginModule   = "com.sun.security.auth.module.Krb5LoginModule"
)

// FromJAASFile returns the mechanism the Client section of the JAAS file
// at path configures, as ZooKeeper's Java client reads it when
// java.security.auth.login.config names the file: it is
// Settings{JAASFile: path}.Mechanism(), and an empty path is an error.
func FromJAASFile(path string) (Mechanism, error) {
	if path == "" {
		return nil, &JAASError{Err: errors.New("no JAAS file given")}
	}
	return Settings{JAASFile: path}.Mechanism()
}

// Mechanism returns the mechanism s configures: the JAAS file's section
// (Section, else "Client") must hold exactly one login module,
// DigestLoginModule (username, password) for DigestMD5 or Krb5LoginModule
// for Kerberos, whose KerberosConfig the module's options and s's server
// principal settings make. Options that change nothing for a client
// (storeKey, debug, user_NAME, ...) are accepted; any other is an error
// that names it, as are another login module and a missing section:
// ZooKeeper's client would then connect without SASL, but a file given on
// purpose must be used. It returns nil and no error when s configures no
// SASL: no JAAS file, or Disabled. Errors are *JAASError; one from
// Kerberos wraps its *Error.
func (s Settings) Mechanism() (Mechanism, error) {
	if s.Disabled || s.JAASFile == "" {
		return nil, nil
	}
	src, err := os.ReadFile(s.JAASFile)
	if err != nil {
		return nil, &JAASError{Path: s.JAASFile, Err: err}
	}
	sections, err := parseJAAS(string(src))
	if err != nil {
		var je *JAASError
		if errors.As(err, &je) {
			je.Path = s.JAASFile
		}
		return nil, err
	}
	section := s.Section
	if section == "" {
		section = DefaultJAASSection
	}
	entries, ok := sections[section]
	if !ok {
		return nil, &JAASError{Path: s.JAASFile, Err: fmt.Errorf("no section %q (sections: %s)", section, strings.Join(sortedKeys(sections), ", "))}
	}
	if len(entries) != 1 {
		return nil, &JAASError{Path: s.JAASFile, Err: fmt.Errorf("section %q has %d login modules; exactly one is supported", section, len(entries))}
	}
	mech, err := s.mechanismFor(entries[0])
	if err != nil {
		return nil, &JAASError{Path: s.JAASFile, Line: entries[0].line, Err: err}
	}
	return mech, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s Settings) mechanismFor(e jaasEntry) (Mechanism, error) {
	switch e.LoginModule {
	case digestLoginModule:
		user, password, err := digestOptions(e)
		if err != nil {
			return nil, err
		}
		return DigestMD5(user, password), nil
	case krb5LoginModule:
		cfg, err := s.kerberosOptions(e)
		if err != nil {
			return nil, err
		}
		return Kerberos(cfg)
	}
	return nil, fmt.Errorf("login module %s is not supported (use %s or %s)", e.LoginModule, digestLoginModule, krb5LoginModule)
}

// digestOptions reads DigestLoginModule's options. The module reads
// username and password only; Kafka's files may hold user_NAME entries
// and debug, which change nothing for a client.
func digestOptions(e jaasEntry) (user, password string, err error) {
	var unknown []string
	for _, k := range e.keys {
		if k != "username" && k != "password" && k != "debug" && !strings.HasPrefix(k, "user_") {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return "", "", fmt.Errorf("%s: unsupported options %s", e.LoginModule, strings.Join(unknown, ", "))
	}
	user, okUser := e.Options["username"]
	password, okPassword := e.Options["password"]
	if !okUser || user == "" || !okPassword {
		return "", "", fmt.Errorf("%s needs username and password", e.LoginModule)
	}
	return user, password, nil
}

// krb5Inert are Krb5LoginModule options that change nothing for a
// client that logs in once from a keytab or a ticket cache and never
// prompts: they steer storing credentials in the JAAS subject, sharing
// them with other modules, debugging output and prompting.
func krb5Inert() map[string]bool {
	return map[string]bool{"storeKey": true, "debug": true, "doNotPrompt": true, "refreshKrb5Config": true,
		"renewTGT": true, "clearPass": true, "tryFirstPass": true, "useFirstPass": true, "storePass": true}
}

// kerberosOptions maps Krb5LoginModule's options to a KerberosConfig.
func (s Settings) kerberosOptions(e jaasEntry) (KerberosConfig, error) {
	inert := krb5Inert()
	var unsupported []string
	for _, k := range e.keys {
		switch {
		case inert[k], k == "principal", k == "keyTab", k == "ticketCache":
		case k == "useKeyTab", k == "useTicketCache", k == "isInitiator":
			if _, err := jaasBool(e, k, false); err != nil {
				return KerberosConfig{}, err
			}
		default:
			unsupported = append(unsupported, k)
		}
	}
	if len(unsupported) > 0 {
		return KerberosConfig{}, fmt.Errorf("%s: unsupported options %s", e.LoginModule, strings.Join(unsupported, ", "))
	}
	if initiator, _ := jaasBool(e, "isInitiator", true); !initiator {
		return KerberosConfig{}, fmt.Errorf("%s: isInitiator=false: a client must initiate", e.LoginModule)
	}
	useKeyTab, _ := jaasBool(e, "useKeyTab", false)
	useCache, _ := jaasBool(e, "useTicketCache", false)
	cfg := KerberosConfig{Principal: e.Options["principal"], UseTicketCache: useCache, TicketCache: e.Options["ticketCache"],
		Krb5Conf: s.Krb5Conf, ServiceName: s.ServiceName, ServerPrincipal: s.ServerPrincipal, CanonicalizeHostname: !s.NoCanonicalization}
	switch {
	case useKeyTab && e.Options["keyTab"] == "":
		return KerberosConfig{}, fmt.Errorf("%s: useKeyTab=true without keyTab: the default keytab is not supported", e.LoginModule)
	case useKeyTab && cfg.Principal == "":
		return KerberosConfig{}, fmt.Errorf("%s: useKeyTab=true without principal: a client that cannot prompt needs it", e.LoginModule)
	case !useKeyTab && !useCache:
		return KerberosConfig{}, fmt.Errorf("%s: neither useKeyTab nor useTicketCache: logging in with a password prompt is not supported", e.LoginModule)
	}
	if useKeyTab {
		cfg.KeyTab = e.Options["keyTab"]
	}
	return cfg, nil
}

// jaasBool reads a boolean option, def when absent.
func jaasBool(e jaasEntry, key string, def bool) (bool, error) {
	v, ok := e.Options[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s: %s=%q: want true or false", e.LoginModule, key, v)
}
