package dualwrite

import (
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/passwordencoder"
)

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
	// trace is WithTrace's hook, or nil.
	trace func(TraceEvent)
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
// partitions of further topics are read when a change needs them. The
// other znodes a call reads or writes (configs, ACLs, tokens, the
// producer-id block) are remembered whole and are not counted; Forget
// drops everything. 0
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

// WithTrace makes the Client report to hook what each Batch.Apply sends:
// its sync, each wave of reads, and each transaction with its results.
// hook runs on the calling goroutine and must not call the Client.
func WithTrace(hook func(TraceEvent)) Option {
	return func(c *clientConfig) {
		if hook == nil {
			c.fail(invalidf("WithTrace(nil)"))
			return
		}
		c.trace = hook
	}
}

// TraceEvent is one step of a Batch.Apply, as WithTrace reports it.
type TraceEvent struct {
	Kind TraceKind
	// Reads and Listings are how many znodes a TraceReadWave reads and
	// how many children lists it lists, Paths their paths (the znodes'
	// first). It is reported after the call's sync, before the reads are
	// sent.
	Reads, Listings int
	Paths           []string
	// Ops and Results are a TraceTransaction's ops and their fate; Err
	// is its error.
	Ops     []migrationzk.Op
	Results []migrationzk.OpResult
	Err     error
	// Remembered is set on a TraceTransaction planned partly from what
	// the Client remembers.
	Remembered bool
}

// TraceKind says what a TraceEvent reports.
type TraceKind int

// The steps WithTrace reports.
const (
	// TraceSync is the one sync a call makes before its first read.
	TraceSync TraceKind = iota + 1
	// TraceReadWave is a wave of reads sent at once.
	TraceReadWave
	// TraceTransaction is a Writer.ApplyAtomic of planned ops.
	TraceTransaction
)
