package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

func setupExport(a *app, fs *flag.FlagSet) func(context.Context, []string) int {
	file := fs.String("output", "", "write the image to `file` (created with mode 0600, replaced whole) instead of stdout; the image is JSON whatever the global --output")
	return func(ctx context.Context, args []string) int {
		if a.noArgs("export", args) {
			return exitError
		}
		return a.export(ctx, *file)
	}
}

// export reads the live tree and writes its image to file, or stdout when
// file is "". Only a complete image is written; on a failure to read
// nothing is.
func (a *app) export(ctx context.Context, file string) int {
	img, err := a.readLive(ctx)
	if err != nil {
		a.warn(err)
		return exitError
	}
	if file == "" {
		if err := img.WriteJSON(a.stdout); err != nil {
			a.warn(fmt.Errorf("write the image: %w", err))
			return exitError
		}
		return exitOK
	}
	if err := writeImageFile(file, img); err != nil {
		a.warn(err)
		return exitError
	}
	fmt.Fprintf(a.stderr, "migrationzk export: wrote %s: %s, %s, %s undecodable\n", file,
		pluralVerb(len(img.Topics), "topic", "topics"), pluralVerb(countPartitions(img), "partition", "partitions"), commas(len(img.Undecodable)))
	return exitOK
}

// countPartitions counts the partitions of img's topics.
func countPartitions(img dualwrite.Image) int {
	n := 0
	for _, t := range img.Topics {
		n += len(t.Partitions)
	}
	return n
}

// readLive reads the image the cluster given by --zk and --root holds,
// drawing a progress bar on a terminal. --timeout bounds connecting, and
// each page of topics the read takes and what it reads after them: a read
// that makes no progress for that long fails with a *stallError.
func (a *app) readLive(ctx context.Context) (dualwrite.Image, error) {
	conn, err := a.connect(ctx)
	if err != nil {
		return dualwrite.Image{}, err
	}
	defer conn.Close()
	w := migrationzk.New(conn, a.writeOpts(nil)...)
	if err := a.checkRoot(ctx, w); err != nil {
		return dualwrite.Image{}, err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(a.g.timeout, func() { cancel(&stallError{timeout: a.g.timeout}) })
	defer stall.Stop()
	bar := &readBar{a: a}
	defer bar.finish()
	img, err := dualwrite.New(w).Read(rctx, func(p dualwrite.ReadProgress) {
		stall.Reset(a.g.timeout)
		bar.update(p)
	})
	if err != nil {
		if cause := context.Cause(rctx); cause != nil && ctx.Err() == nil {
			return dualwrite.Image{}, fmt.Errorf("read %s: %w (%v)", a.rootName(), cause, err)
		}
		return dualwrite.Image{}, fmt.Errorf("read %s: %w", a.rootName(), err)
	}
	return img, nil
}

// checkRoot fails unless /brokers/topics exists under the root: a wrong
// --root would read as an empty cluster.
func (a *app) checkRoot(ctx context.Context, w *migrationzk.Writer) error {
	sctx, cancel := a.step(ctx)
	defer cancel()
	zs, err := w.Read(sctx, znode.TopicsPath)
	if err != nil {
		return fmt.Errorf("read %s: %w", a.path(znode.TopicsPath), err)
	}
	if !zs[0].Exists {
		return fmt.Errorf("%s does not exist: is --root right? (Kafka's chroot, such as /kafka)", a.path(znode.TopicsPath))
	}
	return nil
}

// rootName names the cluster read, for messages.
func (a *app) rootName() string {
	if a.g.root == "" {
		return a.g.zk
	}
	return a.g.zk + a.g.root
}

// stallError is the cause of a live read that made no progress within
// --timeout.
type stallError struct {
	timeout time.Duration
}

func (e *stallError) Error() string {
	return fmt.Sprintf("no progress within %v (--timeout)", e.timeout)
}

// readBar draws Read's progress on a terminal, the bar started at the
// first report, which brings the number of topics.
type readBar struct {
	a   *app
	bar *progress
}

// update shows p.
func (b *readBar) update(p dualwrite.ReadProgress) {
	if !b.a.tty {
		return
	}
	if b.bar == nil {
		b.bar = startProgress(b.a.stderr, p.TopicsTotal)
	}
	b.bar.topics.Store(int64(p.Topics))
	b.bar.partitions.Store(int64(p.Partitions))
}

// finish clears the bar, if one was drawn.
func (b *readBar) finish() {
	if b.bar != nil {
		b.bar.finish()
		b.bar = nil
	}
}
