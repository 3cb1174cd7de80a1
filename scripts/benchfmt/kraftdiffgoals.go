package main

import "fmt"

// The benchmark of goal 15: migrationzk kraft diff of the large snapshot
// against a ZooKeeper that holds its image.
const kraftDiffBench = "KRaftDiff/partitions=100000"

// Targets of goal 15.
const (
	// Requests beyond Read's: the sync and the read of /migration.
	kraftDiffExtraRequests = 2
	// kraft diff's own work, the replay and the diff, over Read's time.
	maxKRaftDiffOwnRatio = 0.05
)

func kraftDiffRows(r run) []row {
	const requests = "kraft diff of the large snapshot against a ZooKeeper holding it: requests on the wire beyond Read's (the sync and read of /migration)"
	const own = "kraft diff's own work (the replay, while Read reads, and the diff) / Read's time, median"
	m, ok := metrics(r, kraftDiffBench, "extra-requests", "other-extra-requests", "read-requests",
		"own/read-p50-ratio", "own-p50-us", "read-p50-us", "replay-p50-us", "diff-p50-us", "kraftdiff/read-p50-ratio")
	if !ok {
		return []row{missingRow("15", requests, kraftDiffBench), missingRow("15", own, kraftDiffBench)}
	}
	return []row{
		{goal: "15", what: requests, bench: kraftDiffBench,
			figure: fmt.Sprintf("%.0f, %.0f others (Read: %.0f)", m[0], m[1], m[2]),
			target: fmt.Sprintf("= %d, no other", kraftDiffExtraRequests), holds: m[0] == kraftDiffExtraRequests && m[1] == 0},
		{goal: "15", what: own, bench: kraftDiffBench,
			figure: fmt.Sprintf("%.4f (%.0f ms: replay %.0f, diff %.0f / %.1f s)", m[3], m[4]/1e3, m[6]/1e3, m[7]/1e3, m[5]/1e6),
			target: fmt.Sprintf("≤ %.2f", maxKRaftDiffOwnRatio), holds: m[3] <= maxKRaftDiffOwnRatio},
		{goal: "15", what: "kraft diff / Read, wall time, median", bench: kraftDiffBench, figure: fmt.Sprintf("%.3f", m[8])},
	}
}
