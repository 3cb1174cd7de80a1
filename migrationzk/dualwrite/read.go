package dualwrite

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// topicsPerPage is how many topics Read takes at once: their znodes and
// partition lists in one round, then their partitions' states in another.
const topicsPerPage = 500

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
// progress, if set, is called after each page. The reads are not one
// snapshot: a tree that changes while Read runs may read as a mix.
func (c *Client) Read(ctx context.Context, progress func(ReadProgress)) (Image, error) {
	r := &imageReader{w: c.w, c: c, img: NewImage(), progress: progress}
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
	r.img.Undecodable = append(r.img.Undecodable, UndecodableZnode{Path: path, Err: withholdConfigData(path, err)})
}

// children lists the children of path, nil when it is missing.
func (r *imageReader) children(ctx context.Context, path string) ([]string, error) {
	ls, err := r.list(ctx, path)
	if err != nil {
		return nil, err
	}
	return ls[0].Names, nil
}

// topics reads every topic with its partitions.
func (r *imageReader) topics(ctx context.Context) error {
	names, err := r.children(ctx, znode.TopicsPath)
	if err != nil {
		return err
	}
	r.done.TopicsTotal = len(names)
	for len(names) > 0 {
		page := names[:min(len(names), topicsPerPage)]
		names = names[len(page):]
		if err := r.topicPage(ctx, page); err != nil {
			return err
		}
		r.done.Topics += len(page)
		if r.progress != nil {
			r.progress(r.done)
		}
	}
	return nil
}

// topicPage reads the topics named in page.
func (r *imageReader) topicPage(ctx context.Context, page []string) error {
	paths, lists := make([]string, len(page)), make([]string, len(page))
	for i, name := range page {
		paths[i], lists[i] = znode.TopicPath(name), znode.TopicPartitionsPath(name)
	}
	zs, err := r.read(ctx, paths...)
	if err != nil {
		return err
	}
	ls, err := r.list(ctx, lists...)
	if err != nil {
		return err
	}
	var states []string
	topics := make([]*Topic, len(page))
	for i, name := range page {
		topics[i] = r.topic(name, zs[i])
		if topics[i] != nil {
			addUnassigned(topics[i], ls[i].Names)
			states = append(states, statePaths(name, ls[i].Names)...)
		}
	}
	if err := r.partitionStates(ctx, topics, states); err != nil {
		return err
	}
	for _, t := range topics {
		if t != nil {
			r.img.Topics[t.Name] = *t
		}
	}
	return nil
}

// topic decodes a topic znode; nil when it does not decode or is gone.
func (r *imageReader) topic(name string, z migrationzk.Znode) *Topic {
	if !z.Exists {
		return nil
	}
	zt, err := znode.DecodeTopic(z.Data)
	if err != nil {
		r.bad(z.Path, err)
		return nil
	}
	t := &Topic{Name: name, ID: zt.ID, Partitions: make(map[int32]Partition, len(zt.Partitions))}
	for id, a := range zt.Partitions {
		t.Partitions[id] = Partition{Replicas: a.Replicas, AddingReplicas: a.AddingReplicas, RemovingReplicas: a.RemovingReplicas, noState: true}
	}
	return t
}

// addUnassigned records in t, as its Unassigned partitions, those named
// in names that its assignment lacks, without a state until one is read.
func addUnassigned(t *Topic, names []string) {
	for _, n := range names {
		if id, ok := parseID(n); ok {
			if _, assigned := t.Partitions[id]; !assigned {
				if t.Unassigned == nil {
					t.Unassigned = map[int32]UnassignedPartition{}
				}
				t.Unassigned[id] = UnassignedPartition{}
			}
		}
	}
}

// statePaths returns the state paths of the partitions named in names.
func statePaths(topic string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if id, ok := parseID(n); ok {
			out = append(out, znode.PartitionStatePath(topic, id))
		}
	}
	return out
}

// partitionStates reads the states at paths into their topics' partitions.
func (r *imageReader) partitionStates(ctx context.Context, topics []*Topic, paths []string) error {
	zs, err := r.read(ctx, paths...)
	if err != nil {
		return err
	}
	byName := map[string]*Topic{}
	for _, t := range topics {
		if t != nil {
			byName[t.Name] = t
		}
	}
	for _, z := range zs {
		if !z.Exists {
			continue
		}
		st, err := znode.DecodePartitionState(z.Data)
		if err != nil {
			r.bad(z.Path, err)
			continue
		}
		topic, id := splitStatePath(z.Path)
		if t := byName[topic]; t != nil {
			t.setState(id, PartitionState{Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ISR: st.ISR, LeaderRecoveryState: st.LeaderRecoveryState})
		}
		r.done.Partitions++
	}
	return nil
}

// setState records the state read for partition id of t, assigned or
// not.
func (t *Topic) setState(id int32, st PartitionState) {
	if p, assigned := t.Partitions[id]; assigned {
		p.State, p.noState = st, false
		t.Partitions[id] = p
		return
	}
	if _, ok := t.Unassigned[id]; ok {
		t.Unassigned[id] = UnassignedPartition{State: &st}
	}
}

// splitStatePath returns the topic and partition of a state path.
func splitStatePath(p string) (string, int32) {
	rest := strings.TrimPrefix(p, znode.TopicsPath+"/")
	topic, rest, _ := strings.Cut(rest, "/partitions/")
	idText, _, _ := strings.Cut(rest, "/")
	id, _ := strconv.ParseInt(idText, 10, 32)
	return topic, int32(id)
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
