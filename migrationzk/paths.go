package migrationzk

import (
	"context"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// CreateTopLevelPaths creates, as Kafka does at startup, the Writer's root
// (its chroot, with every missing parent) and Kafka's persistent paths
// below it (znode.TopLevelPaths, with their parents), each with null data
// and the Writer's ACL. Paths that exist already are left as they are, so
// it is safe to call at every start; the Writer's other calls need at least
// the root, and Apply the parents of what it creates. Like Kafka's own
// creates these are not fenced: they change nothing that exists.
func (w *Writer) CreateTopLevelPaths(ctx context.Context) error {
	start := time.Now()
	if err := w.begin(); err != nil {
		return err
	}
	err := w.createTopLevelPaths(ctx)
	w.finish(start, "create top-level paths", w.exec.opts.root+"/", -1, -1, verdictAcked, err)
	return err
}

func (w *Writer) createTopLevelPaths(ctx context.Context) error {
	r := w.exec.retrier()
	for _, p := range w.pathsToCreate() {
		if err := w.ensure(ctx, r, p); err != nil {
			return err
		}
	}
	return nil
}

// pathsToCreate lists the root, Kafka's top-level paths and every parent
// on the way, parents first, each once.
func (w *Writer) pathsToCreate() []string {
	var paths []string
	seen := map[string]bool{}
	add := func(full string) {
		for i := 1; i <= len(full); i++ {
			if i == len(full) || full[i] == '/' {
				if p := full[:i]; !seen[p] {
					seen[p] = true
					paths = append(paths, p)
				}
			}
		}
	}
	root := w.exec.opts.root
	if root != "" {
		add(root)
	}
	for _, p := range znode.TopLevelPaths() {
		add(root + p)
	}
	return paths
}

// ensure creates path with null data unless it exists.
func (w *Writer) ensure(ctx context.Context, r *retrier, path string) error {
	_, err := w.exec.run(ctx, r, write{
		path:     path,
		expected: -1,
		send: func() error {
			_, err := w.exec.conn.Create(path, nil, 0, w.exec.opts.aclFor(path))
			return err
		},
		verify: func(_ context.Context, _ *retrier, rejection error, _ bool) (verdict, error) {
			return ensureVerdict(path, rejection)
		},
		refused: func(error) (string, string) { return path, "create" },
	})
	return err
}
