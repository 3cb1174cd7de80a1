package securitytest

import (
	"os"
	"path/filepath"
	"testing"
)

// DigestJAAS is a broker's JAAS file as Kafka's documentation shows one,
// for use unchanged: the broker's own section, and the Client section for
// ZooKeeper, DIGEST-MD5 as user with password.
func DigestJAAS(user, password string) string {
	return `KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin"
    password="admin-secret"
    user_admin="admin-secret";
};

// ZooKeeper
Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="` + user + `"
    password="` + password + `";
};
`
}

// KerberosJAAS is a broker's JAAS file as Kafka's documentation shows one
// for Kerberos, for use unchanged: the broker's own section and the Client
// section for ZooKeeper, both Krb5LoginModule as principal from keytab.
func KerberosJAAS(keytab, principal string) string {
	return `KafkaServer {
    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true
    storeKey=true
    keyTab="` + keytab + `"
    principal="` + principal + `";
};

// ZooKeeper client authentication
Client {
    com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true
    storeKey=true
    useTicketCache=false
    keyTab="` + keytab + `"
    principal="` + principal + `";
};
`
}

// WriteFile writes content to a file named name in a directory of its
// own, removed when the test ends, and returns its path.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
