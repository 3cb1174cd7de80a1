package passwordencoder_test

import (
	"fmt"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

func Example() {
	// The settings of the Kafka controllers' server.properties.
	enc, err := passwordencoder.FromConfig(map[string]string{
		"password.encoder.secret":           "encoder-secret",
		"password.encoder.cipher.algorithm": "AES/GCM/NoPadding",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	name := "listener.name.internal.ssl.key.password"
	fmt.Println(passwordencoder.IsPasswordConfig(name))

	encoded, err := enc.Encode("key-password")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(encoded, "cipherAlgorithm:AES/GCM/NoPadding"))
	plain, err := enc.Decode(encoded)
	fmt.Println(plain, err)

	wrong, _ := passwordencoder.New("another-secret", passwordencoder.WithCipherAlgorithm(passwordencoder.AESGCM))
	_, err = wrong.Decode(encoded)
	fmt.Println(err)
	// Output:
	// true
	// true
	// key-password <nil>
	// passwordencoder: password could not be decoded: wrong secret or altered value
}
