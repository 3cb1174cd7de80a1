package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// Scan sizes. go-zookeeper pipelines the requests of concurrent callers on
// one connection, so scanWorkers reads are in flight at once. Topics'
// partitions are listed a page of topics at a time, and partition states
// read in chunks, each with its own --timeout, so that the time limit
// applies to a bounded amount of work.
const (
	scanWorkers   = 64
	topicsPerPage = 500
	readsPerChunk = 10000
)

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
// collects those stamped with a controller epoch above threshold. It
// lists every topic's partitions first, so that the progress bar counts
// partitions (the list of a million partitions takes tens of megabytes),
// then reads the states in chunks.
func (a *app) scan(ctx context.Context, conn *zk.Conn, threshold int32) (scanResult, error) {
	start := time.Now()
	res := scanResult{Highest: -1, AtRisk: []stampedPartition{}, Undecodable: []badPartition{}}
	topics, err := a.listTopics(ctx, conn)
	if err != nil {
		return res, err
	}
	res.Topics = len(topics)
	var bar *progress
	if a.tty {
		bar = startProgress(a.stderr, len(topics))
		defer bar.finish()
	}
	jobs, err := a.listAllPartitions(ctx, conn, topics, bar)
	if err != nil {
		return res, err
	}
	if bar != nil {
		bar.total.Store(int64(len(jobs)))
	}
	for c := 0; c < len(jobs); c += readsPerChunk {
		chunk := jobs[c:min(c+readsPerChunk, len(jobs))]
		states, err := a.readStates(ctx, conn, chunk, bar)
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
func (a *app) listTopics(ctx context.Context, conn *zk.Conn) ([]string, error) {
	topicsPath := a.path(znode.TopicsPath)
	var topics []string
	lctx, cancel := a.step(ctx)
	err := read(lctx, conn, func() error {
		var err error
		topics, _, err = conn.Children(topicsPath)
		return err
	})
	cancel()
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("%s does not exist: is --root right? (Kafka's chroot, such as /kafka)", topicsPath)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", topicsPath, denied(topicsPath, "list", err))
	}
	sort.Strings(topics)
	return topics, nil
}

// listAllPartitions lists the partitions of topics a page of topics at a
// time, in topic and numeric partition order, counting topics on bar.
func (a *app) listAllPartitions(ctx context.Context, conn *zk.Conn, topics []string, bar *progress) ([]partitionJob, error) {
	var jobs []partitionJob
	for first := 0; first < len(topics); first += topicsPerPage {
		page := topics[first:min(first+topicsPerPage, len(topics))]
		pj, err := a.listPartitions(ctx, conn, page)
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
// and numeric partition order.
func (a *app) listPartitions(ctx context.Context, conn *zk.Conn, topics []string) ([]partitionJob, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	names := make([][]string, len(topics))
	err := parallel(ctx, len(topics), scanWorkers, func(ctx context.Context, i int) error {
		path := a.path(znode.TopicsPath) + "/" + topics[i] + "/partitions"
		var children []string
		err := read(ctx, conn, func() error {
			var err error
			children, _, err = conn.Children(path)
			return err
		})
		if errors.Is(err, zk.ErrNoNode) {
			return nil // a topic being created or deleted: no partitions yet
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", path, denied(path, "list", err))
		}
		sort.Slice(children, func(x, y int) bool { return partitionLess(children[x], children[y]) })
		names[i] = children
		return nil
	})
	if err != nil {
		return nil, err
	}
	var jobs []partitionJob
	for i, t := range topics {
		for _, n := range names[i] {
			jobs = append(jobs, partitionJob{topic: t, name: n})
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
func (a *app) readStates(ctx context.Context, conn *zk.Conn, jobs []partitionJob, bar *progress) ([]raw, error) {
	ctx, cancel := a.step(ctx)
	defer cancel()
	states := make([]raw, len(jobs))
	err := parallel(ctx, len(jobs), scanWorkers, func(ctx context.Context, i int) error {
		path := a.path(znode.TopicsPath) + "/" + jobs[i].topic + "/partitions/" + jobs[i].name + "/state"
		st, err := get(ctx, conn, path)
		if err != nil {
			return err
		}
		states[i] = st
		if bar != nil {
			bar.partitions.Add(1)
		}
		return nil
	})
	return states, err
}

// add records one partition state.
func (r *scanResult) add(j partitionJob, st raw, threshold int32, topicsPath string) {
	if !st.exists {
		r.WithoutState++
		return
	}
	r.Partitions++
	path := topicsPath + "/" + j.topic + "/partitions/" + j.name + "/state"
	id, err := strconv.ParseInt(j.name, 10, 32)
	if err != nil || id < 0 {
		r.Undecodable = append(r.Undecodable, badPartition{Topic: j.topic, Partition: j.name, Path: path,
			Error: "the partition's znode name is not a partition number", Data: rawText(st.data)})
		return
	}
	ps, err := znode.DecodePartitionState(st.data)
	if err != nil {
		r.Undecodable = append(r.Undecodable, badPartition{Topic: j.topic, Partition: j.name, Path: path,
			Error: decodeDetail(err), Data: rawText(st.data)})
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

// parallel calls fn(ctx, i) for i in [0, n) on up to workers goroutines.
// It stops at the first error and returns it, or ctx's error.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err })
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if int(next.Load()) < n {
		// Stopped early without an error of fn's: the parent context ended.
		return context.Cause(ctx)
	}
	return nil
}
