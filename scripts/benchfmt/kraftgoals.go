package main

import "fmt"

// The benchmarks of goals 12 and 13: reading KRaft's metadata.
const (
	kraftReplayBench = "KRaftReplay/partitions=100000"
	kraftMemoryBench = "KRaftImageMemory/partitions=100000"
	// The replay of the large snapshot into an Image over franz-go's pass
	// over the same bytes, which only frames records.
	maxKRaftReplayRatio = 1.0
	// The heap the replayed Image holds over the heap Read's holds.
	maxKRaftRetainedRatio = 1.05
	// The heap a replay needs, the file's bytes included, over the file's
	// size plus twice the retained Image.
	maxKRaftPeakRatio = 1.0
)

func kraftReplayRows(r run) []row {
	const what = "replay of the large snapshot (100,000 partitions) into an Image / franz-go's ProcessFetchPartition over the same bytes, median, GOMAXPROCS=1"
	m, ok := metrics(r, kraftReplayBench, "replay/franz-p50-ratio", "replay-p50-us", "franz-p50-us",
		"replay-MB/s", "franz-MB/s", "replay-allocs/partition", "franz-allocs/partition",
		"replay-cpu/franz-cpu-p50-ratio", "replay-cpu-p50-us", "franz-cpu-p50-us")
	if !ok {
		return []row{missingRow("12", what, kraftReplayBench)}
	}
	return []row{
		{goal: "12", what: what, bench: kraftReplayBench,
			figure: fmt.Sprintf("%.2f (%.1f / %.1f ms)", m[0], m[1]/1e3, m[2]/1e3),
			target: fmt.Sprintf("≤ %.1f", maxKRaftReplayRatio), holds: m[0] <= maxKRaftReplayRatio},
		{goal: "12", what: "the same: the process's CPU, median; MB/s, replay / franz-go; allocations per partition, replay / franz-go", bench: kraftReplayBench,
			figure: fmt.Sprintf("%.2f (%.1f / %.1f ms); %.0f / %.0f MB/s; %.3f / %.4f", m[7], m[8]/1e3, m[9]/1e3, m[3], m[4], m[5], m[6])},
	}
}

func kraftMemoryRows(r run) []row {
	const what = "replayed Image / Read's Image of the same content: heap held per partition"
	m, ok := metrics(r, kraftMemoryBench, "replay/read-retained-ratio", "replay-B/partition", "read-B/partition",
		"peak/(file+2×image)-ratio", "replay-peak-MB", "file-bytes-kept")
	if !ok {
		return []row{missingRow("13", what, kraftMemoryBench)}
	}
	return []row{
		{goal: "13", what: what, bench: kraftMemoryBench,
			figure: fmt.Sprintf("%.3f (%.0f / %.0f B)", m[0], m[1], m[2]),
			target: fmt.Sprintf("≤ %.2f", maxKRaftRetainedRatio), holds: m[0] <= maxKRaftRetainedRatio},
		{goal: "13", what: "heap a replay needs (the file's bytes and all it allocates) / (the file's size + 2 × the retained Image)", bench: kraftMemoryBench,
			figure: fmt.Sprintf("%.2f (%.1f MB)", m[3], m[4]),
			target: fmt.Sprintf("≤ %.1f", maxKRaftPeakRatio), holds: m[3] <= maxKRaftPeakRatio},
		{goal: "13", what: "the replayed Image keeps the file's bytes alive", bench: kraftMemoryBench,
			figure: map[bool]string{true: "yes", false: "no"}[m[5] != 0], target: "no", holds: m[5] == 0},
	}
}
