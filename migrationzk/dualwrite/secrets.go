package dualwrite

import (
	"fmt"
	"maps"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// RedactedValue stands for a password config's value in a redacted Image
// (Image.Redacted). No write writes it: a password config holding it is
// refused with a *SecretError.
const RedactedValue = "[redacted]"

// Kafka's bounds on a SCRAM credential's iteration count, outside which
// its KRaft controller refuses a credential.
const (
	minScramIterations = 4096
	maxScramIterations = 16384
)

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
	// compared, never written back.
	SecretsRedacted SecretForm = "redacted"
)

// Redacted returns a copy of img that may be shown: each password config's
// value is RedactedValue, each SCRAM credential holds its iteration count
// alone, and Secrets is SecretsRedacted. The copy shares img's other maps.
// Comparing two redacted images (Diff) sees a password config or a
// credential appear or go, never its value change. A redacted value is
// never written back: each write refuses it (see SecretError), so that a
// redacted export synced by mistake changes nothing it would destroy.
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

// SecretError is the error of a write refused because of a secret it
// would write: a password config whose value is RedactedValue; a SCRAM
// credential without a salt, a stored key or a server key, as
// Image.Redacted leaves them; or a SCRAM credential whose iteration count
// Kafka refuses (outside 4096 to 16384), unless ZooKeeper holds that very
// credential already, as legacy tools left some, which is written back as
// Kafka's migration writes it. The rules hold whatever the image came
// from, an export of an older schema version included, and only for what
// is written: reading never refuses, and a Sync that leaves an entity as
// ZooKeeper holds it does not look at its secrets.
//
// A redacted value is refused when the change is recorded, before
// anything is sent (a Sync reads the tree first); a credential's
// iteration count after the read that shows ZooKeeper does not hold it.
// Either way nothing is written. The error names the config entity and the
// first key at fault, never a value, and matches
// migrationzk.ErrInvalidArgument.
type SecretError struct {
	// Entity is the config entity, as Kafka's change notifications name
	// it: "brokers/1", "topics/orders", "users/alice".
	Entity string
	// Key is the password config's name, or the SCRAM mechanism.
	Key string
	// Redacted reports a redacted value (RedactedValue, or a credential
	// without its salt or keys), as opposed to a credential Kafka
	// refuses.
	Redacted bool
	// Reason says what is wrong, such as "no salt".
	Reason string
}

func (e *SecretError) Error() string {
	hint := ""
	if e.Redacted {
		hint = ": a redacted value is never written back; write the value itself, from an image that is not redacted"
	}
	return fmt.Sprintf("%v: dualwrite: config %s, %s: %s%s", migrationzk.ErrInvalidArgument, e.Entity, e.Key, e.Reason, hint)
}

// Unwrap returns migrationzk.ErrInvalidArgument.
func (e *SecretError) Unwrap() error { return migrationzk.ErrInvalidArgument }

// redactedPassword returns the error for the first password config of
// cfg, in key order, whose value is RedactedValue; nil when there is none.
func redactedPassword(e znode.ConfigEntity, cfg map[string]string) error {
	first, found := "", false
	for k, v := range cfg {
		if v == RedactedValue && (!found || k < first) && passwordencoder.IsPasswordConfig(k) {
			first, found = k, true
		}
	}
	if !found {
		return nil
	}
	return &SecretError{Entity: e.EntityPath(), Key: first, Redacted: true, Reason: "the value is " + RedactedValue}
}

// checkScram checks the credentials to be written to e, in mechanism
// order: the error for the first redacted one, else the errors of those
// whose iteration counts Kafka refuses, which may still be written where
// ZooKeeper holds them already (view.admitCredentials).
func checkScram(e znode.ConfigEntity, scram map[string]znode.ScramCredential) (refusedIterations []*SecretError, err error) {
	for _, m := range sortedKeys(scram, stringLess) {
		c := scram[m]
		reason, redacted := "", true
		switch {
		case len(c.Salt) == 0:
			reason = "the SCRAM credential has no salt"
		case len(c.StoredKey) == 0:
			reason = "the SCRAM credential has no stored key"
		case len(c.ServerKey) == 0:
			reason = "the SCRAM credential has no server key"
		case c.Iterations < minScramIterations || c.Iterations > maxScramIterations:
			reason, redacted = fmt.Sprintf("the SCRAM credential's iterations %d are outside Kafka's %d to %d", c.Iterations, minScramIterations, maxScramIterations), false
		default:
			continue
		}
		se := &SecretError{Entity: e.EntityPath(), Key: m, Redacted: redacted, Reason: reason}
		if redacted {
			return nil, se
		}
		refusedIterations = append(refusedIterations, se)
	}
	return refusedIterations, nil
}

// admitCredentials reports whether the credentials that refused names,
// whose iteration counts Kafka refuses, may be written to e's config
// znode: each only where the znode holds that very credential already.
// When one is not held, the batch fails with its error; when what the
// znode holds is not known yet, it is asked for and the answer is false.
func (v *view) admitCredentials(e znode.ConfigEntity, scram map[string]znode.ScramCredential, refused []*SecretError) bool {
	if len(refused) == 0 {
		return true
	}
	z, known := v.current(e.Path())
	if !known {
		return false
	}
	var held znode.Config
	if z.Exists && z.Data != nil {
		held, _ = znode.DecodeConfig(z.Data) // a config that does not decode holds no credential
	}
	for _, se := range refused {
		text, ok := held[se.Key]
		cur, err := znode.DecodeScramCredential([]byte(text))
		if !ok || err != nil || !cur.Equal(scram[se.Key]) {
			if v.err == nil {
				v.err = se
			}
			return false
		}
	}
	return true
}

// secretForm is the form of the secrets c reads.
func (c *Client) secretForm() SecretForm {
	if c.cfg.passwords != nil {
		return SecretsPlain
	}
	return SecretsEncoded
}

// checkSecretForm refuses to Sync desired, whose secrets are in a form
// that c would store wrongly.
func (c *Client) checkSecretForm(desired Image) error {
	switch {
	case desired.Secrets == SecretsPlain && c.cfg.passwords == nil:
		return invalidf("Sync: the image holds password configs in plain text (SecretsPlain), which a Client without a password encoder would store as they are: " +
			"sync it with a Client built WithPasswordEncoder, with the cluster's password.encoder.secret")
	case desired.Secrets == SecretsEncoded && c.cfg.passwords != nil:
		return invalidf("Sync: the image holds password configs as ZooKeeper stores them (SecretsEncoded), which the Client's password encoder would encode again: " +
			"sync it with a Client built without WithPasswordEncoder")
	}
	return nil
}
