package main

import (
	"fmt"
	"math"
	"strings"
)

// row is one line of the table: a figure and, for a goal, whether it holds.
type row struct {
	goal    string // the goal's number, 1 to 15
	what    string
	bench   string
	figure  string
	target  string // empty for a figure shown for comparison
	holds   bool
	missing bool // the benchmark or its metric is not in the output
}

// Targets of the goals. Each is a ratio to what the bare client takes to
// send the same requests, or to Kafka's shape of them, or of a figure to
// itself, so that it holds whatever the machine; the absolute times
// beside them are shown for reading.
const (
	maxUpdateRatio = 1.05 // Update's median latency over the bare client's
	maxAllocGrowth = 0.5  // allocations per Update, late iterations over early ones
	maxScalingStep = 1.25 // time per op from one batch size to the next, ten times larger
	// With refused ops, time per op over the lowest of the smaller
	// batches. ZooKeeper reports one refusal per multi, and the ops of a
	// request that fails must go again, so a transaction that holds several
	// refusals sends its ops more often than one that holds a single one
	// (measured: 2.3 times the encodings per op at 1% refused from 100 ops
	// to 1,000, 1.3 to 1.6 times the time). That step costs a constant
	// factor, bounded here; after it time per op must stay flat
	// (maxScalingStep), which is what rules out a quadratic cost.
	maxRefusedSpread = 2.0
	// dualwrite's CreateTopic of 1,000 partitions over one bare multi of
	// the same creates and checkpoint, on either server.
	maxCreateOverMulti = 1.1
	// dualwrite's Read of 100,000 partition states over the bare client
	// sending the same requests: its syncs and reads, in its waves.
	maxReadRatio = 1.2
	// Sync of a 1% change, its own read counted as the Read beside it,
	// over a Read plus a Batch of the change alone: what Sync adds, its
	// diff, must stay within a twentieth of the two.
	maxSyncRatio = 1.05
	// Heap an Image holds per partition, 100,000 partitions over 10,000.
	maxImageGrowth = 1.2
)

// Targets of goals 2 and 3 on the floor.
const (
	// Apply over one bare multi of the same ops and checkpoint.
	maxApplyOverMulti = 1.1
	// Recovery from a dropped reply with zkconn.HostProvider over the same
	// with go-zookeeper's default host provider, on an ensemble, where the
	// default provider reconnects at once, and on a standalone server,
	// where it waits a second first.
	maxRecoveryEnsembleRatio   = 1.25
	maxRecoveryStandaloneRatio = 0.1
)

// evaluate turns the benchmark results into the table's rows.
func evaluate(r run) []row {
	var rows []row
	rows = append(rows, checkpointRows(r)...)
	rows = append(rows, dualWriteRows(r)...)
	rows = append(rows, recoveryRows(r)...)
	rows = append(rows, memoryRows(r)...)
	rows = append(rows, scalingRows(r)...)
	rows = append(rows, createTopicRows(r)...)
	rows = append(rows, deltaRows(r)...)
	rows = append(rows, readRows(r)...)
	rows = append(rows, syncRows(r)...)
	rows = append(rows, imageMemoryRows(r)...)
	rows = append(rows, rememberRows(r)...)
	rows = append(rows, kraftReplayRows(r)...)
	rows = append(rows, kraftMemoryRows(r)...)
	rows = append(rows, monitorRows(r)...)
	rows = append(rows, kraftDiffRows(r)...)
	return rows
}

// metric looks up a benchmark's metric; the row says when it is missing.
func metric(r run, bench, unit string) (float64, bool) {
	res, ok := r.find(bench)
	if !ok {
		return 0, false
	}
	v, ok := res.metrics[unit]
	return v, ok
}

func missingRow(goal, what, bench string) row {
	return row{goal: goal, what: what, bench: bench, figure: "missing", target: "-", missing: true}
}

func checkpointRows(r run) []row {
	var rows []row
	for _, fenced := range []bool{false, true} {
		kind, raw := "unfenced", "set"
		if fenced {
			kind, raw = "fenced", "multi"
		}
		for _, ctx := range []string{"background", "cancel"} {
			bench := "Checkpoint/" + kind + "/ctx=" + ctx
			what := fmt.Sprintf("%s Update / conn.%s, median latency (ctx %s)", kind, strings.ToUpper(raw[:1])+raw[1:], ctx)
			ratio, ok1 := metric(r, bench, "update/"+raw+"-p50-ratio")
			upd, ok2 := metric(r, bench, "update-p50-us")
			base, ok3 := metric(r, bench, raw+"-p50-us")
			if !ok1 || !ok2 || !ok3 {
				rows = append(rows, missingRow("1", what, bench))
				continue
			}
			rows = append(rows, row{goal: "1", what: what, bench: bench,
				figure: fmt.Sprintf("%.3f (%.0f / %.0f µs)", ratio, upd, base),
				target: fmt.Sprintf("≤ %.2f", maxUpdateRatio), holds: ratio <= maxUpdateRatio})
			if ctx == "cancel" {
				rows = append(rows, handoffRow(r, kind, bench, base))
			}
			if ctx == "background" {
				what := kind + " Update: requests on the wire"
				reqs, ok := metric(r, bench, "requests/update")
				if !ok {
					rows = append(rows, missingRow("1", what, bench))
					continue
				}
				rows = append(rows, row{goal: "1", what: what, bench: bench,
					figure: fmt.Sprintf("%.3f per Update", reqs), target: "= 1", holds: reqs == 1})
			}
		}
	}
	return rows
}

// handoffRow shows what handing a request to the goroutine that waits
// for it costs an Update with a cancellable context, beside the bare
// client's round trip of base µs.
func handoffRow(r run, kind, bench string, base float64) row {
	what := kind + " Update: hand-off to the goroutine that waits (cancellable less background context, median)"
	h, ok := metric(r, bench, "handoff-p50-us")
	if !ok {
		return missingRow("1", what, bench)
	}
	return row{goal: "1", what: what, bench: bench, figure: fmt.Sprintf("%.1f µs of a %.0f µs round trip", h, base)}
}

func dualWriteRows(r run) []row {
	const bench = "DualWrite/partitions=1000"
	m, ok := metrics(r, bench, "kafka-seq/apply-p50-ratio", "kafka-pipe/apply-p50-ratio", "apply-p50-us", "kafka-seq-p50-us",
		"kafka-pipe-p50-us", "apply-requests", "bound-requests", "apply/multi-paired-p50-ratio", "multi-p50-us")
	if !ok {
		return []row{missingRow("2", "dual-write batch of 1,000 partition states", bench)}
	}
	seq, pipe, apply, seqUs, pipeUs, reqs, bound, overMulti, multiUs := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	return []row{
		{goal: "2", what: "Apply / one bare multi of the same ops, median of the ratios in each iteration (medians)", bench: bench,
			figure: fmt.Sprintf("%.3f (%.1f / %.1f ms)", overMulti, apply/1e3, multiUs/1e3),
			target: fmt.Sprintf("≤ %.1f", maxApplyOverMulti), holds: overMulti <= maxApplyOverMulti},
		{goal: "2", what: "Kafka-shaped batch, sequential / Apply, median", bench: bench,
			figure: fmt.Sprintf("%.1f× (%.1f / %.1f ms)", seq, seqUs/1e3, apply/1e3)},
		{goal: "2", what: "Kafka-shaped batch, pipelined / Apply, median", bench: bench,
			figure: fmt.Sprintf("%.1f× (%.1f / %.1f ms)", pipe, pipeUs/1e3, apply/1e3),
			target: "> 1×", holds: pipe > 1},
		{goal: "2", what: "Apply round trips (ceil(batch bytes / max request bytes))", bench: bench,
			figure: fmt.Sprintf("%.0f (bound %.0f)", reqs, bound),
			target: "≤ bound", holds: reqs <= bound},
	}
}

func recoveryRows(r run) []row {
	var rows []row
	for _, topo := range []string{"standalone", "ensemble"} {
		bench := "Recovery/" + topo
		p50, ok1 := metric(r, bench, "zkconn-p50-ms")
		p90, ok2 := metric(r, bench, "zkconn-p90-ms")
		d50, ok3 := metric(r, bench, "default-p50-ms")
		d90, ok4 := metric(r, bench, "default-p90-ms")
		if !(ok1 && ok2 && ok3 && ok4) {
			rows = append(rows, missingRow("3", "recovery after a dropped reply", bench))
			continue
		}
		limit, why := maxRecoveryStandaloneRatio, "which waits a second to reconnect"
		if topo == "ensemble" {
			limit, why = maxRecoveryEnsembleRatio, "which reconnects at once"
		}
		ratio := p50 / d50
		rows = append(rows,
			row{goal: "3", what: "recovery after a dropped reply, zkconn.HostProvider / go-zookeeper's default host provider (" + why + "), median", bench: bench,
				figure: fmt.Sprintf("%.3f (%.1f / %.1f ms)", ratio, p50, d50), target: fmt.Sprintf("≤ %.2f", limit), holds: ratio <= limit},
			row{goal: "3", what: "the same, 90th percentiles", bench: bench,
				figure: fmt.Sprintf("%.1f / %.1f ms", p90, d90)})
	}
	return rows
}

func memoryRows(r run) []row {
	var rows []row
	for _, kind := range []string{"unfenced", "fenced"} {
		raw := map[string]string{"unfenced": "raw-set", "fenced": "raw-multi"}[kind]
		bench := "CheckpointMemory/" + kind + "/update"
		what := kind + " Update: allocations (bare client's), growth from early to late iterations"
		allocs, ok1 := metric(r, bench, "allocs/op")
		bytes, ok2 := metric(r, bench, "B/op")
		growth, ok3 := metric(r, bench, "alloc-growth/op")
		rawAllocs, ok4 := metric(r, "CheckpointMemory/"+kind+"/"+raw, "allocs/op")
		rawBytes, ok5 := metric(r, "CheckpointMemory/"+kind+"/"+raw, "B/op")
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			rows = append(rows, missingRow("4", what, bench))
			continue
		}
		rows = append(rows, row{goal: "4", what: what, bench: bench,
			figure: fmt.Sprintf("%.0f (%.0f) allocs, %.0f (%.0f) B; growth %+.2f", allocs, rawAllocs, bytes, rawBytes, growth),
			target: fmt.Sprintf("growth ≤ %.1f", maxAllocGrowth), holds: growth <= maxAllocGrowth})
	}
	allocs, ok := series(r, "0", "allocs/znode")
	const bench = "ApplyScaling/refused=0"
	what := "Apply: allocations per op, 10 / 100 / 1,000 / 10,000 ops"
	if !ok {
		return append(rows, missingRow("4", what, bench))
	}
	return append(rows, row{goal: "4", what: what, bench: bench, figure: joinSeries(allocs, "%.1f"),
		target: "no growth", holds: flat(allocs, 1.05)})
}

func scalingRows(r run) []row {
	var rows []row
	for _, refused := range []string{"0", "1%", "10%"} {
		bench := "ApplyScaling/refused=" + refused
		what := "Apply: time per op, 10 / 100 / 1,000 / 10,000 ops"
		if refused != "0" {
			what += ", " + refused + " refused"
		}
		ns, ok := series(r, refused, "ns/znode")
		if !ok {
			rows = append(rows, missingRow("5", what, bench))
			continue
		}
		us := make([]float64, len(ns))
		for i, v := range ns {
			us[i] = v / 1e3
		}
		target, holds := fmt.Sprintf("each step ≤ %.2f×", maxScalingStep), flat(ns, maxScalingStep)
		if refused != "0" {
			last := len(ns) - 1
			target = fmt.Sprintf("≤ %.0f× the lowest before, last step ≤ %.2f×", maxRefusedSpread, maxScalingStep)
			holds = bounded(ns, maxRefusedSpread) && flat(ns[last-1:], maxScalingStep)
		}
		rows = append(rows, row{goal: "5", what: what, bench: bench, figure: joinSeries(us, "%.0f") + " µs",
			target: target, holds: holds})
		if reqs, ok := series(r, refused, "requests"); ok && refused != "0" {
			rows = append(rows, row{goal: "5", what: "Apply: requests per batch, " + refused + " refused", bench: bench,
				figure: joinSeries(reqs, "%.0f")})
		}
	}
	return rows
}

// metrics looks up several metrics of one benchmark, in order, and
// reports whether all are there.
func metrics(r run, bench string, units ...string) ([]float64, bool) {
	out := make([]float64, len(units))
	for i, unit := range units {
		v, ok := metric(r, bench, unit)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// createTopicRows judges goal 6 on both servers: one whose JVM runs both
// its compilers, as production servers do, and the tests' quick-starting
// one, which runs only the first.
func createTopicRows(r run) []row {
	rows := createTopicServerRows(r, "full", "both JIT compilers")
	rows = append(rows, createTopicServerRows(r, "first-tier", "the first JIT tier only")...)
	const bench = "CreateTopic/jit=full/partitions=1000"
	m, ok := metrics(r, bench, "ours-write-requests", "bound-requests", "ours-requests", "kafka-requests")
	if !ok {
		return append(rows, missingRow("6", "CreateTopic's requests", bench))
	}
	writes, bound, reqs, kafkaReqs := m[0], m[1], m[2], m[3]
	return append(rows,
		row{goal: "6", what: "CreateTopic write requests (ceil(topic bytes / max request bytes))", bench: bench,
			figure: fmt.Sprintf("%.0f (bound %.0f)", writes, bound), target: "= bound", holds: writes == bound},
		row{goal: "6", what: "requests on the wire: CreateTopic (its reads) / Kafka-shaped", bench: bench,
			figure: fmt.Sprintf("%.0f (%.0f) / %.0f", reqs, reqs-writes, kafkaReqs)})
}

// createTopicServerRows are goal 6's ratios on the server jit names.
func createTopicServerRows(r run, jit, server string) []row {
	bench := "CreateTopic/jit=" + jit + "/partitions=1000"
	what := "CreateTopic / one bare multi of the same creates, median of the ratios in each iteration (medians), server with " + server
	m, ok := metrics(r, bench, "ours/multi-paired-p50-ratio", "ours-p50-us", "multi-p50-us", "kafka/ours-p50-ratio", "kafka-p50-us", "kafka/multi-p50-ratio")
	if !ok {
		return []row{missingRow("6", what, bench)}
	}
	overMulti, oursUs, multiUs, kafkaOverOurs, kafkaUs, kafkaOverMulti := m[0], m[1], m[2], m[3], m[4], m[5]
	return []row{
		{goal: "6", what: what, bench: bench,
			figure: fmt.Sprintf("%.3f (%.1f / %.1f ms)", overMulti, oursUs/1e3, multiUs/1e3),
			target: fmt.Sprintf("≤ %.1f", maxCreateOverMulti), holds: overMulti <= maxCreateOverMulti},
		{goal: "6", what: "Kafka-shaped createTopic (2,003 multis, 10 in flight) / CreateTopic, median (Kafka-shaped / the bare multi)", bench: bench,
			figure: fmt.Sprintf("%.1f× (%.1f / %.1f ms; %.1f×)", kafkaOverOurs, kafkaUs/1e3, oursUs/1e3, kafkaOverMulti)},
	}
}

func deltaRows(r run) []row {
	const bench = "DeltaScaling/update-partitions"
	what := "delta through one Batch: time per partition, 100 / 1,000 / 10,000 partitions"
	var us, reqs, writes []float64
	for _, n := range [...]int{100, 1000, 10000} { // BenchmarkDeltaScaling's sizes
		m, ok := metrics(r, bench, fmt.Sprintf("delta=%d-ns/partition", n), fmt.Sprintf("delta=%d-requests/delta", n), fmt.Sprintf("delta=%d-writes/delta", n))
		if !ok {
			return []row{missingRow("7", what, bench)}
		}
		us, reqs, writes = append(us, m[0]/1e3), append(reqs, m[1]), append(writes, m[2])
	}
	perDelta := make([]string, len(reqs))
	for i := range reqs {
		perDelta[i] = fmt.Sprintf("%.0f (%.0f)", reqs[i], writes[i])
	}
	return []row{
		{goal: "7", what: what, bench: bench, figure: joinSeries(us, "%.0f") + " µs",
			target: fmt.Sprintf("each step ≤ %.2f×", maxScalingStep), holds: flat(us, maxScalingStep)},
		{goal: "7", what: "requests per delta (writes), 100 / 1,000 / 10,000 partitions", bench: bench,
			figure: strings.Join(perDelta, " / ")},
	}
}

// series returns a metric of BenchmarkApplyScaling for each batch size,
// all taken in the same iterations of the sub-benchmark of refused.
func series(r run, refused, unit string) ([]float64, bool) {
	var out []float64
	for _, n := range [...]int{10, 100, 1000, 10000} { // BenchmarkApplyScaling's sizes
		v, ok := metric(r, "ApplyScaling/refused="+refused, fmt.Sprintf("ops=%d-%s", n, unit))
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// flat reports whether no value exceeds the one before it by more than the
// factor step.
func flat(values []float64, step float64) bool {
	for i := 1; i < len(values); i++ {
		if values[i] > values[i-1]*step || math.IsNaN(values[i]) {
			return false
		}
	}
	return true
}

// bounded reports whether no value exceeds the lowest value before it by
// more than the factor spread.
func bounded(values []float64, spread float64) bool {
	lowest := math.Inf(1)
	for _, v := range values {
		if math.IsNaN(v) || v > lowest*spread {
			return false
		}
		lowest = math.Min(lowest, v)
	}
	return true
}

func joinSeries(values []float64, format string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprintf(format, v)
	}
	return strings.Join(parts, " / ")
}
