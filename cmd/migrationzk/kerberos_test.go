package main

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/securitytest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// kerberosCluster starts a realm and a server that enforces SASL GSSAPI
// in it, and lays out a rolled-back cluster as Kafka with
// zookeeper.set.acl=true creates it: every znode owned by
// sasl:kafka@EXAMPLE.TEST.
func kerberosCluster(t *testing.T) (*cluster, *zktest.Realm) {
	t.Helper()
	realm, srv := securitytest.Kerberos(t)
	return kafkaSecureCluster(t, srv, srv.Connect(t), "/kafka", uniform("orders", 3, 50)), realm
}

// TestKerberosCommands runs status and rollback-fix --apply --yes on a
// cluster whose ZooKeeper enforces SASL GSSAPI, with a broker's Kerberos
// JAAS file used unchanged and krb5.conf from KRB5_CONFIG; then, with the
// KDC stopped, the same fix fails at once, saying no KDC answered, and
// writes nothing.
// Situation: a Kerberos-only cluster with Kafka's secure ACLs.
func TestKerberosCommands(t *testing.T) {
	c, realm := kerberosCluster(t)
	keytab := securitytest.KafkaKeytab(t, realm)
	jaas := tempFile(t, "kafka_server_jaas.conf", securitytest.KerberosJAAS(keytab, realm.Principal(zktest.KerberosClientName)))
	env := []string{"KRB5_CONFIG=" + realm.Krb5Conf()}
	flags := []string{"--zk-jaas-config", jaas}
	r := c.runSASL(env, flags, "status")
	wantCode(t, r, exitOK)
	wantOutput(t, r, "ZooKeeper-mode broker 1 (version 0, ephemeral)", "43 (version 43)")
	if acl := c.acls(znode.ControllerEpochPath)[znode.ControllerEpochPath]; len(acl) != 2 ||
		acl[0] != (zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: realm.Principal(zktest.KerberosClientName)}) {
		t.Fatalf("the cluster lacks Kafka's ACLs for the Kerberos principal: %v", acl)
	}
	ctl, ctlStat := c.get(znode.ControllerPath)
	if err := realm.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r = c.runSASL(env, flags, "rollback-fix", "--apply", "--yes")
	wantBadInput(t, r, "SASL GSSAPI authentication with "+c.srv.Addr()+" failed: no Kerberos KDC answered", start)
	c.unchanged(znode.ControllerPath, ctl, ctlStat.Version)
	if err := realm.Restart(); err != nil {
		t.Fatal(err)
	}
	r = c.runSASL(env, flags, "rollback-fix", "--apply", "--yes")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stdout, "Verdict: safe.") {
		t.Fatalf("rollback-fix after the KDC came back:\n%s", r)
	}
}
