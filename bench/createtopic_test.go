package bench_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// BenchmarkCreateTopic's topic has this many partitions; Kafka keeps this
// many requests in flight (zookeeper.max.in.flight.requests' default).
const (
	createTopicPartitions = 1000
	kafkaInFlight         = 10
)

// newTopic returns topic name with n partitions of three replicas, each
// led by its first replica, all in sync.
func newTopic(name string, n int) dualwrite.Topic {
	t := dualwrite.Topic{Name: name, ID: znode.Uuid{MostSignificantBits: 0x0123456789abcdef, LeastSignificantBits: int64(len(name))<<32 | 1},
		Partitions: make(map[int32]dualwrite.Partition, n)}
	for p := int32(0); p < int32(n); p++ {
		r := []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
		t.Partitions[p] = dualwrite.Partition{Replicas: r, State: dualwrite.PartitionState{Leader: r[0], ISR: r}}
	}
	return t
}

// topicCreates is what Kafka 3.9's createTopic creates, in its order: the
// topic znode, its empty config, the partitions znode, then for each
// partition, by ascending id, its znode and its state, stamped with the
// KRaft controller epoch.
type topicCreates struct {
	paths []string // relative to the env's root
	data  [][]byte
}

func newTopicCreates(t dualwrite.Topic, controllerEpoch int32) topicCreates {
	assignment := znode.Topic{ID: t.ID, Partitions: map[int32]znode.ReplicaAssignment{}}
	for id, p := range t.Partitions {
		assignment.Partitions[id] = znode.ReplicaAssignment{Replicas: p.Replicas}
	}
	var c topicCreates
	c.add(znode.TopicPath(t.Name), assignment.Encode())
	c.add(znode.TopicConfigEntity(t.Name).Path(), znode.Config{}.Encode())
	c.add(znode.TopicPartitionsPath(t.Name), nil)
	for id := int32(0); id < int32(len(t.Partitions)); id++ {
		st := t.Partitions[id].State
		c.add(znode.PartitionPath(t.Name, id), nil)
		c.add(znode.PartitionStatePath(t.Name, id), znode.PartitionState{ControllerEpoch: controllerEpoch,
			Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ISR: st.ISR, LeaderRecoveryState: st.LeaderRecoveryState}.Encode())
	}
	return c
}

func (c *topicCreates) add(path string, data []byte) {
	c.paths = append(c.paths, path)
	c.data = append(c.data, data)
}

// deleteAll deletes the znodes under root, children first.
func (c topicCreates) deleteAll(tb testing.TB, admin *zk.Conn, root string) {
	tb.Helper()
	reqs := make([]interface{}, 0, len(c.paths))
	for i := len(c.paths) - 1; i >= 0; i-- {
		reqs = append(reqs, &zk.DeleteRequest{Path: root + c.paths[i], Version: -1})
	}
	multiChunks(tb, admin, reqs)
}

// check fails unless ZooKeeper holds every znode under root as created.
func (c topicCreates) check(tb testing.TB, admin *zk.Conn, root string) {
	tb.Helper()
	for i, p := range c.paths {
		data, _, err := admin.Get(root + p)
		if err != nil || string(data) != string(c.data[i]) {
			tb.Fatalf("%s holds %q (%v), want %q", p, data, err, c.data[i])
		}
	}
}

// newTopicEnv is an env whose Writer also created Kafka's top-level paths
// (/config/topics among them), as Kafka's migration driver does when it
// starts.
func newTopicEnv(tb testing.TB, srv *zktest.Server, admin *zk.Conn, name string, opts ...migrationzk.Option) *env {
	tb.Helper()
	e := newEnv(tb, srv.Servers, admin, srv.Path("/"+name), opts)
	if err := e.w.CreateTopLevelPaths(context.Background()); err != nil {
		tb.Fatalf("CreateTopLevelPaths: %v", err)
	}
	return e
}

// kafkaCreateTopic writes c as Kafka 3.9's createTopic and the delta's
// checkpoint after it: each create in a fenced multi of its own
// (kafkaCreate), the last carrying SetData /migration of the state before
// the delta, kafkaInFlight multis in flight; then a plain conditional
// SetData /migration of s, the state after it. It leaves e's State at the
// version ZooKeeper holds.
func kafkaCreateTopic(tb testing.TB, e *env, c topicCreates, s migrationzk.State) {
	tb.Helper()
	acl := worldACL()
	before := checkpoint(e.s)
	send := func(i int) error {
		_, err := kafkaCreate(e, c.paths[i], c.data[i], acl, before, false)
		return err
	}
	last := len(c.paths) - 1
	if err := pipelineChains(topicChains(len(c.paths)), kafkaInFlight, send); err != nil {
		tb.Fatalf("Kafka-shaped createTopic: %v", err)
	}
	res, err := kafkaCreate(e, c.paths[last], c.data[last], acl, before, true)
	if err != nil {
		tb.Fatalf("Kafka-shaped createTopic, last request: %v", err)
	}
	st, err := e.conn.Set(e.p(znode.MigrationPath), checkpoint(s), res[1].Stat.Version)
	if err != nil {
		tb.Fatalf("checkpoint after createTopic: %v", err)
	}
	e.s = s
	e.s.MigrationZkVersion = st.Version
}

// topicChains orders the first n-1 of createTopic's n requests (the last,
// which moves /migration, goes after all others, as ZooKeeper processes it
// anyway): in chains whose requests must go one after another, as each
// creates the parent of the next, where Kafka relies on ZooKeeper
// processing one session's requests in order. go-zookeeper sends a
// goroutine's request when it asks, so only independent requests may be in
// flight together: the topic then its partitions znode, beside the config;
// then each partition and its state, beside the others.
func topicChains(n int) [][][]int {
	first := [][]int{{0, 2}, {1}}
	var partitions [][]int
	for i := 3; i+1 < n-1; i += 2 {
		partitions = append(partitions, []int{i, i + 1})
	}
	return [][][]int{first, append(partitions, []int{n - 2})}
}

// pipelineChains runs the stages one after another, and in each the
// chains, up to depth at a time, each chain's requests in order. It
// returns the first error.
func pipelineChains(stages [][][]int, depth int, send func(i int) error) error {
	for _, chains := range stages {
		var wg sync.WaitGroup
		var once sync.Once
		var firstErr error
		next := make(chan []int)
		for w := 0; w < depth; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for chain := range next {
					for _, i := range chain {
						if err := send(i); err != nil {
							once.Do(func() { firstErr = fmt.Errorf("request %d: %w", i, err) })
							break
						}
					}
				}
			}()
		}
		for _, chain := range chains {
			next <- chain
		}
		close(next)
		wg.Wait()
		if firstErr != nil {
			return firstErr
		}
	}
	return nil
}

// topicCreation is one way of creating BenchmarkCreateTopic's topics, on an
// env of its own.
type topicCreation struct {
	e      *env
	create func(tb testing.TB, e *env, t dualwrite.Topic, c topicCreates, s migrationzk.State)
	// remove deletes t's znodes; nil for the admin session's deletes.
	remove func(tb testing.TB, e *env, t dualwrite.Topic)
}

// run creates t with the next offset, deletes its znodes outside the
// timing (checking them first when check is set), and returns the time it
// took and the requests sent and, of them, the writes.
func (tc *topicCreation) run(tb testing.TB, admin *zk.Conn, t dualwrite.Topic, check bool) (d time.Duration, requests, writes int64) {
	e := tc.e
	c := newTopicCreates(t, e.s.KRaftControllerEpoch)
	s := e.s
	s.KRaftMetadataOffset++
	e.faults.ResetCounts()
	start := time.Now()
	tc.create(tb, e, t, c, s)
	d = time.Since(start)
	requests, writes = e.faults.Requests(), e.faults.Count(zktest.OpMulti)+e.faults.Count(zktest.OpSetData)
	if check {
		c.check(tb, admin, e.root)
	}
	if tc.remove != nil {
		tc.remove(tb, e, t)
	} else {
		c.deleteAll(tb, admin, e.root)
	}
	return d, requests, writes
}

// rememberingCreation creates topics on e through one Client that Read
// the tree first: it remembers which topics exist, so a new one's absence
// is known without a read, as during a migration. It deletes them through
// the same Client (DeleteTopic, with the next offset), so that what it
// remembers stays what ZooKeeper holds, as a migration's Client's does,
// rather than growing with every topic the benchmark creates.
func rememberingCreation(tb testing.TB, e *env) *topicCreation {
	c := must.Get(dualwrite.New(e.w))
	if _, err := c.Read(context.Background(), nil); err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return &topicCreation{e: e,
		create: func(tb testing.TB, e *env, t dualwrite.Topic, _ topicCreates, s migrationzk.State) {
			tb.Helper()
			st, err := c.CreateTopic(context.Background(), s, t)
			if err != nil {
				tb.Fatalf("CreateTopic: %v", err)
			}
			e.s = st
		},
		remove: func(tb testing.TB, e *env, t dualwrite.Topic) {
			tb.Helper()
			s := e.s
			s.KRaftMetadataOffset++
			st, err := c.DeleteTopic(context.Background(), s, t.Name)
			if err != nil {
				tb.Fatalf("DeleteTopic: %v", err)
			}
			e.s = st
		}}
}

func kafkaCreateTopicVariant(tb testing.TB, e *env, _ dualwrite.Topic, c topicCreates, s migrationzk.State) {
	kafkaCreateTopic(tb, e, c, s)
}

// multiCreateTopic writes c and the checkpoint of s in one multi of the
// bare client, as CreateTopic's transaction does, with nothing read
// before: the least ZooKeeper takes to create the topic in one
// transaction.
func multiCreateTopic(tb testing.TB, e *env, _ dualwrite.Topic, c topicCreates, s migrationzk.State) {
	tb.Helper()
	bareMulti(tb, e, c.paths, c.data, s)
}

// BenchmarkCreateTopic creates a topic of 1,000 partitions (three
// replicas each) and moves the checkpoint, three ways in turn within each
// iteration, each on a fresh topic name under a root of its own:
// dualwrite.Client.CreateTopic, on a Client that read the tree once
// before and so remembers the new topic's absence (rememberingCreation);
// Kafka 3.9's createTopic written with the bare client, 2,003 fenced
// multis ten in flight and the checkpoint after them (kafkaCreateTopic);
// and, for the bound, the same creates and checkpoint in one multi of the
// bare client (multiCreateTopic). The znodes are deleted after each,
// outside the timings (CreateTopic's by its Client), and checked byte for
// byte in the first, untimed, iteration. It fails unless CreateTopic takes
// exactly the write requests the topic's bytes need. Beside each
// variant's median, ours/multi-paired-p50-ratio is the median over the
// iterations of CreateTopic's time over the bare multi's in the same
// iteration.
//
// It runs against two servers in turn: one whose JVM runs both of its
// compilers, as production servers do (jit=full), and one that stops at
// the first, as the tests' servers do (jit=first-tier). Each is warmed up
// with untimed iterations first (fullJITWarmUp, firstTierWarmUp).
func BenchmarkCreateTopic(b *testing.B) {
	servers := []struct {
		name   string
		warmUp int
		opts   []zktest.Option
	}{
		{"full", fullJITWarmUp, []zktest.Option{zktest.WithFullJIT()}},
		{"first-tier", firstTierWarmUp, nil},
	}
	for _, srv := range servers {
		b.Run("jit="+srv.name, func(b *testing.B) { benchmarkCreateTopic(b, srv.warmUp, srv.opts...) })
	}
}

// How many untimed iterations warm a server up, each sending it some
// 2,000 requests and 4,000 creates: until Kafka's shape, the variant that
// gains most from the JIT, stops getting faster. The first tier compiles
// within a few. With the full JIT, Kafka's shape kept getting faster for
// some 60 (221 ms a topic over the first 20 iterations, 172 ms over the
// next 40, 134 to 151 ms over each 20 of the 140 after, the bare multi
// 14 to 15 ms throughout).
const (
	firstTierWarmUp = 10
	fullJITWarmUp   = 80
)

func benchmarkCreateTopic(b *testing.B, warmUp int, opts ...zktest.Option) {
	srv := zktest.Start(b, opts...)
	admin := srv.Connect(b)
	variants := []*topicCreation{
		rememberingCreation(b, newTopicEnv(b, srv, admin, "ours")),
		{e: newTopicEnv(b, srv, admin, "kafka"), create: kafkaCreateTopicVariant},
		{e: newTopicEnv(b, srv, admin, "multi"), create: multiCreateTopic},
	}
	created := 0 // topics, over the warm-up and the runs of the sub-benchmark
	for ; created < warmUp; created++ {
		t := newTopic(fmt.Sprintf("orders-%d", created), createTopicPartitions)
		for _, v := range variants {
			v.run(b, admin, t, created == 0)
		}
	}
	b.Run(fmt.Sprintf("partitions=%d", createTopicPartitions), func(b *testing.B) {
		smp := newSamples(b.N, "ours", "kafka", "multi")
		var requests, writes [3]int64
		var bound int
		for i := 0; i < b.N; i++ {
			t := newTopic(fmt.Sprintf("orders-%d", created), createTopicPartitions)
			bound = topicRequests(variants[0].e, t)
			for _, j := range order(i, len(variants)) {
				d, reqs, w := variants[j].run(b, admin, t, false)
				smp.add(j, d)
				requests[j], writes[j] = reqs, w
			}
			created++
			if writes[0] != int64(bound) {
				b.Fatalf("CreateTopic took %d write requests, the topic's bytes need %d", writes[0], bound)
			}
		}
		smp.report(b, [2]int{1, 0}, [2]int{0, 2}, [2]int{1, 2})
		smp.reportPaired(b, [2]int{0, 2})
		b.ReportMetric(float64(requests[0]), "ours-requests")
		b.ReportMetric(float64(writes[0]), "ours-write-requests")
		b.ReportMetric(float64(requests[1]), "kafka-requests")
		b.ReportMetric(float64(bound), "bound-requests")
	})
}

// topicRequests is the fewest write requests that can carry the creation
// of t by e's Writer, with the checkpoint of the next offset: the bytes of
// Kafka's creates in transactions over the maximum request size.
func topicRequests(e *env, t dualwrite.Topic) int {
	c := newTopicCreates(t, e.s.KRaftControllerEpoch)
	s := e.s
	s.KRaftMetadataOffset++
	return createRequests(e.root, c.paths, c.data, checkpoint(s), migrationzk.DefaultMaxRequestBytes)
}

// createTopicRequests creates t through e's Writer with the next offset,
// checks that ZooKeeper holds c and that one call moved /migration once
// per write request, and returns the requests sent by opcode.
func createTopicRequests(t *testing.T, admin *zk.Conn, e *env, tp dualwrite.Topic, c topicCreates) map[zktest.Op]int64 {
	t.Helper()
	s := e.s
	s.KRaftMetadataOffset++
	e.faults.ResetCounts()
	st, err := must.Get(dualwrite.New(e.w)).CreateTopic(context.Background(), s, tp)
	if err != nil {
		t.Fatalf("CreateTopic %s: %v", tp.Name, err)
	}
	counts := e.faults.Counts()
	c.check(t, admin, e.root)
	if moved := int64(st.MigrationZkVersion - e.s.MigrationZkVersion); moved != counts[zktest.OpMulti] {
		t.Fatalf("CreateTopic %s: /migration moved %d versions in %d multis", tp.Name, moved, counts[zktest.OpMulti])
	}
	e.s = st
	return counts
}

// planningReads counts the reads among counts: syncs, reads of data and
// listings of children.
func planningReads(counts map[zktest.Op]int64) int64 {
	return counts[zktest.OpSync] + counts[zktest.OpGetData] + counts[zktest.OpChildren]
}

// CreateTopic of 1,000 partitions writes what Kafka's createTopic writes,
// byte for byte, in exactly as many write requests as its bytes need (one
// transaction that carries the checkpoint as well), and reads only what
// exists: a new topic of 1,000 partitions takes the reads of a new topic
// of one, and a topic half created (the first half of Kafka's requests
// landed before a crash) is finished with the reads of the half that
// exists.
func TestCreateTopicRequests(t *testing.T) {
	srv := zktest.Start(t)
	admin := srv.Connect(t)
	e := newTopicEnv(t, srv, admin, "create-topic")

	small := newTopic("single", 1)
	smallReads := planningReads(createTopicRequests(t, admin, e, small, newTopicCreates(small, e.s.KRaftControllerEpoch)))

	tp := newTopic("orders", createTopicPartitions)
	c := newTopicCreates(tp, e.s.KRaftControllerEpoch)
	bound := int64(topicRequests(e, tp))
	counts := createTopicRequests(t, admin, e, tp, c)
	if counts[zktest.OpMulti] != bound || counts[zktest.OpSetData] != 0 || planningReads(counts) != smallReads ||
		e.faults.Requests() != bound+smallReads {
		t.Fatalf("new topic: %v; want %d multis and the %d reads of a one-partition topic", counts, bound, smallReads)
	}
	t.Logf("new topic of %d partitions: %d requests (%d reads, %d multis, bound %d)", createTopicPartitions, e.faults.Requests(), smallReads, bound, bound)

	half := newTopic("payments", createTopicPartitions)
	hc := newTopicCreates(half, e.s.KRaftControllerEpoch)
	landed := 3 + createTopicPartitions // the topic, config and partitions znodes, then 500 partitions and their states
	reqs := make([]interface{}, landed)
	for i := range reqs {
		reqs[i] = &zk.CreateRequest{Path: e.p(hc.paths[i]), Data: hc.data[i], Acl: worldACL()}
	}
	multiChunks(t, admin, reqs)
	s := e.s
	s.KRaftMetadataOffset++
	halfBound := int64(createRequests(e.root, hc.paths[landed:], hc.data[landed:], checkpoint(s), migrationzk.DefaultMaxRequestBytes))
	counts = createTopicRequests(t, admin, e, half, hc)
	if reads := planningReads(counts); counts[zktest.OpMulti] != halfBound || reads > int64(landed)+smallReads {
		t.Fatalf("half-created topic: %v; want %d multis and at most %d reads", counts, halfBound, int64(landed)+smallReads)
	}
	t.Logf("half-created topic: %v", counts)
}
