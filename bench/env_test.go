package bench_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// worldACL returns the ACL Kafka creates znodes with, without
// zookeeper.set.acl.
func worldACL() []zk.ACL { return zk.WorldACL(zk.PermAll) }

// env is one KRaft controller's view of a ZooKeeper laid out as Kafka
// leaves it when a migration starts, under a root of its own so that
// several envs can share a server: /controller_epoch, /brokers/topics, and
// /migration created by the Writer after it claimed leadership.
type env struct {
	root   string
	faults *zktest.FaultDialer
	conn   *zk.Conn // dials through faults
	w      *migrationzk.Writer
	s      migrationzk.State
}

// newEnv connects to servers through a fresh FaultDialer (connOpts come
// after it) and starts an env on root there (see startEnv).
func newEnv(tb testing.TB, servers []string, admin *zk.Conn, root string, opts []migrationzk.Option, connOpts ...func(*zk.Conn)) *env {
	tb.Helper()
	faults := zktest.NewFaultDialer(tb)
	conn := zktest.Connect(tb, servers, append([]func(*zk.Conn){faults.Option()}, connOpts...)...)
	return startEnv(tb, conn, faults, admin, root, opts)
}

// startEnv lays out root through admin and starts a Writer there with opts
// on conn, which dials through faults.
func startEnv(tb testing.TB, conn *zk.Conn, faults *zktest.FaultDialer, admin *zk.Conn, root string, opts []migrationzk.Option) *env {
	tb.Helper()
	for _, p := range []string{root, root + "/brokers", root + znode.TopicsPath} {
		mustCreate(tb, admin, p, nil)
	}
	mustCreate(tb, admin, root+znode.ControllerEpochPath, znode.EncodeControllerEpoch(1))
	e := &env{root: root, faults: faults, conn: conn}
	e.w = must.Get(migrationzk.New(e.conn, append([]migrationzk.Option{migrationzk.WithRoot(root)}, opts...)...))
	ctx := context.Background()
	s := migrationzk.InitialState()
	s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataOffset, s.KRaftMetadataEpoch = 3000, 5, 0, 5
	s, err := e.w.ClaimLeadership(ctx, s)
	if err != nil {
		tb.Fatalf("ClaimLeadership: %v", err)
	}
	if e.s, _, err = e.w.GetOrCreate(ctx, s); err != nil {
		tb.Fatalf("GetOrCreate: %v", err)
	}
	return e
}

// p returns path under the env's root.
func (e *env) p(path string) string { return e.root + path }

func mustCreate(tb testing.TB, conn *zk.Conn, path string, data []byte) {
	tb.Helper()
	if _, err := conn.Create(path, data, 0, worldACL()); err != nil {
		tb.Fatalf("create %s: %v", path, err)
	}
}

// checkpoint returns the /migration bytes of s, as a caller writing them
// itself would encode them.
func checkpoint(s migrationzk.State) []byte {
	return znode.Migration{
		KRaftMetadataOffset:  s.KRaftMetadataOffset,
		KRaftControllerID:    s.KRaftControllerID,
		KRaftMetadataEpoch:   s.KRaftMetadataEpoch,
		KRaftControllerEpoch: s.KRaftControllerEpoch,
	}.Encode()
}

// partitions is a set of partition-state znodes of realistic size: topics
// of up to 100 partitions, each state with a three-replica ISR.
type partitions struct {
	paths []string // relative to the env's root
	data  [][]byte
}

// newPartitions names n partition states of topics called prefix-0,
// prefix-1 and so on.
func newPartitions(prefix string, n int) partitions {
	var ps partitions
	for i := 0; i < n; i++ {
		topic := fmt.Sprintf("%s-%d", prefix, i/100)
		p := int32(i % 100)
		st := znode.PartitionState{ControllerEpoch: 5, Leader: p%3 + 1, LeaderEpoch: 7, ISR: []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}}
		ps.paths = append(ps.paths, znode.PartitionStatePath(topic, p))
		ps.data = append(ps.data, st.Encode())
	}
	return ps
}

// createParents creates the topic and partition znodes above each state.
func (ps partitions) createParents(tb testing.TB, admin *zk.Conn, root string) {
	tb.Helper()
	seen := map[string]bool{}
	var reqs []interface{}
	acl := worldACL()
	for _, p := range ps.paths {
		partition := strings.TrimSuffix(p, "/state")
		partitionsDir := partition[:strings.LastIndexByte(partition, '/')]
		topic := strings.TrimSuffix(partitionsDir, "/partitions")
		for _, dir := range []string{topic, partitionsDir, partition} {
			if !seen[dir] {
				seen[dir] = true
				reqs = append(reqs, &zk.CreateRequest{Path: root + dir, Acl: acl})
			}
		}
	}
	multiChunks(tb, admin, reqs)
}

// ops returns the Apply ops creating the states.
func (ps partitions) ops() []migrationzk.Op {
	ops := make([]migrationzk.Op, len(ps.paths))
	for i, p := range ps.paths {
		ops[i] = migrationzk.Create(p, ps.data[i])
	}
	return ops
}

// deleteAll deletes the states, leaving out those at the indices in keep.
func (ps partitions) deleteAll(tb testing.TB, admin *zk.Conn, root string, keep map[int]bool) {
	tb.Helper()
	reqs := make([]interface{}, 0, len(ps.paths))
	for i, p := range ps.paths {
		if !keep[i] {
			reqs = append(reqs, &zk.DeleteRequest{Path: root + p, Version: -1})
		}
	}
	multiChunks(tb, admin, reqs)
}

// batchRequests is the fewest round trips that can carry a batch: its bytes
// (the ops, one fencing check and one /migration SetData) over the maximum
// request size.
func batchRequests(root string, ps partitions, checkpoint []byte, maxRequest int) int {
	return createRequests(root, ps.paths, ps.data, checkpoint, maxRequest)
}

// createRequests is the fewest round trips that can carry, in fenced
// transactions, the creates of paths (under root) holding data, with one
// fencing check and one /migration SetData of checkpoint: their bytes over
// the maximum request size.
func createRequests(root string, paths []string, data [][]byte, checkpoint []byte, maxRequest int) int {
	bytes := wire.VersionOpSize(root+znode.ControllerEpochPath) + wire.SetDataOpSize(root+znode.MigrationPath, checkpoint)
	acl := worldACL()
	for i, p := range paths {
		bytes += wire.CreateOpSize(root+p, data[i], acl)
	}
	return int(math.Ceil(float64(wire.MultiSize(bytes)) / float64(maxRequest)))
}

// bareMulti creates paths (under e's root) holding data and writes the
// checkpoint of s in one multi of the bare client, fenced as the Writer
// fences its transactions, nothing read before: the least ZooKeeper takes
// to apply them in one transaction. It leaves e's State at s, at the
// version ZooKeeper holds.
func bareMulti(tb testing.TB, e *env, paths []string, data [][]byte, s migrationzk.State) {
	tb.Helper()
	acl := worldACL()
	reqs := make([]interface{}, 0, 2+len(paths))
	reqs = append(reqs,
		&zk.CheckVersionRequest{Path: e.p(znode.ControllerEpochPath), Version: e.s.ZkControllerEpochZkVersion},
		&zk.SetDataRequest{Path: e.p(znode.MigrationPath), Data: checkpoint(s), Version: e.s.MigrationZkVersion})
	for i, p := range paths {
		reqs = append(reqs, &zk.CreateRequest{Path: e.p(p), Data: data[i], Acl: acl})
	}
	res, err := e.conn.Multi(reqs...)
	if err != nil {
		tb.Fatalf("bare multi of %d creates: %v", len(paths), err)
	}
	e.s = s
	e.s.MigrationZkVersion = res[1].Stat.Version
}

// multiChunks sends reqs in multis of at most 500 ops.
func multiChunks(tb testing.TB, conn *zk.Conn, reqs []interface{}) {
	tb.Helper()
	for len(reqs) > 0 {
		n := min(len(reqs), 500)
		if _, err := conn.Multi(reqs[:n]...); err != nil {
			tb.Fatalf("multi of %d ops: %v", n, err)
		}
		reqs = reqs[n:]
	}
}

// samples records per-operation latencies of the variants compared in one
// benchmark, which run interleaved so that noise hits them alike.
type samples struct {
	names []string
	d     [][]time.Duration
}

func newSamples(n int, names ...string) *samples {
	s := &samples{names: names, d: make([][]time.Duration, len(names))}
	for i := range s.d {
		s.d[i] = make([]time.Duration, 0, n)
	}
	return s
}

// add records a latency of variant i.
func (s *samples) add(i int, d time.Duration) { s.d[i] = append(s.d[i], d) }

// quantile returns the q-quantile (0 to 1) of variant i's latencies.
func (s *samples) quantile(i int, q float64) time.Duration {
	d := slices.Clone(s.d[i])
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[int(q*float64(len(d)-1)+0.5)]
}

// report reports each variant's median in microseconds as <name>-p50-us,
// and, for each pair (a, b), the ratio of a's median to b's as
// <a>/<b>-p50-ratio.
func (s *samples) report(b *testing.B, pairs ...[2]int) {
	for i, name := range s.names {
		b.ReportMetric(float64(s.quantile(i, 0.5))/1e3, name+"-p50-us")
	}
	for _, p := range pairs {
		ratio := float64(s.quantile(p[0], 0.5)) / float64(s.quantile(p[1], 0.5))
		b.ReportMetric(ratio, s.names[p[0]]+"/"+s.names[p[1]]+"-p50-ratio")
	}
}

// reportPaired reports, for each pair (a, b), the median over the
// iterations of the ratio of a's latency to b's in the same iteration, as
// <a>/<b>-paired-p50-ratio. The two ran moments apart, so a change of
// the machine's load between iterations moves both sides of each ratio
// alike, where it moves a ratio of medians as it hits one variant's
// samples more than the other's.
func (s *samples) reportPaired(b *testing.B, pairs ...[2]int) {
	for _, p := range pairs {
		ratios := make([]float64, min(len(s.d[p[0]]), len(s.d[p[1]])))
		for i := range ratios {
			ratios[i] = float64(s.d[p[0]][i]) / float64(s.d[p[1]][i])
		}
		slices.Sort(ratios)
		median := math.NaN()
		if len(ratios) > 0 {
			median = ratios[len(ratios)/2]
			if len(ratios)%2 == 0 {
				median = (ratios[len(ratios)/2-1] + median) / 2
			}
		}
		b.ReportMetric(median, s.names[p[0]]+"/"+s.names[p[1]]+"-paired-p50-ratio")
	}
}

// pairedDifference returns the median over the iterations of variant a's
// latency less variant b's in the same iteration.
func (s *samples) pairedDifference(a, b int) time.Duration {
	diffs := make([]time.Duration, min(len(s.d[a]), len(s.d[b])))
	for i := range diffs {
		diffs[i] = s.d[a][i] - s.d[b][i]
	}
	if len(diffs) == 0 {
		return 0
	}
	slices.Sort(diffs)
	return diffs[len(diffs)/2]
}

// order returns the order in which to run k variants in iteration i. Each
// k iterations in a row rotate one circular arrangement of the variants,
// so that each goes first once; the next k, the next arrangement. Over k!
// iterations every order runs once, so each variant also follows each
// other equally often: a rotation alone would have each always follow the
// same one, and pay for what that one leaves the server doing, such as
// collecting its garbage.
func order(i, k int) []int {
	circle := append([]int{0}, permutation((i/k)%factorial(k-1), k-1)...)
	for j := 1; j < k; j++ {
		circle[j]++
	}
	o := make([]int, k)
	for j := range o {
		o[j] = circle[(i+j)%k]
	}
	return o
}

// permutation returns the n-th permutation of 0..k-1 in lexicographic
// order, n < k!.
func permutation(n, k int) []int {
	rest := make([]int, k)
	for j := range rest {
		rest[j] = j
	}
	count := factorial(k)
	out := make([]int, 0, k)
	for j := k; j > 0; j-- {
		count /= j // (j-1)!: the permutations that share the next pick
		pick := n / count
		n %= count
		out = append(out, rest[pick])
		rest = append(rest[:pick], rest[pick+1:]...)
	}
	return out
}

// factorial returns n!.
func factorial(n int) int {
	f := 1
	for j := 2; j <= n; j++ {
		f *= j
	}
	return f
}

// isOpFailure reports whether err from a Kafka-shaped multi is the op's own
// failure, which Kafka reports per request rather than throwing.
func isOpFailure(res []zk.MultiResponse, err error) bool {
	return err != nil && len(res) == 3 && res[0].Error == nil && res[1].Error == nil && res[2].Error != nil
}

// Over k! iterations order runs every permutation once, so each variant
// follows each other one equally often, and in each k iterations in a row
// each variant goes first once.
func TestOrder(t *testing.T) {
	for k := 1; k <= 4; k++ {
		count := factorial(k)
		seen := map[string]bool{}
		follows := map[[2]int]int{}
		for i := 0; i < count; i++ {
			o := order(i, k)
			seen[fmt.Sprint(o)] = true
			for j := 1; j < k; j++ {
				follows[[2]int{o[j-1], o[j]}]++
			}
		}
		if len(seen) != count {
			t.Fatalf("k=%d: %d distinct orders in %d iterations, want %d", k, len(seen), count, count)
		}
		for pair, n := range follows {
			if n != count/k {
				t.Fatalf("k=%d: %d follows %d in %d orders, want %d", k, pair[1], pair[0], n, count/k)
			}
		}
		for i := 0; i < count; i += k {
			first := map[int]bool{}
			for j := i; j < i+k; j++ {
				first[order(j, k)[0]] = true
			}
			if len(first) != k {
				t.Fatalf("k=%d: iterations %d to %d: %d variants go first, want %d", k, i, i+k-1, len(first), k)
			}
		}
		if fmt.Sprint(order(count, k)) != fmt.Sprint(order(0, k)) {
			t.Fatalf("k=%d: order does not repeat after %d iterations", k, count)
		}
	}
}

// runOnProcessors runs fn as the sub-benchmark name/procs=1, with the
// process on one processor, then as name, on as many as it has.
func runOnProcessors(b *testing.B, name string, fn func(b *testing.B)) {
	b.Run(name+"/procs=1", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		fn(b)
	})
	b.Run(name, fn)
}
