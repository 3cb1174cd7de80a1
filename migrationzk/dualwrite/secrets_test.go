package dualwrite_test

import (
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// TestImageRedacted checks that Redacted replaces every password config's
// value and every SCRAM credential but its iteration count, keeps the
// rest, marks the copy, and leaves the image it copies as it was.
func TestImageRedacted(t *testing.T) {
	img := passwordImage()
	img.Secrets = dualwrite.SecretsPlain
	img.Scram["alice"] = map[string]znode.ScramCredential{znode.ScramSHA256: credential}
	img.Scram["nobody"] = nil
	red := img.Redacted()
	if red.Secrets != dualwrite.SecretsRedacted || img.Secrets != dualwrite.SecretsPlain {
		t.Fatalf("Secrets %q, of the original %q", red.Secrets, img.Secrets)
	}
	broker := red.Configs[brokerOne]
	if broker["listener.name.internal.ssl.key.password"] != dualwrite.RedactedValue || broker["log.cleaner.threads"] != "2" ||
		red.Configs[dualwrite.ConfigResource{Type: dualwrite.TopicConfig, Name: "t"}]["sasl.jaas.config"] != dualwrite.RedactedValue {
		t.Fatalf("redacted configs %v", red.Configs)
	}
	if got := red.Scram["alice"][znode.ScramSHA256]; !got.Equal(znode.ScramCredential{Iterations: credential.Iterations}) || red.Scram["nobody"] != nil {
		t.Fatalf("redacted credentials %+v", red.Scram)
	}
	if img.Configs[brokerOne]["listener.name.internal.ssl.key.password"] != testKeyPassword || !img.Scram["alice"][znode.ScramSHA256].Equal(credential) {
		t.Fatal("Redacted changed the image it copies")
	}
	if len(red.Topics) != 1 || !dualwrite.Diff(red, red.Redacted()).Empty() {
		t.Fatalf("redacted twice differs, or topics lost: %+v", red)
	}
}
