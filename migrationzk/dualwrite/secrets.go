package dualwrite

import (
	"maps"

	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// RedactedValue stands for a password config's value in a redacted Image
// (Image.Redacted).
const RedactedValue = "[redacted]"

// SecretForm says in what form an Image holds its secrets: the values of
// its password configs (those passwordencoder.IsPasswordConfig names) and
// its SCRAM credentials. SCRAM credentials are salted hashes in every form
// but SecretsRedacted; the forms differ in their password values.
type SecretForm string

// The forms of an Image's secrets.
const (
	// SecretsUnrecorded is an Image whose form is not known: one built
	// by hand, or read from an image JSON of schema version 1 or 2.
	SecretsUnrecorded SecretForm = ""
	// SecretsPlain holds password values in plain text, as KRaft holds
	// them and a Client built WithPasswordEncoder reads them; such a
	// Client encodes them when it writes them.
	SecretsPlain SecretForm = "plain"
	// SecretsEncoded holds password values as ZooKeeper stores them, as
	// a Client without a password encoder reads them: encoded with the
	// cluster's password.encoder.secret, or in plain text where the
	// cluster has none (Kafka's no-op encoder). Such a Client writes them
	// as they are.
	SecretsEncoded SecretForm = "encoded"
	// SecretsRedacted is an Image made by Image.Redacted, to be shown or
	// compared.
	SecretsRedacted SecretForm = "redacted"
)

// Redacted returns a copy of img that may be shown: each password config's
// value is RedactedValue, each SCRAM credential holds its iteration count
// alone, and Secrets is SecretsRedacted. The copy shares img's other maps.
// Comparing two redacted images (Diff) sees a password config or a
// credential appear or go, never its value change.
func (img Image) Redacted() Image {
	configs := make(map[ConfigResource]map[string]string, len(img.Configs))
	for r, cfg := range img.Configs {
		out := maps.Clone(cfg)
		for k := range out {
			if passwordencoder.IsPasswordConfig(k) {
				out[k] = RedactedValue
			}
		}
		configs[r] = out
	}
	img.Configs = configs
	scram := make(map[string]map[string]znode.ScramCredential, len(img.Scram))
	for user, creds := range img.Scram {
		var out map[string]znode.ScramCredential
		if creds != nil {
			out = make(map[string]znode.ScramCredential, len(creds))
		}
		for m, c := range creds {
			out[m] = znode.ScramCredential{Iterations: c.Iterations}
		}
		scram[user] = out
	}
	img.Scram = scram
	img.Secrets = SecretsRedacted
	return img
}

// secretForm is the form of the secrets c reads.
func (c *Client) secretForm() SecretForm {
	if c.cfg.passwords != nil {
		return SecretsPlain
	}
	return SecretsEncoded
}
