package main

import (
	"fmt"
	"maps"

	"github.com/magiconair/properties"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// passwordSecretEnv names the environment variable that may hold
// password.encoder.secret.
const passwordSecretEnv = "MIGRATIONZK_PASSWORD_ENCODER_SECRET"

// redacted stands for a password config's value in what the tool prints.
const redacted = "[redacted]"

// readPasswordEncoder returns the password encoder of
// --password-encoder-config-file, a Kafka properties file holding
// password.encoder.*, or of $MIGRATIONZK_PASSWORD_ENCODER_SECRET with
// Kafka's default settings; nil when neither is given, never both. No
// error quotes the secret.
func (a *app) readPasswordEncoder() (*passwordencoder.Encoder, error) {
	env := a.getenv(passwordSecretEnv)
	switch {
	case a.g.passwordFile != "" && env != "":
		return nil, fmt.Errorf("both --password-encoder-config-file and $%s are set: give one of them", passwordSecretEnv)
	case env != "":
		enc, err := passwordencoder.FromConfig(map[string]string{passwordencoder.SecretConfig: env})
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", passwordSecretEnv, err)
		}
		return enc, nil
	case a.g.passwordFile == "":
		return nil, nil
	}
	loader := &properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
	p, err := loader.LoadFile(a.g.passwordFile)
	if err != nil {
		return nil, fmt.Errorf("--password-encoder-config-file %s: cannot be read as a properties file", a.g.passwordFile)
	}
	enc, err := passwordencoder.FromConfig(p.Map())
	switch {
	case err != nil:
		return nil, fmt.Errorf("--password-encoder-config-file %s: %w", a.g.passwordFile, err)
	case enc == nil:
		return nil, fmt.Errorf("--password-encoder-config-file %s: holds no %s", a.g.passwordFile, passwordencoder.SecretConfig)
	}
	return enc, nil
}

// clientOptions are the options of the tool's dualwrite clients.
func (a *app) clientOptions() []dualwrite.Option {
	if a.passwords == nil {
		return nil
	}
	return []dualwrite.Option{dualwrite.WithPasswordEncoder(a.passwords)}
}

// redactImage returns img with every password config value replaced by
// [redacted] and every SCRAM credential by one holding only its iteration
// count, so that neither is printed. Comparing two redacted images sees a
// password config or credential appear or go, not its value change.
func redactImage(img dualwrite.Image) dualwrite.Image {
	configs := make(map[dualwrite.ConfigResource]map[string]string, len(img.Configs))
	for r, cfg := range img.Configs {
		out := maps.Clone(cfg)
		for k := range out {
			if passwordencoder.IsPasswordConfig(k) {
				out[k] = redacted
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
	return img
}
