package bench_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// BenchmarkRead's tree: readTopics topics of topicSize partitions.
const readTopics = 1000

// readInFlight is the bound on reads in flight that migrationzk.Writer's
// Read and Children keep (migrationzk's maxReadsInFlight); the raw reads
// compared with them keep the same.
const readInFlight = 64

// seedInFlight is how many topics' multis seedTopics keeps in flight.
const seedInFlight = 8

// seedTopics creates n topics of topicSize partitions, named prefix-0,
// prefix-1 and so on, under e's root as Kafka's createTopic leaves them
// (newTopicCreates: the topic, its config, its partitions znode, each
// partition and its state), each topic in one multi, seedInFlight multis
// in flight. e's Writer must have created the top-level paths.
func seedTopics(tb testing.TB, admin *zk.Conn, e *env, prefix string, n int) {
	tb.Helper()
	acl := worldACL()
	err := inFlight(n, seedInFlight, func(t int) error {
		c := newTopicCreates(newTopic(fmt.Sprintf("%s-%d", prefix, t), topicSize), e.s.KRaftControllerEpoch)
		reqs := make([]interface{}, len(c.paths))
		for i, p := range c.paths {
			reqs[i] = &zk.CreateRequest{Path: e.p(p), Data: c.data[i], Acl: acl}
		}
		_, err := admin.Multi(reqs...)
		return err
	})
	if err != nil {
		tb.Fatalf("seeding %d topics: %v", n, err)
	}
}

// inFlight runs fn(0) to fn(n-1) on depth goroutines and returns the first
// error.
func inFlight(n, depth int, fn func(i int) error) error {
	next := make(chan int)
	errs := make(chan error, depth)
	var wg sync.WaitGroup
	for w := 0; w < depth; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for i := range next {
				if err := fn(i); err != nil && first == nil {
					first = fmt.Errorf("item %d: %w", i, err)
				}
			}
			errs <- first
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rawRead makes the reads dualwrite's Read makes of a tree of topics, with
// the bare client, readInFlight at a time and nothing decoded: the
// listing of the topics, each topic's znode and its partitions' listing,
// each partition's state, then the listing of the topic configs and each
// config. It leaves out the listings of the other config, ACL and token
// directories and the producer id block, a dozen requests for the missing
// znodes of this tree. It returns how many states it read.
func rawRead(conn *zk.Conn, root string) (int, error) {
	topics, _, err := conn.Children(root + znode.TopicsPath)
	if err != nil {
		return 0, err
	}
	lists := make([][]string, len(topics))
	err = inFlight(2*len(topics), readInFlight, func(i int) error {
		name := topics[i/2]
		if i%2 == 0 {
			_, _, err := conn.Get(root + znode.TopicPath(name))
			return err
		}
		lists[i/2], _, err = conn.Children(root + znode.TopicPartitionsPath(name))
		return err
	})
	if err != nil {
		return 0, err
	}
	var states []string
	for i, name := range topics {
		for _, p := range lists[i] {
			states = append(states, root+znode.TopicPartitionsPath(name)+"/"+p+"/state")
		}
	}
	if err := rawGets(conn, states); err != nil {
		return 0, err
	}
	return len(states), rawConfigs(conn, root+znode.ConfigRootPath+"/"+znode.EntityTopics)
}

// rawPaged makes rawRead's reads in the waves dualwrite's Read makes
// them: for each page of dualwrite.TopicsPerPage topics, a sync then the
// topic znodes, a sync then their partitions' listings, a sync then their
// states; then a sync and the listing of the configs, a sync and the
// configs. A wave starts when the one before it is answered.
func rawPaged(conn *zk.Conn, root string) (int, error) {
	topics, _, err := conn.Children(root + znode.TopicsPath)
	if err != nil {
		return 0, err
	}
	n := 0
	for len(topics) > 0 {
		page := topics[:min(len(topics), dualwrite.TopicsPerPage)]
		topics = topics[len(page):]
		states, err := rawPage(conn, root, page)
		if err != nil {
			return 0, err
		}
		n += states
	}
	dir := root + znode.ConfigRootPath + "/" + znode.EntityTopics
	if _, err := conn.Sync(dir); err != nil {
		return 0, err
	}
	return n, rawConfigs(conn, dir)
}

// rawPage makes the three waves of rawPaged for one page of topics and
// returns how many states it read.
func rawPage(conn *zk.Conn, root string, page []string) (int, error) {
	paths, lists := make([]string, len(page)), make([]string, len(page))
	for i, name := range page {
		paths[i], lists[i] = root+znode.TopicPath(name), root+znode.TopicPartitionsPath(name)
	}
	if err := rawSyncGets(conn, paths); err != nil {
		return 0, err
	}
	if _, err := conn.Sync(lists[0]); err != nil {
		return 0, err
	}
	names := make([][]string, len(lists))
	err := inFlight(len(lists), readInFlight, func(i int) (err error) {
		names[i], _, err = conn.Children(lists[i])
		return err
	})
	if err != nil {
		return 0, err
	}
	var states []string
	for i, list := range lists {
		for _, p := range names[i] {
			states = append(states, list+"/"+p+"/state")
		}
	}
	return len(states), rawSyncGets(conn, states)
}

// rawSyncGets syncs, then gets every path, readInFlight at a time.
func rawSyncGets(conn *zk.Conn, paths []string) error {
	if _, err := conn.Sync(paths[0]); err != nil {
		return err
	}
	return rawGets(conn, paths)
}

// rawGets gets every path, readInFlight at a time.
func rawGets(conn *zk.Conn, paths []string) error {
	return inFlight(len(paths), readInFlight, func(i int) error {
		_, _, err := conn.Get(paths[i])
		return err
	})
}

// rawConfigs lists the config directory dir and gets each config in it.
func rawConfigs(conn *zk.Conn, dir string) error {
	names, _, err := conn.Children(dir)
	if err != nil {
		return err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = dir + "/" + n
	}
	return rawGets(conn, paths)
}

// readImage reads e's tree with c and fails unless it holds partitions
// partitions, each with its state.
func readImage(tb testing.TB, c *dualwrite.Client, partitions int) dualwrite.Image {
	tb.Helper()
	var states int
	img, err := c.Read(context.Background(), func(p dualwrite.ReadProgress) { states = p.Partitions })
	if err != nil {
		tb.Fatalf("Read: %v", err)
	}
	n := 0
	for _, t := range img.Topics {
		n += len(t.Partitions)
	}
	if n != partitions || states != partitions || len(img.Undecodable) > 0 {
		tb.Fatalf("Read found %d partitions, %d states (%d undecodable), want %d", n, states, len(img.Undecodable), partitions)
	}
	return img
}

// readVariant reads e's tree once, as BenchmarkRead's variant k: Read,
// rawRead or rawPaged.
func readVariant(tb testing.TB, k int, c *dualwrite.Client, e *env, partitions int) {
	tb.Helper()
	if k == 0 {
		readImage(tb, c, partitions)
		return
	}
	read := rawRead
	if k == 2 {
		read = rawPaged
	}
	if n, err := read(e.conn, e.root); err != nil || n != partitions {
		tb.Fatalf("raw read (variant %d): %d states, %v", k, n, err)
	}
}

// BenchmarkRead reads a tree of 1,000 topics of 100 partitions (100,000
// partition states, seeded once, outside the timings) with
// dualwrite.Client.Read, and makes the same reads with the bare client on
// the same connection, readInFlight in flight (rawRead): the floor of
// what a read of the tree costs on this server. A third variant makes the
// same raw reads in the waves Read makes them (rawPaged), which tells the
// cost of Read's shape from the cost of its code. The three take turns,
// in changing order (see order). The -cpu-p50-us figures are the CPU time
// the process spent in each, the client's side of the cost;
// read/raw-paged-paired-p50-ratio is the median over the iterations of
// Read's time over the bare client's sending the same requests in the
// same waves (rawPaged), in the same iteration.
//
// It runs twice: with the client on one processor (procs=1, the goal's),
// and on as many as the process has. On a machine of two cores that the
// ZooKeeper server shares, a client on both spends a share of its CPU
// looking for work to run (the scheduler's spinning), on the core the
// server needs, and that share changed from one run to the next (the
// CPU time of the same reads by a fifth); on one processor, the client
// has a core and the server the other in every run.
func BenchmarkRead(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	e := newTopicEnv(b, srv, admin, "read")
	seedTopics(b, admin, e, "topic", readTopics)
	c := must.Get(dualwrite.New(e.w))
	partitions := readTopics * topicSize
	runOnProcessors(b, fmt.Sprintf("partitions=%d", partitions), func(b *testing.B) {
		readIterations(b, c, e, partitions)
	})
}

// readIterations runs BenchmarkRead's iterations and reports them.
func readIterations(b *testing.B, c *dualwrite.Client, e *env, partitions int) {
	smp := newSamples(b.N, "read", "raw", "raw-paged")
	cpu := newSamples(b.N, "read-cpu", "raw-cpu", "raw-paged-cpu")
	for i := 0; i < b.N; i++ {
		for _, k := range order(i, 3) {
			start, startCPU := time.Now(), cpuTime()
			readVariant(b, k, c, e, partitions)
			smp.add(k, time.Since(start))
			cpu.add(k, cpuTime()-startCPU)
		}
	}
	smp.report(b, [2]int{0, 1}, [2]int{2, 1}, [2]int{0, 2})
	smp.reportPaired(b, [2]int{0, 2})
	cpu.report(b)
}
