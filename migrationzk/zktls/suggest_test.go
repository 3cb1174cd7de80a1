package zktls

import (
	"errors"
	"testing"
)

// Fault: misspelt TLS keys. An unknown key that misspells one of Kafka's
// is refused naming the key it most likely meant; one far from every key
// is refused without a guess.
func TestUnknownKeySuggestsNearest(t *testing.T) {
	for k, want := range map[string]string{
		"zookeeper.ssl.trustore.location":  "zookeeper.ssl.truststore.location",
		"zookeeper.ssl.keystore.locaton":   "zookeeper.ssl.keystore.location",
		"zookeeper.ssl.keystore.pasword":   "zookeeper.ssl.keystore.password",
		"zookeeper.ssl.Keystore.Type":      "zookeeper.ssl.keystore.type",
		"zookeeper.ssl.enabledprotocols":   "zookeeper.ssl.enabled.protocols",
		"zookeeper.ssl.keystore.pass":      "zookeeper.ssl.keystore.password",
		"zookeeper.ssl.cipher.suite":       "zookeeper.ssl.cipher.suites",
		"zookeeper.ssl.foo":                "",
		"zookeeper.ssl.quorum.hostname.ok": "",
	} {
		err := checkKeys(map[string]string{k: "x"})
		var e *Error
		if !errors.As(err, &e) || e.Key != k || !errors.Is(err, ErrUnknownProperty) {
			t.Fatalf("%s: %v, want an *Error naming it", k, err)
		}
		wantText := "zktls: " + k + ": unknown property"
		if want != "" {
			wantText += ": did you mean " + want + "?"
		}
		if err.Error() != wantText {
			t.Errorf("%s: %q, want %q", k, err, wantText)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Fatalf("editDistance(kitten, sitting) = %d", d)
	}
}
