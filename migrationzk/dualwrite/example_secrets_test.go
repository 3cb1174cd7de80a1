package dualwrite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Redacted makes an Image that may be shown: password values and SCRAM
// credentials are gone, and the image says so in its JSON, which no write
// accepts back.
func ExampleImage_Redacted() {
	img := dualwrite.NewImage()
	img.Secrets = dualwrite.SecretsPlain
	img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}] = map[string]string{
		"listener.name.internal.ssl.key.password": "key-password", "log.cleaner.threads": "2"}
	img.Scram["alice"] = map[string]znode.ScramCredential{
		znode.ScramSHA256: {Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 8192}}

	shown := img.Redacted()
	fmt.Println(shown.Secrets, shown.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}])
	fmt.Printf("%+v\n", shown.Scram["alice"][znode.ScramSHA256])
	if err := shown.WriteJSON(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// redacted map[listener.name.internal.ssl.key.password:[redacted] log.cleaner.threads:2]
	// {Salt:[] StoredKey:[] ServerKey:[] Iterations:8192}
	// {
	//   "schema_version": 3,
	//   "redacted": true,
	//   "passwords": null,
	//   "topics": [],
	//   "configs": [
	//     {"type":"broker","name":"1","configs":{"listener.name.internal.ssl.key.password":"[redacted]","log.cleaner.threads":"2"}}
	//   ],
	//   "client_quotas": [],
	//   "scram": [
	//     {"user":"alice","credentials":{"SCRAM-SHA-256":{"salt":null,"stored_key":null,"server_key":null,"iterations":8192}}}
	//   ],
	//   "acls": [],
	//   "delegation_tokens": [],
	//   "producer_id_block": null,
	//   "undecodable": []
	// }
}

// Read records the form of the password values it returns: plain with a
// password encoder, as ZooKeeper stores them without. A backup keeps it
// in its JSON, and Sync restores it only through a Client that stores it
// right.
func ExampleSecretForm() {
	backup := `{"schema_version":3,"redacted":false,"passwords":"plain","configs":[{"type":"broker","name":"1","configs":{"ssl.keystore.password":"changeit"}}]}`
	img, err := dualwrite.ReadImageJSON(strings.NewReader(backup))
	if err != nil {
		log.Fatal(err)
	}
	switch img.Secrets {
	case dualwrite.SecretsPlain:
		fmt.Println("restore with a Client built WithPasswordEncoder")
	case dualwrite.SecretsEncoded:
		fmt.Println("restore with a Client without a password encoder")
	case dualwrite.SecretsRedacted:
		fmt.Println("not a backup: its secrets are gone")
	}
	// Output: restore with a Client built WithPasswordEncoder
}

// Syncing an export made for showing, whose secrets are redacted, fails
// with a *SecretError naming the first redacted key, and writes nothing.
func ExampleSecretError() {
	ctx := context.Background()
	conn := connectExample(ctx)
	defer conn.Close()
	c, s := exampleLeader(ctx, conn)

	f, err := os.Open("before.json") // migrationzk export --output before.json
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	img, err := dualwrite.ReadImageJSON(f)
	if err != nil {
		log.Fatal(err)
	}
	_, _, err = c.Sync(ctx, s, img)
	var secret *dualwrite.SecretError
	if errors.As(err, &secret) && secret.Redacted {
		log.Fatalf("%s of %s was redacted: restore from an export made with --include-secrets", secret.Key, secret.Entity)
	}
}
