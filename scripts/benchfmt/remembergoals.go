package main

import "fmt"

// The benchmarks of goal 11: what the dual-write Client remembers.
const (
	rememberedDelta     = "RememberedDelta/partitions=1000"
	rememberedOne       = "RememberedDelta/partitions=1"
	rememberedLatency   = "RememberedDelta/partitions=1/latency=1ms"
	rememberedDeletes   = "RememberedDelta/deletes"
	rememberedCold      = "RememberedDelta/cold"
	rememberedMemory    = "RememberedMemory/read"
	maxRememberedOver   = 1.3  // a remembered delta of 1,000 over one bare multi of its ops
	maxOneOverMulti     = 1.2  // a remembered 1-partition delta over a bare 3-op multi
	maxOneOverKafka     = 1.1  // the same across zones (1 ms each way) over Kafka's shape
	maxRememberedBytes  = 100  // heap per remembered partition at 100,000
	maxRememberedGrowth = 1.25 // that heap at 100,000 over 10,000
	createFullBench     = "CreateTopic/jit=full/partitions=1000"
)

// rememberedCreateRows: CreateTopic of 1,000 partitions with the topic's
// absence remembered is its one write request; its time, at the floor, is
// goal 6's.
func rememberedCreateRows(r run) []row {
	const what = "CreateTopic of 1,000 partitions, absence remembered: requests (time: goal 6)"
	m, ok := metrics(r, createFullBench, "ours-requests")
	if !ok {
		return []row{missingRow("11", what, createFullBench)}
	}
	return []row{{goal: "11", what: what, bench: createFullBench, figure: fmt.Sprintf("%.0f", m[0]), target: "1", holds: m[0] == 1}}
}

func rememberRows(r run) []row {
	var rows []row
	rows = append(rows, rememberedDeltaRows(r)...)
	rows = append(rows, rememberedOneRows(r)...)
	rows = append(rows, rememberedReadRows(r)...)
	rows = append(rows, rememberedCreateRows(r)...)
	return append(rows, rememberedMemoryRows(r)...)
}

func rememberedDeltaRows(r run) []row {
	const what = "remembered delta of 1,000 leader changes (10 topics × 100): requests; / one bare multi, median"
	m, ok := metrics(r, rememberedDelta, "ours-requests", "ours/multi-p50-ratio", "ours-p50-us", "multi-p50-us", "kafka/ours-p50-ratio", "kafka-p50-us", "kafka-requests")
	if !ok {
		return []row{missingRow("11", what, rememberedDelta)}
	}
	return []row{
		{goal: "11", what: what, bench: rememberedDelta,
			figure: fmt.Sprintf("%.0f; %.2f (%.1f / %.1f ms)", m[0], m[1], m[2]/1e3, m[3]/1e3),
			target: fmt.Sprintf("1; ≤ %.1f", maxRememberedOver), holds: m[0] == 1 && m[1] <= maxRememberedOver},
		{goal: "11", what: "Kafka's updateTopicPartitions shape (per topic, 10 in flight) / the remembered delta, median", bench: rememberedDelta,
			figure: fmt.Sprintf("%.1f× (%.1f ms, %.0f requests)", m[4], m[5]/1e3, m[6])},
	}
}

func rememberedOneRows(r run) []row {
	const what = "remembered 1-partition delta: requests; / a bare 3-op multi, median"
	m, ok := metrics(r, rememberedOne, "ours-requests", "ours/multi-p50-ratio", "ours-p50-us", "multi-p50-us")
	if !ok {
		return []row{missingRow("11", what, rememberedOne)}
	}
	const whatZones = "the same with 1 ms latency each way / Kafka's shape, median"
	z, ok := metrics(r, rememberedLatency, "ours/kafka-p50-ratio", "ours-p50-us", "kafka-p50-us")
	if !ok {
		return []row{missingRow("11", whatZones, rememberedLatency)}
	}
	return []row{
		{goal: "11", what: what, bench: rememberedOne,
			figure: fmt.Sprintf("%.0f; %.2f (%.0f / %.0f µs)", m[0], m[1], m[2], m[3]),
			target: fmt.Sprintf("1; ≤ %.1f", maxOneOverMulti), holds: m[0] == 1 && m[1] <= maxOneOverMulti},
		{goal: "11", what: whatZones, bench: rememberedLatency,
			figure: fmt.Sprintf("%.3f (%.2f / %.2f ms)", z[0], z[1]/1e3, z[2]/1e3),
			target: fmt.Sprintf("≤ %.1f", maxOneOverKafka), holds: z[0] <= maxOneOverKafka},
	}
}

func rememberedReadRows(r run) []row {
	const what = "remembered DeletePartitions / DeleteTopic: reads"
	d, ok := metrics(r, rememberedDeletes, "delete-partitions-reads", "delete-topic-reads")
	if !ok {
		return []row{missingRow("11", what, rememberedDeletes)}
	}
	const whatCold = "cold delta of 900 partitions: read waves, syncs (requests)"
	c, ok := metrics(r, rememberedCold, "cold-read-waves", "cold-syncs", "cold-requests")
	if !ok {
		return []row{missingRow("11", whatCold, rememberedCold)}
	}
	return []row{
		{goal: "11", what: what, bench: rememberedDeletes, figure: fmt.Sprintf("%.0f / %.0f", d[0], d[1]),
			target: "0 / 0", holds: d[0] == 0 && d[1] == 0},
		{goal: "11", what: whatCold, bench: rememberedCold, figure: fmt.Sprintf("%.0f, %.0f (%.0f)", c[0], c[1], c[2]),
			target: "1, 1", holds: c[0] == 1 && c[1] == 1},
	}
}

func rememberedMemoryRows(r run) []row {
	const what = "what the Client remembers after a Read: heap per partition, 10,000 / 100,000 partitions"
	m, ok := metrics(r, rememberedMemory, "partitions=10000-B/partition", "partitions=100000-B/partition")
	if !ok {
		return []row{missingRow("11", what, rememberedMemory)}
	}
	return []row{{goal: "11", what: what, bench: rememberedMemory,
		figure: fmt.Sprintf("%.0f / %.0f B", m[0], m[1]),
		target: fmt.Sprintf("≤ %d B, ratio ≤ %.2f", maxRememberedBytes, maxRememberedGrowth),
		holds:  m[1] <= maxRememberedBytes && m[1] <= m[0]*maxRememberedGrowth}}
}
