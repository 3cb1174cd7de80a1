package dualwrite

import (
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// Client writes KRaft metadata changes into ZooKeeper through a
// migrationzk.Writer, as Kafka's migration clients do. Each method takes
// the State the last call returned and returns the State ZooKeeper holds,
// the checkpoint s written by the change's transaction. Each write
// method (CreateTopic, WriteConfigs, ...) applies the change of the Batch
// method of the same name alone, as a Batch of one change; the Batch
// method states what the change writes and refuses. It is safe for
// concurrent use as far as its Writer is, though a migration driver calls
// it from one goroutine.
//
// During its Writer's tenure a Client remembers what it read and wrote:
// each znode's version and existence, the children it listed, and the
// data of each znode but partition states, of which it keeps a 64-bit
// digest. Read, Sync and every write that lands fill it; a call under
// another tenure (controller, KRaft epoch, or /controller_epoch version)
// starts it empty, and a fenced or retired Writer's Client forgets it
// all. A change whose znodes are all remembered is planned without a
// read, every op conditioned on the remembered version, so a write by
// another client in between is refused by ZooKeeper, never overwritten
// unseen. What is remembered is an optimisation, never evidence of what
// landed. Its one limit is ZooKeeper's version check's, which Kafka's
// cached zkVersions share: another client that deletes a remembered
// znode and recreates it, bringing it back to the remembered version,
// is not seen. WithRememberedPartitions bounds it; Forget drops it.
type Client struct {
	w   *migrationzk.Writer
	cfg clientConfig
	mem *memory
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
	return &Client{w: w, cfg: cfg, mem: newMemory(cfg.rememberedPartitions)}, nil
}

// Forget drops everything the Client remembers: the next change reads
// what it touches.
func (c *Client) Forget() { c.mem.forgetAll() }

// Remembered reports how much the Client remembers, for sizing and
// metrics: how many partitions it has room for (what
// WithRememberedPartitions bounds), and how many other znodes it holds.
// Both are 0 for a Client that remembers nothing: a new one, one after
// Forget, or one whose Writer is fenced or retired.
func (c *Client) Remembered() (partitions, znodes int) {
	c.leave()
	return c.mem.size()
}

// enter starts a call under the tenure of s.
func (c *Client) enter(s migrationzk.State) {
	c.leave()
	c.mem.enter(s)
}

// leave forgets everything once the Writer is retired.
func (c *Client) leave() {
	if retired, _ := c.w.Retired(); retired {
		c.mem.forgetAll()
	}
}

// invalidf reports an invalid change.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: dualwrite: "+format, append([]any{migrationzk.ErrInvalidArgument}, args...)...)
}

// report passes e to the trace hook, if any.
func (c *Client) report(e TraceEvent) {
	if c.cfg.trace != nil {
		c.cfg.trace(e)
	}
}
