package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/testkit/must"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// rememberedDelta is one way of writing BenchmarkRememberedDelta's
// deltas, on an env of its own whose topics (topic-0 ...) the Client
// created, so that it remembers them.
type rememberedDelta struct {
	e      *env
	c      *dualwrite.Client
	topics int
	passes int
	write  func(tb testing.TB, d *rememberedDelta, states []map[int32]dualwrite.PartitionState)
}

// newRememberedDelta creates topics of parts partitions through a Client
// on a fresh env named name.
func newRememberedDelta(tb testing.TB, srv *zktest.Server, admin *zk.Conn, name string, topics, parts int,
	write func(testing.TB, *rememberedDelta, []map[int32]dualwrite.PartitionState)) *rememberedDelta {
	tb.Helper()
	d := &rememberedDelta{e: newTopicEnv(tb, srv, admin, name), topics: topics, write: write}
	d.c = must.Get(dualwrite.New(d.e.w))
	for t := 0; t < topics; t++ {
		s := d.e.s
		s.KRaftMetadataOffset++
		st, err := d.c.CreateTopic(context.Background(), s, newTopic(fmt.Sprintf("topic-%d", t), parts))
		if err != nil {
			tb.Fatalf("CreateTopic: %v", err)
		}
		d.e.s = st
	}
	return d
}

// run writes the next pass of leader moves for parts partitions of each
// topic, and returns the time it took and its requests.
func (d *rememberedDelta) run(tb testing.TB, parts int) (time.Duration, int64) {
	states := leaderMoves(d.topics, d.passes)
	for _, st := range states {
		for id := range st {
			if int(id) >= parts {
				delete(st, id)
			}
		}
	}
	d.passes++
	d.e.faults.ResetCounts()
	start := time.Now()
	d.write(tb, d, states)
	return time.Since(start), d.e.faults.Requests()
}

// oursDelta writes the states in one Batch of UpdatePartitions.
func oursDelta(tb testing.TB, d *rememberedDelta, states []map[int32]dualwrite.PartitionState) {
	b := d.c.Batch()
	for t, st := range states {
		b.UpdatePartitions(fmt.Sprintf("topic-%d", t), st)
	}
	s := d.e.s
	s.KRaftMetadataOffset++
	st, _, err := b.Apply(context.Background(), s)
	if err != nil {
		tb.Fatalf("delta: %v", err)
	}
	d.e.s = st
}

// stateOps returns the SetData requests of states, at any version, and
// the checkpoint's.
func (d *rememberedDelta) stateRequests(states []map[int32]dualwrite.PartitionState) [][]*zk.SetDataRequest {
	out := make([][]*zk.SetDataRequest, len(states))
	for t, st := range states {
		for _, id := range sortedStateIDs(st) {
			p := st[id]
			data := znode.PartitionState{ControllerEpoch: d.e.s.KRaftControllerEpoch, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, ISR: p.ISR}.Encode()
			out[t] = append(out[t], &zk.SetDataRequest{Path: d.e.p(znode.PartitionStatePath(fmt.Sprintf("topic-%d", t), id)), Data: data, Version: -1})
		}
	}
	return out
}

func sortedStateIDs(st map[int32]dualwrite.PartitionState) []int32 {
	ids := make([]int32, 0, len(st))
	for id := int32(0); len(ids) < len(st); id++ {
		if _, ok := st[id]; ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// multiDelta writes the states' SetData ops and the checkpoint in one
// fenced multi of the bare client, nothing read: the floor.
func multiDelta(tb testing.TB, d *rememberedDelta, states []map[int32]dualwrite.PartitionState) {
	s := d.e.s
	s.KRaftMetadataOffset++
	reqs := []interface{}{
		&zk.CheckVersionRequest{Path: d.e.p(znode.ControllerEpochPath), Version: d.e.s.ZkControllerEpochZkVersion},
		&zk.SetDataRequest{Path: d.e.p(znode.MigrationPath), Data: checkpoint(s), Version: d.e.s.MigrationZkVersion},
	}
	for _, topic := range d.stateRequests(states) {
		for _, r := range topic {
			reqs = append(reqs, r)
		}
	}
	res, err := d.e.conn.Multi(reqs...)
	if err != nil {
		tb.Fatalf("bare multi: %v", err)
	}
	d.e.s = s
	d.e.s.MigrationZkVersion = res[1].Stat.Version
}

// kafkaDelta writes the states as Kafka 3.9's updateTopicPartitions does
// for each changed topic, one topic after another: a multi per partition,
// [Check /controller_epoch, Check /migration, SetData state at any
// version], kafkaInFlight in flight, the topic's last with SetData
// /migration in place of its Check, sent once the others are answered.
func kafkaDelta(tb testing.TB, d *rememberedDelta, states []map[int32]dualwrite.PartitionState) {
	s := d.e.s
	s.KRaftMetadataOffset++
	for _, topic := range d.stateRequests(states) {
		fence := &zk.CheckVersionRequest{Path: d.e.p(znode.ControllerEpochPath), Version: d.e.s.ZkControllerEpochZkVersion}
		check := &zk.CheckVersionRequest{Path: d.e.p(znode.MigrationPath), Version: d.e.s.MigrationZkVersion}
		err := inFlight(len(topic)-1, kafkaInFlight, func(i int) error {
			_, err := d.e.conn.Multi(fence, check, topic[i])
			return err
		})
		if err != nil {
			tb.Fatalf("Kafka-shaped updateTopicPartitions: %v", err)
		}
		set := &zk.SetDataRequest{Path: d.e.p(znode.MigrationPath), Data: checkpoint(s), Version: d.e.s.MigrationZkVersion}
		res, err := d.e.conn.Multi(fence, set, topic[len(topic)-1])
		if err != nil {
			tb.Fatalf("Kafka-shaped updateTopicPartitions, last: %v", err)
		}
		d.e.s.MigrationZkVersion = res[1].Stat.Version
	}
	v := d.e.s.MigrationZkVersion
	d.e.s = s
	d.e.s.MigrationZkVersion = v
}

// BenchmarkRememberedDelta writes KRaft deltas of leader moves through a
// Client that remembers the partitions it created, beside Kafka 3.9's
// shape for the same delta (kafkaDelta) and one bare multi of the same
// SetData ops (multiDelta), interleaved (see order), each on an env of
// its own: a delta of 1,000 partitions (10 topics of 100), and one of 1
// partition, bare and with 1 ms of latency each way on every frame
// (FaultDialer.SetLatency), as across availability zones.
func BenchmarkRememberedDelta(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	for _, c := range []struct {
		name          string
		topics, parts int
		latency       time.Duration
	}{
		{"partitions=1000", 10, 100, 0},
		{"partitions=1", 1, 1, 0},
		{"partitions=1/latency=1ms", 1, 1, time.Millisecond},
	} {
		name := fmt.Sprintf("remember%d-%d", c.topics*c.parts, c.latency.Milliseconds())
		variants := []*rememberedDelta{
			newRememberedDelta(b, srv, admin, name+"ours", c.topics, topicSize, oursDelta),
			newRememberedDelta(b, srv, admin, name+"kafka", c.topics, topicSize, kafkaDelta),
			newRememberedDelta(b, srv, admin, name+"multi", c.topics, topicSize, multiDelta),
		}
		for _, v := range variants {
			v.e.faults.SetLatency(c.latency)
			v.run(b, c.parts) // warm
		}
		b.Run(c.name, func(b *testing.B) {
			smp := newSamples(b.N, "ours", "kafka", "multi")
			var requests [3]int64
			for i := 0; i < b.N; i++ {
				for _, j := range order(i, len(variants)) {
					d, reqs := variants[j].run(b, c.parts)
					smp.add(j, d)
					requests[j] = reqs
				}
			}
			smp.report(b, [2]int{1, 0}, [2]int{0, 2}, [2]int{0, 1})
			b.ReportMetric(float64(requests[0]), "ours-requests")
			b.ReportMetric(float64(requests[1]), "kafka-requests")
		})
		if c.parts == 100 {
			benchmarkRememberedReads(b, variants[0])
		}
	}
}

// benchmarkRememberedReads reports the reads of remembered deletes, then
// those of a cold delta, each measured once: they change d's topics.
func benchmarkRememberedReads(b *testing.B, d *rememberedDelta) {
	var deleted, cold []float64
	b.Run("deletes", func(b *testing.B) {
		if deleted == nil {
			deleted = reportDeleteReads(b, d)
		}
		b.ReportMetric(deleted[0], "delete-partitions-reads")
		b.ReportMetric(deleted[1], "delete-topic-reads")
	})
	b.Run("cold", func(b *testing.B) {
		if cold == nil {
			cold = reportCold(b, d)
		}
		b.ReportMetric(cold[0], "cold-read-waves")
		b.ReportMetric(cold[1], "cold-syncs")
		b.ReportMetric(cold[2], "cold-requests")
	})
}

// reportDeleteReads deletes partitions of a remembered topic, then a
// remembered topic, and returns the reads each sent.
func reportDeleteReads(b *testing.B, d *rememberedDelta) []float64 {
	d.e.faults.ResetCounts()
	s := d.e.s
	s.KRaftMetadataOffset++
	s, err := d.c.DeletePartitions(context.Background(), s, "topic-0", []int32{98, 99})
	if err != nil {
		b.Fatal(err)
	}
	out := []float64{float64(reads(d.e.faults))}
	d.e.faults.ResetCounts()
	s.KRaftMetadataOffset++
	if s, err = d.c.DeleteTopic(context.Background(), s, fmt.Sprintf("topic-%d", d.topics-1)); err != nil {
		b.Fatal(err)
	}
	d.e.s = s
	d.topics--
	return append(out, float64(reads(d.e.faults)))
}

// reads counts the read requests f saw.
func reads(f *zktest.FaultDialer) int64 {
	return f.Count(zktest.OpGetData) + f.Count(zktest.OpChildren) + f.Count(zktest.OpExists) + f.Count(zktest.OpSync)
}

// reportCold writes a delta through a Client that remembers nothing yet
// and returns its waves of reads, syncs and requests.
func reportCold(b *testing.B, d *rememberedDelta) []float64 {
	var waves, syncs int
	d.c = must.Get(dualwrite.New(d.e.w, dualwrite.WithTrace(func(e dualwrite.TraceEvent) {
		switch e.Kind {
		case dualwrite.TraceReadWave:
			waves++
		case dualwrite.TraceSync:
			syncs++
		}
	})))
	// topic-9 was deleted and topic-0 lost partitions 98 and 99.
	_, requests := d.run(b, 98)
	return []float64{float64(waves), float64(syncs), float64(requests)}
}

// BenchmarkRememberedMemory measures the heap a Client's memory holds per
// partition after a Read of 10,000 and of 100,000 partition states: the
// live heap with the Client kept and the Image dropped, less the live
// heap before the Read.
func BenchmarkRememberedMemory(b *testing.B) {
	srv := zktest.Start(b)
	admin := srv.Connect(b)
	envs := make([]*env, len(memoryTopics))
	for k, topics := range memoryTopics {
		envs[k] = newTopicEnv(b, srv, admin, fmt.Sprintf("remembered%d", topics))
		seedTopics(b, admin, envs[k], "topic", topics)
	}
	b.Run("read", func(b *testing.B) {
		perPartition := make([][]float64, len(memoryTopics))
		for i := 0; i < b.N; i++ {
			for _, k := range order(i, len(memoryTopics)) {
				n := memoryTopics[k] * topicSize
				perPartition[k] = append(perPartition[k], rememberedBytes(b, envs[k])/float64(n))
			}
		}
		for k, topics := range memoryTopics {
			b.ReportMetric(median(perPartition[k]), fmt.Sprintf("partitions=%d-B/partition", topics*topicSize))
		}
	})
}

// rememberedBytes returns the live heap a fresh Client on e holds after
// a Read, the Image dropped.
func rememberedBytes(tb testing.TB, e *env) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := must.Get(dualwrite.New(e.w))
	if _, err := c.Read(context.Background(), nil); err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}
