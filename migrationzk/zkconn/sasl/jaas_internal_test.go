package sasl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kafkaJAAS is a broker's JAAS file as Kafka's documentation shows one:
// the broker's own sections, and the Client section for ZooKeeper.
const kafkaJAAS = `
// the broker's listener
KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin"
    password="admin-secret"
    user_admin="admin-secret";
};

/* ZooKeeper, DIGEST-MD5 */
Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="kafka"
    password="kafka-secret";
};

ZkKerberos {
    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true
    storeKey=true
    debug=false
    keyTab="/etc/security/keytabs/kafka.keytab"
    principal="kafka/broker1.example.com@EXAMPLE.COM";
};
`

func writeJAAS(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The Client section of a Kafka JAAS file, unchanged, gives DIGEST-MD5.
func TestJAASKafkaClientSection(t *testing.T) {
	mech, err := Settings{JAASFile: writeJAAS(t, kafkaJAAS)}.Mechanism()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := mech.(*digestMechanism)
	if !ok || d.user != "kafka" || d.password != "kafka-secret" || d.digestURI != zookeeperDigestURI {
		t.Fatalf("mechanism %#v", mech)
	}
	if mech, err := (Settings{JAASFile: writeJAAS(t, kafkaJAAS), Disabled: true}).Mechanism(); mech != nil || err != nil {
		t.Fatalf("zookeeper.sasl.client=false: %v, %v; want no SASL", mech, err)
	}
}

// Krb5LoginModule's options map to a KerberosConfig, with ZooKeeper's
// client settings; options that change nothing are accepted.
func TestJAASKerberosOptions(t *testing.T) {
	sections, err := parseJAAS(kafkaJAAS)
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{ServiceName: "zk", NoCanonicalization: true, Krb5Conf: "/k/krb5.conf"}
	cfg, err := s.kerberosOptions(sections["ZkKerberos"][0])
	if err != nil {
		t.Fatal(err)
	}
	want := KerberosConfig{Principal: "kafka/broker1.example.com@EXAMPLE.COM", KeyTab: "/etc/security/keytabs/kafka.keytab",
		Krb5Conf: "/k/krb5.conf", ServiceName: "zk"}
	if cfg != want {
		t.Fatalf("%+v; want %+v", cfg, want)
	}
	cache := `C { com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true ticketCache="/tmp/cc" doNotPrompt=true; };`
	sections, err = parseJAAS(cache)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err = Settings{}.kerberosOptions(sections["C"][0])
	if err != nil || !cfg.UseTicketCache || cfg.TicketCache != "/tmp/cc" || cfg.KeyTab != "" || !cfg.CanonicalizeHostname {
		t.Fatalf("%+v, %v", cfg, err)
	}
}

// Files and options zkconn cannot honour are errors that name the
// problem, and never the password.
func TestJAASErrors(t *testing.T) {
	cases := map[string]struct{ src, section, want string }{
		"no Client section":     {`KafkaServer { a.B required; };`, "", `no section "Client"`},
		"named section missing": {kafkaJAAS, "ZkClient", `no section "ZkClient"`},
		"unknown module":        {`Client { com.example.Login required; };`, "", "login module com.example.Login is not supported"},
		"two modules":           {`Client { a.B required; c.D optional; };`, "", "exactly one"},
		"digest typo":           {`Client { org.apache.zookeeper.server.auth.DigestLoginModule required usrname="k" password="s3cr3t"; };`, "", "unsupported options usrname"},
		"digest no password":    {`Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="k"; };`, "", "needs username and password"},
		"krb5 unsupported":      {`Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="k" principal="p" useKeyTabOnly=true; };`, "", "unsupported options useKeyTabOnly"},
		"krb5 acceptor":         {`Client { com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true isInitiator=false; };`, "", "isInitiator=false"},
		"krb5 prompt":           {`Client { com.sun.security.auth.module.Krb5LoginModule required principal="p"; };`, "", "password prompt"},
		"krb5 keytab no path":   {`Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true principal="p"; };`, "", "without keyTab"},
		"krb5 bad bool":         {`Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=yes; };`, "", `useKeyTab="yes"`},
		"property expansion":    {`Client { a.B required keyTab="${user.home}/k"; };`, "", "expansion is not supported"},
		"bad flag":              {`Client { a.B mandatory; };`, "", `control flag "mandatory"`},
		"missing semicolon":     {"Client {\n a.B required\n}\n", "", "line 3"},
		"unterminated":          {`Client { a.B required password="s3cr3t; };`, "", "unterminated"},
	}
	for name, c := range cases {
		_, err := Settings{JAASFile: writeJAAS(t, c.src), Section: c.section}.Mechanism()
		var je *JAASError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v; want a *JAASError containing %q, without the password", name, err, c.want)
		}
	}
	if _, err := (Settings{JAASFile: filepath.Join(t.TempDir(), "none")}).Mechanism(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// Kafka's system properties, as a properties file passes them.
func TestSettingsFromProperties(t *testing.T) {
	s, err := SettingsFromProperties(map[string]string{
		PropJAASConfig: "/etc/kafka/jaas.conf", PropSASLClientConfig: "ZkClient", PropSASLServiceName: "zk",
		PropServerPrincipal: "zk/zk1@R", PropCanonicalizeHostname: "false", PropSASLClient: "true", "other": "x",
	})
	want := Settings{JAASFile: "/etc/kafka/jaas.conf", Section: "ZkClient", ServiceName: "zk", ServerPrincipal: "zk/zk1@R", NoCanonicalization: true}
	if err != nil || s != want {
		t.Fatalf("%+v, %v; want %+v", s, err, want)
	}
	if s, _ := SettingsFromProperties(map[string]string{PropSASLClient: "false"}); !s.Disabled {
		t.Fatal("zookeeper.sasl.client=false does not disable SASL")
	}
	if _, err := SettingsFromProperties(map[string]string{PropSASLClient: "ja"}); err == nil {
		t.Fatal("zookeeper.sasl.client=ja accepted")
	}
}
