package kraftmeta

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/kraftmigration/zkwriter/internal/kraftlog"
)

// Option configures a replay.
type Option func(*options)

type options struct {
	target        int64
	noSnapshots   bool
	relists       int
	logger        *slog.Logger
	requireTarget bool
}

// AtOffset replays to offset: the image after every record at or below
// it, unless a transaction begun at or before it is open there (see
// Result.OpenTransaction). Without it, a replay goes to the end of the
// log. Kafka's /migration records such an offset, inclusive.
func AtOffset(offset int64) Option {
	return func(o *options) { o.target, o.requireTarget = offset, true }
}

// WithoutSnapshots replays the log from offset 0, whatever snapshots the
// directory holds: a check of Kafka's snapshots against the log they were
// taken from, where the log still starts at 0.
func WithoutSnapshots() Option { return func(o *options) { o.noSnapshots = true } }

// WithRelists sets how many times a replay lists the directory again
// when a file it chose vanished before it was read (retention, a new
// snapshot), default 5.
func WithRelists(n int) Option { return func(o *options) { o.relists = max(n, 0) } }

// WithLogger logs, at debug level, the files a replay reads and each time
// it lists the directory again.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Replay reads KRaft's metadata at path and replays it into what
// ZooKeeper must hold. Path is a Kafka log directory (holding
// __cluster_metadata-0, meta.properties and bootstrap.checkpoint), the
// metadata log's own directory, a single .checkpoint or a single .log. It
// takes no lock and writes nothing: a running node's directory can be
// read, its snapshots being immutable and its segments append-only.
//
// The replay starts from the latest snapshot whose last contained offset
// is at or below the target and reads the log from that snapshot's end
// offset, which may fall inside a segment or a batch; with no such
// snapshot it needs the log from offset 0. Records are applied as Kafka
// 3.9's MetadataBatchLoader publishes them, one batch per commit, with
// the intended semantics where Kafka's loader depends on how batches are
// grouped: an aborted transaction never applies, a RemoveTopicRecord
// removes every config of its topic, SCRAM removals and upserts are
// independent.
//
// A segment whose last batch is cut short or ends in zero bytes ends
// there, as a live segment can; Result.Files says so. Anything else that
// cannot be read is a *FileError naming the file, the offset and what is
// wrong; a record Kafka's replay refuses is one with ErrInconsistent. A
// target below the oldest image the directory holds, or beyond its end,
// is an *OffsetError. A file that vanishes between listing and reading
// makes the replay list the directory again (WithRelists).
func Replay(ctx context.Context, path string, opts ...Option) (*Result, error) {
	o := options{target: toEnd, relists: 5, logger: slog.New(discardHandler{})}
	for _, opt := range opts {
		opt(&o)
	}
	for attempt := 0; ; attempt++ {
		r, err := replayOnce(ctx, path, o)
		if !errors.Is(err, errVanished) {
			return r, err
		}
		if attempt >= o.relists {
			return nil, fmt.Errorf("%s: %w: %w", path, ErrChanging, err)
		}
		o.logger.Debug("kraftmeta: a file vanished while read; listing again", "path", path, "err", err)
	}
}

// ReplayBytes replays one file whose bytes are in memory, as Replay
// replays a single .checkpoint or .log: name, a file name as Kafka names
// them, says which it is. The Result holds no reference to data.
func ReplayBytes(ctx context.Context, name string, data []byte, opts ...Option) (*Result, error) {
	o := options{target: toEnd, logger: slog.New(discardHandler{})}
	for _, opt := range opts {
		opt(&o)
	}
	l, err := fileLayout(name, int64(len(data)))
	if err != nil {
		return nil, err
	}
	p, err := l.plan(o)
	if err != nil {
		return nil, err
	}
	r := &Result{}
	ld := newLoader(ctx, o.target, r)
	if p.snapshot != nil {
		r.Snapshot = p.snapshot
		if err := ld.loadSnapshot(*p.snapshot, kraftlog.NewScanner(data)); err != nil {
			return nil, err
		}
		return ld.finish(o)
	}
	ld.next = 0
	if err := ld.loadSegment(p.segments[0], kraftlog.NewScanner(data)); err != nil {
		return nil, err
	}
	return ld.finish(o)
}

// errVanished is a chosen file that is gone, or shorter than listed.
var errVanished = errors.New("file vanished")

// replayOnce lists path, chooses the files and replays them.
func replayOnce(ctx context.Context, path string, o options) (*Result, error) {
	l, err := list(path)
	if err != nil {
		return nil, err
	}
	meta, err := readMetaProperties(l.logDir)
	if err != nil {
		return nil, err
	}
	p, err := l.plan(o)
	if err != nil {
		return nil, err
	}
	r := &Result{ClusterID: meta.ClusterID}
	ld := newLoader(ctx, o.target, r)
	if p.snapshot == nil {
		ld.next = 0 // the log must start at offset 0
	}
	if p.snapshot != nil {
		o.logger.Debug("kraftmeta: snapshot", "path", p.snapshot.Path)
		r.Snapshot = p.snapshot
		if err := readFile(p.snapshot.Path, func(sc *kraftlog.Scanner) error { return ld.loadSnapshot(*p.snapshot, sc) }); err != nil {
			return nil, err
		}
		ld.start = p.snapshot.EndOffset
	}
	for _, seg := range p.segments {
		o.logger.Debug("kraftmeta: segment", "path", seg.Path)
		if err := readFile(seg.Path, func(sc *kraftlog.Scanner) error { return ld.loadSegment(seg, sc) }); err != nil {
			return nil, err
		}
	}
	return ld.finish(o)
}

// readFile opens path and reads it through a Scanner; a file gone, or
// shorter than it said, is errVanished.
func readFile(path string, fn func(*kraftlog.Scanner) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", errVanished, path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	err = fn(kraftlog.NewReaderScanner(f, st.Size()))
	var fe *FileError
	if errors.As(err, &fe) && fe.Reason == ErrCorrupt && fe.Detail == kraftlog.DetailShortFile {
		return fmt.Errorf("%w: %s shrank while read", errVanished, path)
	}
	return err
}

// discardHandler is a slog.Handler that drops everything.
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (h discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h discardHandler) WithGroup(string) slog.Handler           { return h }
