// Package epochscan reads the state of every partition under
// /brokers/topics and finds those stamped with a controller epoch above a
// threshold: the partitions a ZooKeeper-mode controller elected after a
// rollback would leave offline, since its leader elections abort on a
// state "written by another controller". migrationzk rollback-check lists
// them; migrationzk monitor counts them, at a rate it may bound.
package epochscan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// readsPerChunk is how many partition states a scan reads at once.
// Topics' partitions are listed a page of topics (dualwrite.TopicsPerPage,
// as dualwrite's Read pages them) at a time, and partition states read in
// chunks, each with its own step timeout, so that the time limit applies
// to a bounded amount of work and progress can be shown.
const readsPerChunk = 2000

// Partition is a partition and the controller epoch its state carries.
type Partition struct {
	Topic           string `json:"topic"`
	Partition       int32  `json:"partition"`
	ControllerEpoch int32  `json:"controller_epoch"`
}

// Undecodable is a partition whose state znode does not decode.
type Undecodable struct {
	Topic string
	// Partition is the partition's znode name.
	Partition string
	// Path is the state znode's path, under the root.
	Path string
	// Err says why it does not decode: a *znode.DecodeError, or
	// ErrNotPartitionNumber.
	Err  error
	Data []byte
}

// ErrNotPartitionNumber: a partition's znode name is not a partition
// number.
var ErrNotPartitionNumber = errors.New("the partition's znode name is not a partition number")

// Result is what a scan of every partition state found.
type Result struct {
	Topics int
	// Partitions counts the partition state znodes read.
	Partitions int
	// WithoutState counts partitions with no state znode yet.
	WithoutState int
	// Highest is the highest controller epoch stamped, -1 when none.
	Highest   int32
	HighestAt *Partition
	// AtRiskCount counts the partitions stamped with an epoch above the
	// threshold; AtRisk lists them, in topic and numeric partition order,
	// when Options.List is set.
	AtRiskCount int
	AtRisk      []Partition
	// UndecodableCount counts the states that do not decode; Undecodable
	// lists them when Options.List is set.
	UndecodableCount int
	Undecodable      []Undecodable
	// Requests counts the requests the scan sent: syncs, listings and
	// reads, without those the Reader sent again after a lost connection.
	Requests int
	Elapsed  time.Duration
}

// Progress is told how far a scan got. Its methods are called from the
// scan's goroutine.
type Progress interface {
	// Topics is called once the topics are listed, with their number.
	Topics(n int)
	// Listed is called after the partitions of n more topics are listed.
	Listed(n int)
	// Partitions is called once every topic's partitions are listed,
	// with their number.
	Partitions(n int)
	// Read is called after n more partition states are read.
	Read(n int)
}

// Reader is what a scan reads ZooKeeper with, paths relative to its
// root; *migrationzk.Writer is one. It bounds the reads in flight and
// sends again a read lost with its connection once the client holds a
// session.
type Reader interface {
	Sync(ctx context.Context, paths ...string) error
	ChildrenAfterSync(ctx context.Context, paths ...string) ([]migrationzk.Listing, error)
	ReadAfterSync(ctx context.Context, paths ...string) ([]migrationzk.Znode, error)
}

// Options configure a scan.
type Options struct {
	// Root is the Reader's root, for the paths the result and the errors
	// name.
	Root string
	// Step bounds each step: the listing of the topics, each page of
	// partition listings, each chunk of state reads. 0 leaves them
	// unbounded but for ctx.
	Step time.Duration
	// Rate bounds the requests sent, syncs included, to this many a
	// second over the scan, which then reads in smaller steps; 0 leaves
	// it unbounded.
	Rate float64
	// List keeps the partitions at risk and those that do not decode in
	// the result, not only their counts.
	List bool
	// Progress, when set, is told how far the scan got.
	Progress Progress
}

// job is one partition whose state is to be read.
type job struct {
	topic string
	name  string
}

// scanner is one scan in progress.
type scanner struct {
	r         Reader
	opts      Options
	threshold int32
	pace      *pacer
	res       Result
}

// Scan reads the state of every partition under /brokers/topics with r
// and counts those stamped with a controller epoch above threshold. It
// syncs once, lists every topic's partitions a page at a time (the list of
// a million partitions takes tens of megabytes), then reads the states in
// chunks and decodes each chunk while the next is read. A /brokers/topics
// that does not exist is an error. It only reads.
func Scan(ctx context.Context, r Reader, threshold int32, opts Options) (Result, error) {
	s := &scanner{r: r, opts: opts, threshold: threshold, pace: newPacer(opts.Rate),
		res: Result{Highest: -1, AtRisk: []Partition{}, Undecodable: []Undecodable{}}}
	start := time.Now()
	err := s.run(ctx)
	s.res.Requests, s.res.Elapsed = s.pace.sent, time.Since(start)
	return s.res, err
}

func (s *scanner) run(ctx context.Context) error {
	topics, err := s.listTopics(ctx)
	if err != nil {
		return err
	}
	s.res.Topics = len(topics)
	if s.opts.Progress != nil {
		s.opts.Progress.Topics(len(topics))
	}
	jobs, err := s.listAllPartitions(ctx, topics)
	if err != nil {
		return err
	}
	if s.opts.Progress != nil {
		s.opts.Progress.Partitions(len(jobs))
	}
	return s.readAll(ctx, jobs)
}

// chunkRead is a chunk of jobs and the states read for them.
type chunkRead struct {
	jobs   []job
	states []migrationzk.Znode
}

// readAll reads the states of jobs a chunk at a time and decodes each
// chunk on another goroutine while the next one is read, so that the
// decoding costs the scan no time of its own.
func (s *scanner) readAll(ctx context.Context, jobs []job) error {
	decode := make(chan chunkRead, 1)
	decoded := make(chan struct{})
	go func() {
		defer close(decoded)
		for c := range decode {
			for i, st := range c.states {
				s.add(c.jobs[i], st)
			}
		}
	}()
	defer func() { <-decoded }()
	defer close(decode)
	chunk := s.pace.size(readsPerChunk)
	for c := 0; c < len(jobs); c += chunk {
		part := jobs[c:min(c+chunk, len(jobs))]
		states, err := s.readStates(ctx, part)
		if err != nil {
			return err
		}
		decode <- chunkRead{jobs: part, states: states}
	}
	return nil
}

// step returns the context of one step.
func (s *scanner) step(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.Step <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.opts.Step)
}

// path returns p under the root.
func (s *scanner) path(p string) string { return s.opts.Root + p }

// listTopics syncs, so that the reads after it see every write
// committed before the scan, and lists the topics under /brokers/topics,
// sorted.
func (s *scanner) listTopics(ctx context.Context) ([]string, error) {
	if err := s.pace.wait(ctx, 2); err != nil {
		return nil, err
	}
	ctx, cancel := s.step(ctx)
	defer cancel()
	path := s.path(znode.TopicsPath)
	if err := s.r.Sync(ctx, znode.TopicsPath); err != nil {
		return nil, fmt.Errorf("sync %s: %w", path, err)
	}
	ls, err := s.r.ChildrenAfterSync(ctx, znode.TopicsPath)
	switch {
	case err != nil:
		return nil, fmt.Errorf("list %s: %w", path, err)
	case !ls[0].Exists:
		return nil, fmt.Errorf("%s does not exist: is --root right? (Kafka's chroot, such as /kafka)", path)
	}
	return ls[0].Names, nil
}

// listAllPartitions lists the partitions of topics a page of topics at a
// time, in topic and numeric partition order.
func (s *scanner) listAllPartitions(ctx context.Context, topics []string) ([]job, error) {
	var jobs []job
	page := s.pace.size(dualwrite.TopicsPerPage)
	for first := 0; first < len(topics); first += page {
		part := topics[first:min(first+page, len(topics))]
		pj, err := s.listPartitions(ctx, part)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, pj...)
		if s.opts.Progress != nil {
			s.opts.Progress.Listed(len(part))
		}
	}
	return jobs, nil
}

// listPartitions lists the partitions of the topics on one page, in topic
// order, and in numeric partition order when the result lists partitions.
// A topic without a partitions znode (being created or deleted) has none
// yet.
func (s *scanner) listPartitions(ctx context.Context, topics []string) ([]job, error) {
	if err := s.pace.wait(ctx, len(topics)); err != nil {
		return nil, err
	}
	ctx, cancel := s.step(ctx)
	defer cancel()
	paths := make([]string, len(topics))
	for i, t := range topics {
		paths[i] = znode.TopicPartitionsPath(t)
	}
	lists, err := s.r.ChildrenAfterSync(ctx, paths...)
	if err != nil {
		return nil, fmt.Errorf("list the partitions of %s: %w", s.path(znode.TopicsPath), err)
	}
	var jobs []job
	for i, l := range lists {
		names := l.Names
		if s.opts.List {
			sort.Slice(names, func(x, y int) bool { return partitionLess(names[x], names[y]) })
		}
		for _, n := range names {
			jobs = append(jobs, job{topic: topics[i], name: n})
		}
	}
	return jobs, nil
}

// partitionLess orders partition names numerically, names that are not
// numbers last.
func partitionLess(x, y string) bool {
	a, errA := strconv.Atoi(x)
	b, errB := strconv.Atoi(y)
	switch {
	case errA == nil && errB == nil:
		return a < b
	case errA == nil:
		return true
	case errB == nil:
		return false
	}
	return x < y
}

// readStates reads the state znodes of jobs.
func (s *scanner) readStates(ctx context.Context, jobs []job) ([]migrationzk.Znode, error) {
	if err := s.pace.wait(ctx, len(jobs)); err != nil {
		return nil, err
	}
	ctx, cancel := s.step(ctx)
	defer cancel()
	paths := make([]string, len(jobs))
	for i, j := range jobs {
		paths[i] = statePath(j)
	}
	states, err := s.r.ReadAfterSync(ctx, paths...)
	if err != nil {
		return nil, fmt.Errorf("read the partition states under %s: %w", s.path(znode.TopicsPath), err)
	}
	if s.opts.Progress != nil {
		s.opts.Progress.Read(len(jobs))
	}
	return states, nil
}

func statePath(j job) string {
	return znode.TopicsPath + "/" + j.topic + "/partitions/" + j.name + "/state"
}

// add records one partition state.
func (s *scanner) add(j job, st migrationzk.Znode) {
	r := &s.res
	if !st.Exists {
		r.WithoutState++
		return
	}
	r.Partitions++
	id, err := strconv.ParseInt(j.name, 10, 32)
	if err != nil || id < 0 {
		s.undecodable(j, ErrNotPartitionNumber, st.Data)
		return
	}
	ps, err := znode.DecodePartitionState(st.Data)
	if err != nil {
		s.undecodable(j, err, st.Data)
		return
	}
	p := Partition{Topic: j.topic, Partition: int32(id), ControllerEpoch: ps.ControllerEpoch}
	if ps.ControllerEpoch > r.Highest {
		r.Highest = ps.ControllerEpoch
		r.HighestAt = &p
	}
	if ps.ControllerEpoch > s.threshold {
		r.AtRiskCount++
		if s.opts.List {
			r.AtRisk = append(r.AtRisk, p)
		}
	}
}

func (s *scanner) undecodable(j job, err error, data []byte) {
	s.res.UndecodableCount++
	if s.opts.List {
		s.res.Undecodable = append(s.res.Undecodable, Undecodable{Topic: j.topic, Partition: j.name,
			Path: s.path(statePath(j)), Err: err, Data: data})
	}
}
