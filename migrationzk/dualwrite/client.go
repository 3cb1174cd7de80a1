package dualwrite

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

// Client writes KRaft metadata changes into ZooKeeper through a
// migrationzk.Writer, as Kafka's migration clients do. Each method takes
// the State the last call returned and returns the State ZooKeeper holds,
// the checkpoint s written by the change's transaction. It is safe for
// concurrent use as far as its Writer is, though a migration driver calls
// it from one goroutine.
type Client struct {
	w *migrationzk.Writer
	// passwords encodes and decodes password configs; nil for plain text.
	passwords *passwordencoder.Encoder
}

// New returns a Client that writes through w, configured by opts.
func New(w *migrationzk.Writer, opts ...Option) *Client {
	var cfg clientConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	return &Client{w: w, passwords: cfg.passwords}
}

// invalidf reports an invalid change.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: dualwrite: "+format, append([]any{migrationzk.ErrInvalidArgument}, args...)...)
}
