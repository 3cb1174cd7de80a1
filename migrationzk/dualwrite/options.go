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
	// rememberedPartitions bounds what the Client remembers
	// (WithRememberedPartitions).
	rememberedPartitions int
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
	c := clientConfig{rememberedPartitions: DefaultRememberedPartitions}
	for i, opt := range opts {
		if opt == nil {
			c.fail(invalidf("option %d is nil", i))
			continue
		}
		opt(&c)
	}
	return c, c.err
}

// WithRememberedPartitions bounds what the Client remembers to about n
// partitions (24 bytes each, plus their topics' data); past it, the
// partitions of further topics are read when a change needs them. 0
// makes the Client remember nothing, so that every change reads what it
// touches after a sync. A negative n is invalid.
func WithRememberedPartitions(n int) Option {
	return func(c *clientConfig) {
		if n < 0 {
			c.fail(invalidf("WithRememberedPartitions(%d): negative", n))
			return
		}
		c.rememberedPartitions = n
	}
}
