package dualwrite

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// WithPasswordEncoder makes the Client handle password configs (those
// passwordencoder.IsPasswordConfig names, in topic and broker configs) as
// a Kafka controller with password.encoder.secret does: Read decodes them,
// so an Image holds them in plain text; WriteConfigs encodes them, with a
// new random salt each time, and writes only when the decoded values
// differ, so that Diff and Sync compare plain values and an unchanged
// image syncs to nothing. A config znode whose password does not decode
// with enc is undecodable: Read lists it and WriteConfigs refuses to
// write over it. Without this option the Client is Kafka without a
// secret: password configs are written and read as they are, in plain
// text. A nil enc is an invalid option, not that default: leave the
// option out instead.
func WithPasswordEncoder(enc *passwordencoder.Encoder) Option {
	return func(c *clientConfig) {
		if enc == nil {
			c.fail(invalidf("WithPasswordEncoder(nil): leave the option out for plain-text password configs"))
			return
		}
		c.passwords = enc
	}
}

// decodePasswords returns cfg with its password configs decoded, or an
// error naming the first that does not decode, never its value.
func (c *Client) decodePasswords(cfg map[string]string) (map[string]string, error) {
	return c.mapPasswords(cfg, (*passwordencoder.Encoder).Decode, func(k string, err error) error {
		return fmt.Errorf("password config %q: %w", k, err)
	})
}

// encodePasswords returns cfg with its password configs encoded, or an
// invalid-argument error naming the first that cannot be, never its
// value.
func (c *Client) encodePasswords(cfg znode.Config) (znode.Config, error) {
	return c.mapPasswords(cfg, (*passwordencoder.Encoder).Encode, func(k string, err error) error {
		return invalidf("password config %q: %v", k, err)
	})
}

// mapPasswords returns cfg with each password config replaced by what
// convert makes of it, in key order, or the error fail makes of the
// first that convert refuses. Without an encoder it returns cfg as is.
func (c *Client) mapPasswords(cfg map[string]string, convert func(*passwordencoder.Encoder, string) (string, error),
	fail func(key string, err error) error) (map[string]string, error) {
	if c.cfg.passwords == nil {
		return cfg, nil
	}
	out := maps.Clone(cfg)
	for _, k := range sortedKeys(cfg, stringLess) {
		if !passwordencoder.IsPasswordConfig(k) {
			continue
		}
		v, err := convert(c.cfg.passwords, cfg[k])
		if err != nil {
			return nil, fail(k, err)
		}
		out[k] = v
	}
	return out, nil
}

// withheldData stands for the data of a config znode in errors: such a
// znode may hold passwords and SCRAM credentials.
const withheldData = "withheld: config znodes may hold passwords"

// withholdConfigData returns err with the raw data of a *znode.DecodeError
// withheld when p is a config znode.
func withholdConfigData(p string, err error) error {
	var de *znode.DecodeError
	if !strings.HasPrefix(p, znode.ConfigRootPath+"/") || !errors.As(err, &de) || de.Data == nil {
		return err
	}
	if top, ok := err.(*znode.DecodeError); ok {
		c := *top
		c.Data = []byte(withheldData)
		return &c
	}
	c := *de
	c.Data = []byte(withheldData)
	return fmt.Errorf("%s: %w", p, &c)
}
