package dualwrite

import (
	"context"
	"sort"

	"github.com/kraftmigration/zkwriter/migrationzk"
)

// ReadProgress reports how far Read is: topics read of those listed, and
// partition states read.
type ReadProgress struct {
	Topics, TopicsTotal, Partitions int
}

// Read reads, after a sync, everything the migration mirrors as ZooKeeper
// holds it: the topics a page of 500 at a time (their znodes and
// partition lists, then their partitions' states), with as many reads in
// flight as Writer.Read allows, so that memory and concurrency stay
// bounded however many topics there are. Znodes whose data does not
// decode are listed in Image.Undecodable, sorted by path, not an error. A
// partition of the assignment without a state znode (or without a
// partition znode, as older tools leave a topic) is a Partition without
// a state (HasState); nothing is made up for it. A partition ZooKeeper
// holds below a topic but not in the topic's assignment is in the
// topic's Unassigned.
// The Image's Secrets is SecretsPlain for a Client built
// WithPasswordEncoder, which decodes password configs, else
// SecretsEncoded. progress, if set, is called after each page. The reads
// are not one snapshot: a tree that changes while Read runs may read as a
// mix.
func (c *Client) Read(ctx context.Context, progress func(ReadProgress)) (Image, error) {
	r := &imageReader{w: c.w, c: c, img: NewImage(), progress: progress}
	r.img.Secrets = c.secretForm()
	for _, step := range []func(context.Context) error{r.topics, r.configs, r.quotas, r.acls, r.tokens, r.producerID} {
		if err := step(ctx); err != nil {
			return Image{}, err
		}
	}
	sort.Slice(r.img.Undecodable, func(i, j int) bool { return r.img.Undecodable[i].Path < r.img.Undecodable[j].Path })
	return r.img, nil
}

// imageReader reads an Image.
type imageReader struct {
	w        *migrationzk.Writer
	c        *Client
	img      Image
	progress func(ReadProgress)
	done     ReadProgress
}

// bad records an undecodable znode; the data of a config znode is left
// out of the error, since it may hold passwords.
func (r *imageReader) bad(path string, err error) {
	r.img.Undecodable = append(r.img.Undecodable, undecodable(path, err))
}

// undecodable is the record of a znode at path whose data does not
// decode, err saying why.
func undecodable(path string, err error) UndecodableZnode {
	return UndecodableZnode{Path: path, Err: withholdConfigData(path, err)}
}

// children lists the children of path, nil when it is missing.
func (r *imageReader) children(ctx context.Context, path string) ([]string, error) {
	ls, err := r.list(ctx, path)
	if err != nil {
		return nil, err
	}
	return ls[0].Names, nil
}

// read reads paths as Writer.Read does, and remembers what it found.
func (r *imageReader) read(ctx context.Context, paths ...string) ([]migrationzk.Znode, error) {
	zs, err := r.w.Read(ctx, paths...)
	for _, z := range zs {
		r.c.mem.learn(z)
	}
	return zs, err
}

// list lists the children of paths as Writer.Children does, and
// remembers what it found.
func (r *imageReader) list(ctx context.Context, paths ...string) ([]migrationzk.Listing, error) {
	ls, err := r.w.Children(ctx, paths...)
	for _, l := range ls {
		r.c.mem.learnListing(l)
	}
	return ls, err
}

// childZnode is a child's data as read.
type childZnode struct {
	path string
	data []byte
}

// readChildren reads every child of p, by name.
func (r *imageReader) readChildren(ctx context.Context, p string) (map[string]childZnode, error) {
	names, err := r.children(ctx, p)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = p + "/" + n
	}
	zs, err := r.read(ctx, paths...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]childZnode, len(names))
	for i, z := range zs {
		if z.Exists {
			out[names[i]] = childZnode{path: z.Path, data: z.Data}
		}
	}
	return out, nil
}
