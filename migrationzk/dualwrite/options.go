package dualwrite

import "github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"

// Option configures a Client. An invalid option makes New fail with an
// error wrapping migrationzk.ErrInvalidArgument.
type Option func(*clientConfig)

// clientConfig is what the options of New set.
type clientConfig struct {
	err error // the first invalid option's
	// passwords encodes and decodes password configs; nil for plain
	// text (WithPasswordEncoder).
	passwords *passwordencoder.Encoder
}

// fail records the error of an invalid option, unless an earlier one
// failed already.
func (c *clientConfig) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// buildConfig applies opts and returns the first invalid one's error.
func buildConfig(opts []Option) (clientConfig, error) {
	var c clientConfig
	for i, opt := range opts {
		if opt == nil {
			c.fail(invalidf("option %d is nil", i))
			continue
		}
		opt(&c)
	}
	return c, c.err
}
