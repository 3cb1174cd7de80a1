package dualwrite_test

import (
	"fmt"
	"log"
	"os"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Redacted makes an Image that may be shown: password values and SCRAM
// credentials are gone, and the image says so in its JSON.
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
