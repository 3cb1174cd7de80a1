package krb5kdc_test

import (
	"context"
	"log"
	"time"

	"github.com/kraftmigration/zkwriter/internal/testkit/krb5kdc"
)

// A realm with a service principal and a client principal, each with a
// keytab, served on a free loopback port until Stop.
func ExampleStart() {
	inst, err := krb5kdc.FindInstall()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kdc, err := krb5kdc.Start(ctx, inst, krb5kdc.Config{Dir: "/tmp/realm", MaxLife: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	defer kdc.Stop()
	for _, p := range []krb5kdc.Principal{{Name: "zookeeper/localhost"}, {Name: "kafka", MaxLife: time.Minute}} {
		if err := kdc.AddPrincipal(ctx, p); err != nil {
			log.Fatal(err)
		}
	}
	if err := kdc.WriteKeytab(ctx, "/tmp/realm/zk.keytab", "zookeeper/localhost"); err != nil {
		log.Fatal(err)
	}
	_ = kdc.Krb5Conf() // for KRB5_CONFIG and java.security.krb5.conf
}
