package main

import (
	"fmt"

	"github.com/magiconair/properties"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

// passwordSecretEnv names the environment variable that may hold
// password.encoder.secret.
const passwordSecretEnv = "MIGRATIONZK_PASSWORD_ENCODER_SECRET"

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
