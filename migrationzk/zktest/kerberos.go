package zktest

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn/sasl"
)

// KerberosServerName is the service principal, without realm, of the
// servers started WithKerberos: ZooKeeper's client derives it for a
// server dialed at 127.0.0.1 (or localhost) by default.
const KerberosServerName = "zookeeper/localhost"

// KerberosClientName is the principal, without realm, as which Connect
// authenticates to servers started WithKerberos: Kafka's brokers commonly
// share it.
const KerberosClientName = "kafka"

// WithKerberos makes started servers authenticate clients with SASL
// GSSAPI in realm: their JAAS Server section logs in as
// zookeeper/localhost@REALM (KerberosServerName) from a keytab made when
// they start, and they read realm's krb5.conf. Connect and ConnectWith
// authenticate as kafka@REALM (KerberosClientName) with its keytab (see
// Security.SASL and Realm.ClientConfig); the server knows the client as
// sasl:kafka@REALM. A ZooKeeper server speaks one mechanism: WithKerberos
// drops the DIGEST-MD5 users of options before it, and is not to be
// combined with WithSASLDigestUser after it. WithSASLEnforced enforces
// GSSAPI.
func WithKerberos(realm *Realm) Option {
	return func(o *options) {
		s := o.saslServer()
		s.digestUsers = nil
		s.setUp = func(dir string) (string, []string, error) {
			client, err := realm.clientOfServers()
			if err != nil {
				return "", nil, err
			}
			s.client = func() (sasl.Mechanism, error) { return sasl.Kerberos(client) }
			return kerberosServerSetUp(realm, dir)
		}
	}
}

// kerberosServerSetUp writes the server principal's keytab into dir and
// returns the JAAS Server entry and the JVM flags.
func kerberosServerSetUp(realm *Realm, dir string) (string, []string, error) {
	keytab := filepath.Join(dir, "zookeeper.keytab")
	if err := realm.serverKeytab(keytab); err != nil {
		return "", nil, err
	}
	if strings.ContainsAny(keytab, "\"\\") {
		return "", nil, fmt.Errorf("zktest: keytab path %q cannot be written in a JAAS file", keytab)
	}
	module := "com.sun.security.auth.module.Krb5LoginModule required\n" +
		"  useKeyTab=true\n  keyTab=\"" + keytab + "\"\n  storeKey=true\n  useTicketCache=false\n" +
		"  principal=\"" + realm.Principal(KerberosServerName) + "\""
	return module, []string{"-Djava.security.krb5.conf=" + realm.Krb5Conf()}, nil
}

// serverKeytab writes the keys of KerberosServerName, added to the realm
// on first use, to a keytab at path.
func (r *Realm) serverKeytab(path string) error {
	if _, err := r.Keytab(KerberosServerName); err != nil {
		return err
	}
	return r.writeKeytab(path, KerberosServerName)
}

// clientOfServers is the client configuration Connect uses with servers
// started WithKerberos: KerberosClientName, added on first use.
func (r *Realm) clientOfServers() (sasl.KerberosConfig, error) {
	keytab, err := r.Keytab(KerberosClientName)
	if err != nil {
		return sasl.KerberosConfig{}, err
	}
	return r.ClientConfig(KerberosClientName, keytab), nil
}
