package dualwrite_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

// A controller whose server.properties set password.encoder.secret reads
// and writes password configs through the same encoder, so that its Image
// holds them in plain text and a Sync compares them decoded.
func ExampleWithPasswordEncoder() {
	ctx := context.Background()
	enc, err := passwordencoder.FromConfig(map[string]string{
		passwordencoder.SecretConfig:          os.Getenv("PASSWORD_ENCODER_SECRET"),
		passwordencoder.CipherAlgorithmConfig: passwordencoder.AESCBC,
	})
	if err != nil {
		log.Fatal(err)
	}
	conn := connectExample(ctx)
	defer conn.Close()
	w, err := migrationzk.New(conn, migrationzk.WithRoot("/kafka"))
	if err != nil {
		log.Fatal(err)
	}
	c, err := dualwrite.New(w, dualwrite.WithPasswordEncoder(enc))
	if err != nil {
		log.Fatal(err)
	}
	img, err := c.Read(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	broker := img.Configs[dualwrite.ConfigResource{Type: dualwrite.BrokerConfig, Name: "1"}]
	fmt.Println(len(broker["listener.name.internal.ssl.key.password"]) > 0)
}
