package main

import "fmt"

// The benchmarks of goals 8 to 10 and their sizes.
const (
	readBench        = "Read/partitions=100000/procs=1"
	readAllProcs     = "Read/partitions=100000"
	syncBench        = "Sync/partitions=100000/changed=1000"
	imageMemoryBench = "ImageMemory/read"
)

func readRows(r run) []row {
	const what = "Read of 100,000 partition states / the bare client sending the same requests (syncs and reads, in Read's waves), the client on one processor, median of the ratios in each iteration (medians)"
	m, ok := metrics(r, readBench, "read/raw-paged-paired-p50-ratio", "read-p50-us", "raw-paged-p50-us",
		"read/raw-p50-ratio", "raw-p50-us", "raw-paged/raw-p50-ratio", "read-cpu-p50-us", "raw-paged-cpu-p50-us")
	if !ok {
		return []row{missingRow("8", what, readBench)}
	}
	rows := []row{
		{goal: "8", what: what, bench: readBench,
			figure: fmt.Sprintf("%.3f (%.1f / %.1f s)", m[0], m[1]/1e6, m[2]/1e6),
			target: fmt.Sprintf("≤ %.2f", maxReadRatio), holds: m[0] <= maxReadRatio},
		{goal: "8", what: "Read / the same reads all at once, 64 in flight, median (the waves / all at once); the process's CPU per read, Read / the same requests", bench: readBench,
			figure: fmt.Sprintf("%.3f (%.1f s; %.3f); %.1f / %.1f s", m[3], m[4]/1e6, m[5], m[6]/1e6, m[7]/1e6)},
	}
	const all = "the same, the client on every processor: Read / the bare client sending the same requests, median of the ratios in each iteration; the process's CPU per read"
	a, ok := metrics(r, readAllProcs, "read/raw-paged-paired-p50-ratio", "read-p50-us", "raw-paged-p50-us", "read-cpu-p50-us", "raw-paged-cpu-p50-us")
	if !ok {
		return append(rows, row{goal: "8", what: all, bench: readAllProcs, figure: "missing"})
	}
	return append(rows, row{goal: "8", what: all, bench: readAllProcs,
		figure: fmt.Sprintf("%.3f (%.1f / %.1f s); %.1f / %.1f s", a[0], a[1]/1e6, a[2]/1e6, a[3]/1e6, a[4]/1e6)})
}

func syncRows(r run) []row {
	const what = "Sync of a 1% change / Read + a Batch of the change alone, Sync's own read counted as the Read beside it: (Read + Sync's time beyond its read) / (Read + Batch), median of the ratios in each iteration"
	m, ok := metrics(r, syncBench, "read+sync-rest/read+apply-paired-p50-ratio", "read-p50-us", "apply-p50-us", "sync-rest-p50-us",
		"sync-extra-requests", "sync-requests", "sync-write-ops", "changed-partitions",
		"sync/read+apply-paired-p50-ratio", "sync-cpu/read+apply-cpu-paired-p50-ratio", "sync-read/read-paired-p50-ratio")
	if !ok {
		return []row{missingRow("9", what, syncBench)}
	}
	ratio, readUs, applyUs, restUs := m[0], m[1], m[2], m[3]
	extra, requests, writes, changed := m[4], m[5], m[6], m[7]
	return []row{
		{goal: "9", what: what, bench: syncBench,
			figure: fmt.Sprintf("%.3f (diff and Batch %.3f s, Batch alone %.3f s; Read %.1f s)", ratio, restUs/1e6, applyUs/1e6, readUs/1e6),
			target: fmt.Sprintf("≤ %.2f", maxSyncRatio), holds: ratio <= maxSyncRatio},
		{goal: "9", what: "Sync: requests on the wire beyond the Read's and the Batch's in the same iteration, the most (Sync's requests)", bench: syncBench,
			figure: fmt.Sprintf("%.0f (%.0f)", extra, requests), target: "= 0", holds: extra == 0},
		{goal: "9", what: "Sync: write ops on the wire (changed partition states, checkpoint)", bench: syncBench,
			figure: fmt.Sprintf("%.0f (%.0f + 1)", writes, changed), target: "= changed + 1", holds: writes == changed+1},
		{goal: "9", what: "Sync / Read + Batch, each whole, median of the ratios in each iteration: wall time; the process's CPU; Sync's own read / the Read beside it", bench: syncBench,
			figure: fmt.Sprintf("%.3f; %.3f; %.3f", m[8], m[9], m[10])},
	}
}

func imageMemoryRows(r run) []row {
	const what = "Image after Read: heap per partition, 10,000 / 100,000 partitions (ratio)"
	m, ok := metrics(r, imageMemoryBench, "partitions=10000-B/partition", "partitions=100000-B/partition", "100000/10000-B/partition-ratio")
	if !ok {
		return []row{missingRow("10", what, imageMemoryBench)}
	}
	return []row{{goal: "10", what: what, bench: imageMemoryBench,
		figure: fmt.Sprintf("%.0f / %.0f B (%.3f)", m[0], m[1], m[2]),
		target: fmt.Sprintf("ratio ≤ %.2f", maxImageGrowth), holds: m[2] <= maxImageGrowth}}
}
