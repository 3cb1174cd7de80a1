package main

import "fmt"

// The benchmarks of goal 12, migrationzk monitor.
const (
	scrapeBench    = "MonitorScrape/control-znodes"
	scanBench      = "MonitorScan/partitions=100000/procs=1"
	scanAllProcs   = "MonitorScan/partitions=100000"
	scanRatedBench = "MonitorScan/partitions=100000/rate=20000"
)

// Targets of goal 12.
const (
	// One scrape without the scan over the same reads of the three
	// control znodes made with the bare client.
	maxScrapeRatio = 1.2
	// One read per control znode: /migration, /controller,
	// /controller_epoch.
	maxScrapeRequests = 3
	// The hazard scan of 100,000 partition states, unbounded, over the
	// same reads made with the bare client, 64 in flight.
	maxScanRatio = 1.1
)

func monitorRows(r run) []row {
	var rows []row
	const scrape = "one scrape of monitor without the scan / the same reads of the 3 control znodes made bare, median"
	if m, ok := metrics(r, scrapeBench, "scrape/bare-p50-ratio", "scrape-p50-us", "bare-p50-us", "requests/scrape"); ok {
		rows = append(rows,
			row{goal: "14", what: scrape, bench: scrapeBench, figure: fmt.Sprintf("%.3f (%.0f / %.0f µs)", m[0], m[1], m[2]),
				target: fmt.Sprintf("≤ %.2f", maxScrapeRatio), holds: m[0] <= maxScrapeRatio},
			row{goal: "14", what: "one scrape: requests on the wire (at most one read per control znode)", bench: scrapeBench,
				figure: fmt.Sprintf("%.0f", m[3]), target: fmt.Sprintf("≤ %d", maxScrapeRequests), holds: m[3] <= maxScrapeRequests})
	} else {
		rows = append(rows, missingRow("14", scrape, scrapeBench))
	}
	const scan = "hazard scan of 100,000 partition states, unbounded / the same reads made bare (64 in flight), the client on one processor, median of the ratios in each iteration (medians)"
	if m, ok := metrics(r, scanBench, "scan/raw-paired-p50-ratio", "scan-p50-us", "raw-p50-us"); ok {
		rows = append(rows, row{goal: "14", what: scan, bench: scanBench, figure: fmt.Sprintf("%.3f (%.1f / %.1f s)", m[0], m[1]/1e6, m[2]/1e6),
			target: fmt.Sprintf("≤ %.2f", maxScanRatio), holds: m[0] <= maxScanRatio})
	} else {
		rows = append(rows, missingRow("14", scan, scanBench))
	}
	const all = "the same, the client on every processor, median of the ratios in each iteration; the process's CPU per scan"
	if m, ok := metrics(r, scanAllProcs, "scan/raw-paired-p50-ratio", "scan-p50-us", "raw-p50-us", "scan-cpu-p50-us", "raw-cpu-p50-us"); ok {
		rows = append(rows, row{goal: "14", what: all, bench: scanAllProcs,
			figure: fmt.Sprintf("%.3f (%.1f / %.1f s); %.1f / %.1f s", m[0], m[1]/1e6, m[2]/1e6, m[3]/1e6, m[4]/1e6)})
	} else {
		rows = append(rows, row{goal: "14", what: all, bench: scanAllProcs, figure: "missing"})
	}
	const rated = "hazard scan with --scan-rate R: the highest measured rate (requests on the wire / duration)"
	if m, ok := metrics(r, scanRatedBench, "max-requests/s", "bound-requests/s"); ok {
		rows = append(rows, row{goal: "14", what: rated, bench: scanRatedBench, figure: fmt.Sprintf("%.0f /s (R = %.0f)", m[0], m[1]),
			target: "≤ R", holds: m[0] <= m[1]})
	} else {
		rows = append(rows, missingRow("14", rated, scanRatedBench))
	}
	return rows
}
