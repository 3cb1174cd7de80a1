package migrationzk

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Znode is a znode as a read found it.
type Znode struct {
	// Path is the znode's path, relative to the Writer's root.
	Path   string
	Exists bool
	// Data is the znode's data, nil for null data or a missing znode.
	Data []byte
	// Version is the znode's data version, -1 when it is missing.
	Version int32
	// Modified is the time of the last change, zero when missing.
	Modified time.Time
	// EphemeralOwner is the id of the session that owns the znode when it
	// is ephemeral (it goes when that session ends), 0 when it is
	// persistent or missing. Kafka's /controller is ephemeral.
	EphemeralOwner int64
}

// Read syncs with the leader, then reads each path (relative to the
// Writer's root), several reads in flight at once, retrying over lost
// connections: what ZooKeeper holds after every write committed before the
// call. A missing znode reads as Exists false, not as an error.
func (w *Writer) Read(ctx context.Context, paths ...string) ([]Znode, error) {
	return w.read(ctx, true, paths)
}

// Sync checks paths as Read does (an invalid one fails it with an error
// wrapping ErrInvalidArgument, nothing sent), then syncs with the leader:
// reads of them that follow on the same connection (ReadAfterSync,
// ChildrenAfterSync) see every write committed before the call. Should the connection move to another server in between, they
// may see less; callers that condition their writes on what they read
// find that out from ZooKeeper's refusal.
func (w *Writer) Sync(ctx context.Context, paths ...string) error {
	if _, err := w.fullPaths(paths); err != nil {
		return err
	}
	if err := w.exec.sync(ctx, w.exec.retrier(), w.migrationPath); err != nil {
		return fmt.Errorf("migrationzk: sync: %w", err)
	}
	return nil
}

// ReadAfterSync reads as Read does, without Read's sync: for several
// reads that follow one Sync.
func (w *Writer) ReadAfterSync(ctx context.Context, paths ...string) ([]Znode, error) {
	return w.read(ctx, false, paths)
}

func (w *Writer) read(ctx context.Context, sync bool, paths []string) ([]Znode, error) {
	full, err := w.fullPaths(paths)
	if err != nil || len(full) == 0 {
		return nil, err
	}
	if sync {
		if err := w.exec.sync(ctx, w.exec.retrier(), full[0]); err != nil {
			return nil, fmt.Errorf("migrationzk: sync: %w", err)
		}
	}
	cur, err := w.exec.getAll(ctx, full)
	if err != nil {
		return nil, fmt.Errorf("migrationzk: read: %w", err)
	}
	out := make([]Znode, len(paths))
	for i, c := range cur {
		out[i] = Znode{Path: paths[i], Exists: c.exists, Data: c.data, Version: c.version, EphemeralOwner: c.ephemeralOwner}
		if c.exists {
			out[i].Modified = time.UnixMilli(c.mtime)
		}
	}
	return out, nil
}

// Listing is the children of a znode as a read found them.
type Listing struct {
	// Path is the znode's path, relative to the Writer's root.
	Path   string
	Exists bool
	// Names are the children's names, sorted; nil for a missing znode.
	Names []string
}

// Children syncs with the leader, then lists the children of each path
// (relative to the Writer's root), several lists in flight at once,
// retrying over lost connections. A missing znode has no children and
// reports Exists false, not an error.
func (w *Writer) Children(ctx context.Context, paths ...string) ([]Listing, error) {
	return w.children(ctx, true, paths)
}

// ChildrenAfterSync lists children as Children does, without its sync:
// for several reads that follow one Sync.
func (w *Writer) ChildrenAfterSync(ctx context.Context, paths ...string) ([]Listing, error) {
	return w.children(ctx, false, paths)
}

func (w *Writer) children(ctx context.Context, sync bool, paths []string) ([]Listing, error) {
	full, err := w.fullPaths(paths)
	if err != nil || len(full) == 0 {
		return nil, err
	}
	if sync {
		if err := w.exec.sync(ctx, w.exec.retrier(), full[0]); err != nil {
			return nil, fmt.Errorf("migrationzk: sync: %w", err)
		}
	}
	out := make([]Listing, len(paths))
	err = w.exec.inParallel(ctx, len(full), func(r *retrier, i int) error {
		names, exists, err := w.exec.childrenOf(ctx, r, full[i])
		sort.Strings(names)
		out[i] = Listing{Path: paths[i], Exists: exists, Names: names}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("migrationzk: list children: %w", err)
	}
	return out, nil
}

// fullPaths checks paths and puts them under the root.
func (w *Writer) fullPaths(paths []string) ([]string, error) {
	full := make([]string, len(paths))
	for i, p := range paths {
		if err := validatePath(p); err != nil {
			return nil, invalidf("path %q: %v", p, err)
		}
		full[i] = w.exec.opts.root + p
		if p == "/" && w.exec.opts.root != "" {
			full[i] = w.exec.opts.root
		}
	}
	return full, nil
}
