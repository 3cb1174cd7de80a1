package dualwrite

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// Client writes KRaft metadata changes into ZooKeeper through a
// migrationzk.Writer, as Kafka's migration clients do. Each method takes
// the State the last call returned and returns the State ZooKeeper holds,
// the checkpoint s written by the change's transaction. It is safe for
// concurrent use as far as its Writer is, though a migration driver calls
// it from one goroutine.
type Client struct {
	w   *migrationzk.Writer
	cfg clientConfig
}

// New returns a Client that writes through w. A nil w, or an invalid
// option, fails it with an error wrapping migrationzk.ErrInvalidArgument.
func New(w *migrationzk.Writer, opts ...Option) (*Client, error) {
	if w == nil {
		return nil, invalidf("New: nil Writer")
	}
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Client{w: w, cfg: cfg}, nil
}

// invalidf reports an invalid change.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: dualwrite: "+format, append([]any{migrationzk.ErrInvalidArgument}, args...)...)
}
