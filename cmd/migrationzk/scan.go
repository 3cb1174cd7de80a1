package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// readsPerChunk is how many partition states a scan reads at once. The
// library's Read and Children keep several requests in flight at once on
// the one connection. Topics' partitions are listed a page of topics
// (dualwrite.TopicsPerPage) at a time, and partition states read in
// chunks, each with its own --timeout, so that the time limit applies to a
// bounded amount of work and the progress bar moves.
const readsPerChunk = 2000

// stampedPartition is a partition and the controller epoch its state
// carries.
type stampedPartition struct {
	Topic           string `json:"topic"`
	Partition       int32  `json:"partition"`
	ControllerEpoch int32  `json:"controller_epoch"`
}

// badPartition is a partition whose state znode does not decode.
type badPartition struct {
	Topic     string `json:"topic"`
	Partition string `json:"partition"`
	Path      string `json:"path"`
	Error     string `json:"error"`
	Data      string `json:"data"`
}

// scanResult is what a scan of every partition state found.
type scanResult struct {
	Topics int
	// Partitions counts the partition state znodes read.
	Partitions int
	// WithoutState counts partitions with no state znode yet.
	WithoutState int
	// Highest is the highest controller epoch stamped, -1 when none.
	Highest   int32
	HighestAt *stampedPartition
	// AtRisk are the partitions stamped with an epoch above the threshold
	// given to scan, in topic and partition order.
	AtRisk      []stampedPartition
	Undecodable []badPartition
	Elapsed     time.Duration
}

// partitionJob is one partition whose state is to be read.
type partitionJob struct {
	topic string
	name  string
}

// scan reads the state of every partition under /brokers/topics and
// collects those stamped with a controller epoch above threshold, through
// the library's Writer.Children and Writer.Read. It lists every topic's
// partitions first, so that the progress bar counts partitions (the list
// of a million partitions takes tens of megabytes), then reads the states
// in chunks.
func (a *app) scan(ctx context.Context, conn *zk.Conn, threshold int32) (scanResult, error) {
	start := time.Now()
	res := scanResult{Highest: -1, AtRisk: []stampedPartition{}, Undecodable: []badPartition{}}
	w, err := a.newWriter(conn)
	if err != nil {
		return res, err
	}
	topics, err := a.listTopics(ctx, w)
	if err != nil {
		return res, err
	}
	res.Topics = len(topics)
	var bar *progress
	if a.tty {
		bar = startProgress(a.stderr, len(topics))
		defer bar.finish()
	}
	jobs, err := a.listAllPartitions(ctx, w, topics, bar)
	if err != nil {
		return res, err
	}
	if bar != nil {
		bar.total.Store(int64(len(jobs)))
	}
	for c := 0; c < len(jobs); c += readsPerChunk {
		chunk := jobs[c:min(c+readsPerChunk, len(jobs))]
		states, err := a.readStates(ctx, w, chunk, bar)
		if err != nil {
			return res, err
		}
		for i, st := range states {
			res.add(chunk[i], st, threshold, a.path(znode.TopicsPath))
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// listTopics lists the topics under /brokers/topics, sorted.
func (a *app) listTopics(ctx context.Context, w *migrationzk.Writer) ([]string, error) {
	lctx, cancel := a.step(ctx)
	defer cancel()
	ls, err := w.Children(lctx, znode.TopicsPath)
	switch {
	case err != nil:
		return nil, fmt.Errorf("list %s: %w", a.path(znode.TopicsPath), firstJoined(err))
	case !ls[0].Exists:
		return nil, fmt.Errorf("%s does not exist: is --root right? (Kafka's chroot, such as /kafka)", a.path(znode.TopicsPath))
	}
	return ls[0].Names, nil
}

// listAllPartitions lists the partitions of topics a page of topics at a
// time, in topic and numeric partition order, counting topics on bar.
func (a *app) listAllPartitions(ctx context.Context, w *migrationzk.Writer, topics []string, bar *progress) ([]partitionJob, error) {
	var jobs []partitionJob
	for first := 0; first < len(topics); first += dualwrite.TopicsPerPage {
		page := topics[first:min(first+dualwrite.TopicsPerPage, len(topics))]
		pj, err := a.listPartitions(ctx, w, page)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, pj...)
		if bar != nil {
			bar.listed.Add(int64(len(page)))
		}
	}
	return jobs, nil
}

// listPartitions lists the partitions of the topics on one page, in topic
// and numeric partition order. A topic without a partitions znode (being
// created or deleted) has none yet.
func (a *app) listPartitions(ctx context.Context, w *migrationzk.Writer, topics []string) ([]partitionJob, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	paths := make([]string, len(topics))
	for i, t := range topics {
		paths[i] = znode.TopicsPath + "/" + t + "/partitions"
	}
	ls, err := w.Children(ctx, paths...)
	if err != nil {
		return nil, fmt.Errorf("list the partitions of %s: %w", a.path(znode.TopicsPath), firstJoined(err))
	}
	var jobs []partitionJob
	for i, l := range ls {
		names := l.Names
		sort.Slice(names, func(x, y int) bool { return partitionLess(names[x], names[y]) })
		for _, n := range names {
			jobs = append(jobs, partitionJob{topic: topics[i], name: n})
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

// readStates reads the state znodes of jobs, counting them on bar.
func (a *app) readStates(ctx context.Context, w *migrationzk.Writer, jobs []partitionJob, bar *progress) ([]migrationzk.Znode, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	paths := make([]string, len(jobs))
	for i, j := range jobs {
		paths[i] = znode.TopicsPath + "/" + j.topic + "/partitions/" + j.name + "/state"
	}
	states, err := w.Read(ctx, paths...)
	if err != nil {
		return nil, fmt.Errorf("read the partition states under %s: %w", a.path(znode.TopicsPath), firstJoined(err))
	}
	if bar != nil {
		bar.partitions.Add(int64(len(jobs)))
	}
	return states, nil
}

// firstJoined returns err showing only the first of the errors it joins,
// and how many more there were: the library's reads of many znodes join
// the error of each. errors.Is and errors.As still see every one.
func firstJoined(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if errs, ok := joined(e); ok && len(errs) > 1 {
			return &firstOfMany{first: errs[0], more: len(errs) - 1, all: err}
		}
	}
	return err
}

// joined returns the errors err joins when errors.Join made it: its text
// is theirs, a line each (an error of fmt.Errorf with several %w also
// wraps several, and reads as one message).
func joined(err error) ([]error, bool) {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil, false
	}
	errs := j.Unwrap()
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return errs, err.Error() == strings.Join(lines, "\n")
}

// firstOfMany shows the first of several errors, and wraps them all.
type firstOfMany struct {
	first error
	more  int
	all   error
}

func (e *firstOfMany) Error() string { return fmt.Sprintf("%v (and %d more)", e.first, e.more) }
func (e *firstOfMany) Unwrap() error { return e.all }

// add records one partition state.
func (r *scanResult) add(j partitionJob, st migrationzk.Znode, threshold int32, topicsPath string) {
	if !st.Exists {
		r.WithoutState++
		return
	}
	r.Partitions++
	path := topicsPath + "/" + j.topic + "/partitions/" + j.name + "/state"
	id, err := strconv.ParseInt(j.name, 10, 32)
	if err != nil || id < 0 {
		r.Undecodable = append(r.Undecodable, badPartition{Topic: j.topic, Partition: j.name, Path: path,
			Error: "the partition's znode name is not a partition number", Data: rawText(st.Data)})
		return
	}
	ps, err := znode.DecodePartitionState(st.Data)
	if err != nil {
		r.Undecodable = append(r.Undecodable, badPartition{Topic: j.topic, Partition: j.name, Path: path,
			Error: decodeDetail(err), Data: rawText(st.Data)})
		return
	}
	p := stampedPartition{Topic: j.topic, Partition: int32(id), ControllerEpoch: ps.ControllerEpoch}
	if ps.ControllerEpoch > r.Highest {
		r.Highest = ps.ControllerEpoch
		r.HighestAt = &p
	}
	if ps.ControllerEpoch > threshold {
		r.AtRisk = append(r.AtRisk, p)
	}
}
