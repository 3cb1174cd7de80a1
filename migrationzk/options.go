package migrationzk

import (
	"context"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
)

// BackOff is a retry policy: how long to pause before each retry of a
// streak of failed attempts. cenkalti/backoff v4's BackOff satisfies it.
type BackOff interface {
	// NextBackOff returns the pause before the next retry, or a negative
	// duration (backoff.Stop, which is -1) to give up.
	NextBackOff() time.Duration
	// Reset starts the policy over; it is called at the start of every
	// streak of failed attempts.
	Reset()
}

// DefaultMaxRequestBytes is the default limit on the size of one request:
// ZooKeeper's default jute.maxbuffer (1,048,575 bytes) less a margin. A
// server closes the connection on a larger request, which a client cannot
// tell apart from a lost acknowledgement, so requests are sized before they
// are sent.
const DefaultMaxRequestBytes = 1048575 - 1024

// Option configures a Writer. An invalid option, a nil one included,
// makes New fail with an error wrapping ErrInvalidArgument; no option
// silently means its default.
type Option func(*options)

type options struct {
	newBackOff      func() BackOff
	logger          *slog.Logger
	root            string
	maxRequestBytes int
	// aclPolicy gives the ACL of a znode created at a path relative to
	// the root; acl is its answer for every path when it is the same for
	// all (the default and WithACL), else nil.
	aclPolicy func(path string) []zk.ACL
	acl       []zk.ACL
	now       func() time.Time
	// rollbackSafeEpochs makes a leadership claim raise /controller_epoch
	// to at least the claimant's KRaft controller epoch.
	rollbackSafeEpochs bool
	err                error // the first invalid option
}

func defaultOptions() options {
	world := zk.WorldACL(zk.PermAll)
	return options{
		newBackOff:      defaultBackOff,
		logger:          slog.New(discardHandler{}),
		maxRequestBytes: DefaultMaxRequestBytes,
		aclPolicy:       func(string) []zk.ACL { return world },
		acl:             world,
		now:             time.Now,
	}
}

// buildOptions applies opts over the defaults and returns the first
// invalid one's error.
func buildOptions(opts []Option) (options, error) {
	o := defaultOptions()
	for i, opt := range opts {
		if opt == nil {
			o.fail(invalidf("option %d is nil", i))
			continue
		}
		opt(&o)
	}
	return o, o.err
}

// fail records err, unless an earlier option failed already.
func (o *options) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// defaultBackOff paces retries after a lost connection: quick at first,
// since go-zookeeper reconnects by itself, then up to a second apart. The
// first retry of a streak of failed attempts does not pause (see
// retrier.wait). The context, not the policy, bounds how long a call keeps
// trying.
func defaultBackOff() BackOff {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 2 * time.Millisecond
	b.Multiplier = 2
	b.RandomizationFactor = 0.2
	b.MaxInterval = time.Second
	b.MaxElapsedTime = 0
	return b
}

// WithBackOff sets the retry policy used while the connection is down. The
// function is called by a call that has to retry, once, to get a fresh
// policy (a BackOff holds state and is not safe for concurrent use). The
// policy paces a streak of failed attempts and is Reset when ZooKeeper
// answers a request. Each retry waits for the client to hold a session
// again, after the policy's pause, except the first of a streak: that one
// goes out as soon as the session is back. When the policy gives up
// (NextBackOff returns a negative duration, such as backoff.Stop) the call
// returns: ErrOutcomeUnknown when a write's outcome is unknown, otherwise
// the last connection error; a nil policy gives up at once. A nil function
// is invalid. The default retries until the context ends.
func WithBackOff(newBackOff func() BackOff) Option {
	return func(o *options) {
		if newBackOff == nil {
			o.fail(invalidf("WithBackOff(nil)"))
			return
		}
		o.newBackOff = newBackOff
	}
}

// WithLogger sets the logger. Records carry the attributes path,
// expected_version, version, outcome and attempt. The default discards;
// WithLogger(nil) is invalid.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l == nil {
			o.fail(invalidf("WithLogger(nil)"))
			return
		}
		o.logger = l
	}
}

// WithRoot sets the chroot Kafka runs under, such as "/kafka". It prefixes
// every path: /migration, /controller_epoch, /controller and every op's
// path. It must be a valid absolute znode path, or "" or "/" for
// ZooKeeper's own root (no chroot, as a zookeeper.connect without one),
// the default.
func WithRoot(root string) Option {
	return func(o *options) {
		if root == "/" || root == "" {
			o.root = ""
			return
		}
		if err := validatePath(root); err != nil {
			o.fail(invalidf("root %q: %v", root, err))
			return
		}
		o.root = root
	}
}

// WithMaxRequestBytes sets the largest request payload sent in one piece;
// it should not exceed the servers' jute.maxbuffer. Apply packs ops into as
// few transactions as this allows. The default is DefaultMaxRequestBytes.
func WithMaxRequestBytes(n int) Option {
	return func(o *options) {
		if n < 1024 {
			o.fail(invalidf("WithMaxRequestBytes(%d): must be at least 1024", n))
			return
		}
		o.maxRequestBytes = n
	}
}

// WithRollbackSafeEpochs makes ClaimLeadership raise /controller_epoch to
// max(current+1, the claimant's KRaftControllerEpoch) instead of
// current+1. During dual-write the KRaft controller stamps its KRaft
// epoch on every partition state it writes; with this option each such
// stamp is at most /controller_epoch, so the ZooKeeper-mode controller
// elected after a rollback, which gets /controller_epoch + 1, outranks
// every one of them and no leader election aborts on a partition
// "written by another controller". Without it the stamps can be far above
// the next ZooKeeper-mode controller's epoch until rollback-fix raises it.
//
// This departs from Kafka, whose claim always writes current+1. It is safe
// for ZooKeeper-mode brokers: they compare controller epochs only to tell
// a stale controller from the current one, so a jump reads as a newer
// epoch, which is what the claim is; and the fencing of every write is by
// /controller_epoch's znode version, which a claim raises by one either
// way. The claim in ZooKeeper is still one transaction conditioned on the
// version read, and a claim whose acknowledgement was lost counts as
// landed only with /controller_epoch at exactly that version + 1 holding
// the value this claim wrote. A standing claim of the same controller and
// KRaft epoch (see ClaimLeadership) is resumed only when /controller_epoch
// is at least the KRaft epoch; one made by Kafka's rule is claimed again,
// with the jump. A Writer without the option claims as Kafka does. The
// option changes ClaimLeadership only.
func WithRollbackSafeEpochs() Option {
	return func(o *options) { o.rollbackSafeEpochs = true }
}

// WithACL sets the ACL of every znode the Writer creates. The default is
// zk.WorldACL(zk.PermAll), as Kafka uses without zookeeper.set.acl. An
// empty ACL, or an entry without a scheme or with permissions outside
// zk.PermAll, is invalid.
func WithACL(acl []zk.ACL) Option {
	return func(o *options) {
		if len(acl) == 0 {
			o.fail(invalidf("WithACL: empty ACL"))
			return
		}
		for i, a := range acl {
			if a.Scheme == "" || a.Perms&^zk.PermAll != 0 {
				o.fail(invalidf("WithACL: entry %d (scheme %q, perms %d): needs a scheme and permissions within zk.PermAll", i, a.Scheme, a.Perms))
				return
			}
		}
		acl := append([]zk.ACL(nil), acl...)
		o.aclPolicy, o.acl = func(string) []zk.ACL { return acl }, acl
	}
}

// aclFor returns the ACL of a znode created at full, a path under the
// root: the policy's answer for the path relative to the root.
func (o *options) aclFor(full string) []zk.ACL {
	if o.acl != nil {
		return o.acl
	}
	rel := strings.TrimPrefix(full, o.root)
	if rel == "" {
		rel = "/"
	}
	return o.aclPolicy(rel)
}

// validatePath applies ZooKeeper's rules for a znode path: absolute, no
// empty, "." or ".." segments, no trailing slash, no control or reserved
// characters.
func validatePath(p string) error {
	if p == "" || p[0] != '/' {
		return errPath("must start with /")
	}
	if p == "/" {
		return nil
	}
	if p[len(p)-1] == '/' {
		return errPath("must not end with /")
	}
	// One pass over p, each problem noted; of several, the error names
	// the first in the order of the switch below.
	var empty, dot, dotDot bool
	odd := -1  // the first byte outside printable ASCII
	start := 1 // of the segment at i
	for i := 1; i < len(p); i++ {
		c := p[i]
		if c > '/' && c < 0x7f { // most bytes: letters, digits and more
			continue
		}
		switch {
		case c == '/':
			empty, dot, dotDot = segmentProblems(p[start:i], empty, dot, dotDot)
			start = i + 1
		case (c < 0x20 || c >= 0x7f) && odd < 0:
			odd = i
		}
	}
	empty, dot, dotDot = segmentProblems(p[start:], empty, dot, dotDot)
	switch {
	case empty:
		return errPath("empty segment")
	case dot:
		return errPath("relative segment .")
	case dotDot:
		return errPath("relative segment ..")
	case odd >= 0 && p[odd] >= utf8.RuneSelf:
		return validateRunes(p[odd:])
	case odd >= 0:
		return errPath("invalid character")
	}
	return nil
}

// segmentProblems adds to the problems noted so far those of segment:
// empty, ".", "..".
func segmentProblems(segment string, empty, dot, dotDot bool) (bool, bool, bool) {
	return empty || segment == "", dot || segment == ".", dotDot || segment == ".."
}

// validateRunes refuses the characters ZooKeeper refuses in a path.
func validateRunes(p string) error {
	for _, r := range p {
		if r == 0 || (r > 0 && r <= 0x1f) || (r >= 0x7f && r <= 0x9f) ||
			(r >= 0xd800 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xffff) {
			return errPath("invalid character")
		}
	}
	return nil
}

type errPath string

func (e errPath) Error() string { return string(e) }

type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }
