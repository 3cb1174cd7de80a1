package main

import (
	"bytes"
	"strings"
	"testing"
)

// sample is bench output in which every goal holds.
const sample = `# load before: load average: 0.20, 0.31, 0.40
goos: linux
cpu: AMD EPYC
BenchmarkCheckpoint/unfenced/ctx=background-2 	    3000	    968148 ns/op	         1.000 requests/update	       446.4 set-p50-us	       453.7 update-p50-us	         1.016 update/set-p50-ratio	    3104 B/op	      44 allocs/op
BenchmarkCheckpoint/unfenced/ctx=cancel-2     	    3000	    847570 ns/op	         1.612 handoff-p50-us	         1.000 requests/update	       406.3 set-p50-us	       417.9 update-p50-us	         1.028 update/set-p50-ratio	    3259 B/op	      47 allocs/op
BenchmarkCheckpoint/fenced/ctx=background-2   	    3000	    964305 ns/op	       462.8 multi-p50-us	         1.000 requests/update	       467.4 update-p50-us	         1.010 update/multi-p50-ratio	    4768 B/op	      85 allocs/op
BenchmarkCheckpoint/fenced/ctx=cancel-2       	    3000	    993926 ns/op	         2.104 handoff-p50-us	       471.3 multi-p50-us	         1.000 requests/update	       486.1 update-p50-us	         1.031 update/multi-p50-ratio	    4825 B/op	      88 allocs/op
BenchmarkCheckpointMemory/unfenced/update-2   	    3000	    800848 ns/op	         0 alloc-growth/op	    1672 B/op	      23 allocs/op
BenchmarkCheckpointMemory/unfenced/raw-set-2  	    3000	    532637 ns/op	    1312 B/op	      20 allocs/op
BenchmarkCheckpointMemory/fenced/update-2     	    3000	    484252 ns/op	         0.008000 alloc-growth/op	    2336 B/op	      43 allocs/op
BenchmarkCheckpointMemory/fenced/raw-multi-2  	    3000	    492809 ns/op	    2048 B/op	      40 allocs/op
BenchmarkDualWrite/partitions=1000-2         	      20	 810752662 ns/op	     24755 apply-p50-us	         1.000 apply-requests	         1.031 apply/multi-paired-p50-ratio	     24012 multi-p50-us	         1.000 bound-requests	    154641 kafka-pipe-p50-us	         6.247 kafka-pipe/apply-p50-ratio	    554162 kafka-seq-p50-us	        22.39 kafka-seq/apply-p50-ratio	 8111398 B/op	  133427 allocs/op
BenchmarkRecovery/standalone-2         	      20	1034258279 ns/op	      1012 default-p50-ms	      1030 default-p90-ms	         5.898 zkconn-p50-ms	        13.13 zkconn-p90-ms
BenchmarkRecovery/ensemble-2           	      20	  32089921 ns/op	        11.83 default-p50-ms	        18.48 default-p90-ms	         9.985 zkconn-p50-ms	        14.72 zkconn-p90-ms
BenchmarkApplyScaling/refused=0-2        	       5	 412345678 ns/op	        18.57 ops=10-allocs/znode	    443783 ops=10-ns/znode	     1.000 ops=10-requests	        12.75 ops=100-allocs/znode	     98705 ops=100-ns/znode	     1.000 ops=100-requests	        12.09 ops=1000-allocs/znode	     37387 ops=1000-ns/znode	     1.000 ops=1000-requests	        12.02 ops=10000-allocs/znode	     25245 ops=10000-ns/znode	     2.000 ops=10000-requests
BenchmarkApplyScaling/refused=1%-2       	       5	 854321987 ns/op	        17.54 ops=10-allocs/znode	    152166 ops=10-ns/znode	     1.000 ops=10-requests	        22.65 ops=100-allocs/znode	     88437 ops=100-ns/znode	     2.000 ops=100-requests	        51.43 ops=1000-allocs/znode	     69669 ops=1000-ns/znode	     20.00 ops=1000-requests	         55.7 ops=10000-allocs/znode	     59671 ops=10000-ns/znode	     200.0 ops=10000-requests
BenchmarkApplyScaling/refused=10%-2      	       5	2012345678 ns/op	        31.44 ops=10-allocs/znode	    162091 ops=10-ns/znode	     2.000 ops=10-requests	         57.7 ops=100-allocs/znode	    130314 ops=100-ns/znode	     20.00 ops=100-requests	        61.95 ops=1000-allocs/znode	    149071 ops=1000-ns/znode	     200.0 ops=1000-requests	        62.32 ops=10000-allocs/znode	    158958 ops=10000-ns/znode	      2000 ops=10000-requests
BenchmarkCreateTopic/jit=full/partitions=1000-2         	      20	 806668645 ns/op	         1.000 bound-requests	    484002 kafka-p50-us	      2004 kafka-requests	        10.52 kafka/multi-p50-ratio	        12.13 kafka/ours-p50-ratio	     46012 multi-p50-us	     47780 ours-p50-us	         1.000 ours-requests	         1.000 ours-write-requests	         1.038 ours/multi-p50-ratio	         1.041 ours/multi-paired-p50-ratio
BenchmarkCreateTopic/jit=first-tier/partitions=1000-2   	      20	 906668645 ns/op	         1.000 bound-requests	    429862 kafka-p50-us	      2004 kafka-requests	        10.33 kafka/multi-p50-ratio	         8.712 kafka/ours-p50-ratio	     41617 multi-p50-us	     49344 ours-p50-us	         1.000 ours-requests	         1.000 ours-write-requests	         1.086 ours/multi-p50-ratio	         1.072 ours/multi-paired-p50-ratio
BenchmarkDeltaScaling/update-partitions-2         	       5	5941517596 ns/op	    233534 delta=100-ns/partition	       102.0 delta=100-requests/delta	         1.000 delta=100-writes/delta	    209460 delta=1000-ns/partition	      1002 delta=1000-requests/delta	         1.000 delta=1000-writes/delta	    207650 delta=10000-ns/partition	     10003 delta=10000-requests/delta	         2.000 delta=10000-writes/delta
BenchmarkRead/partitions=100000/procs=1-2      	       3	79390990846 ns/op	   6213842 raw-cpu-p50-us	  22978936 raw-p50-us	   5689832 raw-paged-cpu-p50-us	  23205432 raw-paged-p50-us	         1.010 raw-paged/raw-p50-ratio	   7237505 read-cpu-p50-us	  23844578 read-p50-us	         1.038 read/raw-p50-ratio	         1.044 read/raw-paged-paired-p50-ratio	         1.027 read/raw-paged-p50-ratio	809754274 B/op	11571745 allocs/op
BenchmarkRead/partitions=100000-2         	       3	79390990846 ns/op	   6213842 raw-cpu-p50-us	  22978936 raw-p50-us	   5689832 raw-paged-cpu-p50-us	  23205432 raw-paged-p50-us	         1.010 raw-paged/raw-p50-ratio	   7237505 read-cpu-p50-us	  23844578 read-p50-us	         1.038 read/raw-p50-ratio	         1.120 read/raw-paged-paired-p50-ratio	         1.027 read/raw-paged-p50-ratio	809754274 B/op	11571745 allocs/op
BenchmarkSync/partitions=100000/changed=1000-2         	       3	47964490273 ns/op	    343064 apply-p50-us	      1000 changed-partitions	  11502000 read+apply-cpu-p50-us	  23251480 read+apply-p50-us	  23310000 read+sync-rest-p50-us	         1.003 read+sync-rest/read+apply-paired-p50-ratio	  22908417 read-p50-us	  11470000 sync-cpu-p50-us	         0.9970 sync-cpu/read+apply-cpu-paired-p50-ratio	         0 sync-extra-requests	  23672598 sync-p50-us	  23201480 sync-read-p50-us	         1.012 sync-read/read-paired-p50-ratio	    103028 sync-requests	    401372 sync-rest-p50-us	      1001 sync-write-ops	         1.021 sync/read+apply-paired-p50-ratio	978851944 B/op	15694324 allocs/op
BenchmarkImageMemory/read-2         	       3	28676750873 ns/op	         1.003 100000/10000-B/partition-ratio	       219.6 partitions=10000-B/partition	       220.3 partitions=100000-B/partition	488095205 B/op	 8115663 allocs/op
BenchmarkRememberedDelta/partitions=1000-2         	     200	 210408125 ns/op	    101407 kafka-p50-us	      1000 kafka-requests	         9.920 kafka/ours-p50-ratio	      8449 multi-p50-us	     10223 ours-p50-us	         1.000 ours-requests	         0.1008 ours/kafka-p50-ratio	         1.210 ours/multi-p50-ratio
BenchmarkRememberedDelta/deletes-2                 	     200	         8.850 ns/op	         0 delete-partitions-reads	         0 delete-topic-reads
BenchmarkRememberedDelta/cold-2                    	     200	        20.34 ns/op	         1.000 cold-read-waves	       893.0 cold-requests	         1.000 cold-syncs
BenchmarkRememberedDelta/partitions=1-2            	     200	    424211 ns/op	       126.7 kafka-p50-us	         1.000 kafka-requests	         0.8957 kafka/ours-p50-ratio	       117.2 multi-p50-us	       141.4 ours-p50-us	         1.000 ours-requests	         1.116 ours/kafka-p50-ratio	         1.190 ours/multi-p50-ratio
BenchmarkRememberedDelta/partitions=1/latency=1ms-2         	     200	   9554811 ns/op	      2679 kafka-p50-us	         1.000 kafka-requests	         0.9856 kafka/ours-p50-ratio	      2651 multi-p50-us	      2718 ours-p50-us	         1.000 ours-requests	         1.015 ours/kafka-p50-ratio	         1.025 ours/multi-p50-ratio
BenchmarkRememberedMemory/read-2                        	       3	7456248641 ns/op	        68.29 partitions=10000-B/partition	        69.86 partitions=100000-B/partition
BenchmarkKRaftReplay/partitions=100000-2         	      10	  60000000 ns/op	       600.0 franz-MB/s	         0.0005 franz-allocs/partition	     20800 franz-p50-us	       630.0 replay-MB/s	         0.1500 replay-allocs/partition	     19800 replay-p50-us	         0.9519 replay/franz-p50-ratio	     18000 replay-cpu-p50-us	     19000 franz-cpu-p50-us	         0.9474 replay-cpu/franz-cpu-p50-ratio	55880440 B/op	   15217 allocs/op
BenchmarkKRaftImageMemory/partitions=100000-2         	       3	14792921541 ns/op	         0 file-bytes-kept	         0.6635 peak/(file+2×image)-ratio	       223.3 read-B/partition	       215.4 replay-B/partition	        36.85 replay-peak-MB	         0.9643 replay/read-retained-ratio	485815946 B/op	 4949205 allocs/op
BenchmarkMonitorScrape/control-znodes-2         	    3000	    867170 ns/op	       191.3 bare-p50-us	         3.000 requests/scrape	       218.1 scrape-p50-us	         1.140 scrape/bare-p50-ratio
BenchmarkMonitorScan/partitions=100000/procs=1-2  	       3	18000000000 ns/op	   8512345 raw-p50-us	   8934567 scan-p50-us	         1.050 scan/raw-p50-ratio	         1.046 scan/raw-paired-p50-ratio
BenchmarkMonitorScan/partitions=100000-2         	       3	18000000000 ns/op	   1712345 raw-cpu-p50-us	   8512345 raw-p50-us	   2034567 scan-cpu-p50-us	   8934567 scan-p50-us	         1.050 scan/raw-p50-ratio	         1.130 scan/raw-paired-p50-ratio
BenchmarkMonitorScan/partitions=100000/rate=20000-2         	       3	6000000000 ns/op	     20000 bound-requests/s	     19876 max-requests/s
BenchmarkKRaftDiff/partitions=100000-2         	       3	26838293612 ns/op	     43216 diff-p50-us	         2.000 extra-requests	  12592146 kraftdiff-p50-us	         0.8839 kraftdiff/read-p50-ratio	         0 other-extra-requests	    103926 own-p50-us	         0.007295 own/read-p50-ratio	  14246111 read-p50-us	    103033 read-requests	     60709 replay-p50-us	974840536 B/op	10299155 allocs/op
PASS
ok  	github.com/kraftmigration/zkwriter/bench	25.834s
`

func table(t *testing.T, in string) (string, bool) {
	t.Helper()
	r, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ok := write(&out, r, evaluate(r))
	return out.String(), ok
}

func TestAllGoalsHold(t *testing.T) {
	out, ok := table(t, sample)
	if !ok || !strings.Contains(out, "All goals hold.") || strings.Contains(out, "| NO |") || strings.Contains(out, "MISSING") {
		t.Fatalf("ok %v:\n%s", ok, out)
	}
	contains(t, out,
		"cpu: AMD EPYC", "load before: load average: 0.20",
		"| 1 | fenced Update / conn.Multi, median latency (ctx background) | Checkpoint/fenced/ctx=background | 1.010 (467 / 463 µs) | ≤ 1.05 | yes |",
		"| 1 | fenced Update: hand-off to the goroutine that waits (cancellable less background context, median) | Checkpoint/fenced/ctx=cancel | 2.1 µs of a 471 µs round trip | (comparison) | - |",
		"| 2 | Apply / one bare multi of the same ops, median of the ratios in each iteration (medians) | DualWrite/partitions=1000 | 1.031 (24.8 / 24.0 ms) | ≤ 1.1 | yes |",
		"| 2 | Kafka-shaped batch, sequential / Apply, median | DualWrite/partitions=1000 | 22.4× (554.2 / 24.8 ms) | (comparison) | - |",
		"| 3 | recovery after a dropped reply, zkconn.HostProvider / go-zookeeper's default host provider (which waits a second to reconnect), median | Recovery/standalone | 0.006 (5.9 / 1012.0 ms) | ≤ 0.10 | yes |",
		"| 3 | recovery after a dropped reply, zkconn.HostProvider / go-zookeeper's default host provider (which reconnects at once), median | Recovery/ensemble | 0.844 (10.0 / 11.8 ms) | ≤ 1.25 | yes |",
		"| 4 | Apply: allocations per op, 10 / 100 / 1,000 / 10,000 ops | ApplyScaling/refused=0 | 18.6 / 12.8 / 12.1 / 12.0 | no growth | yes |",
		"| 5 | Apply: time per op, 10 / 100 / 1,000 / 10,000 ops, 1% refused | ApplyScaling/refused=1% | 152 / 88 / 70 / 60 µs | ≤ 2× the lowest before, last step ≤ 1.25× | yes |",
		"| 5 | Apply: requests per batch, 10% refused | ApplyScaling/refused=10% | 2 / 20 / 200 / 2000 | (comparison) | - |",
		"| 5 | Apply: time per op, 10 / 100 / 1,000 / 10,000 ops, 10% refused | ApplyScaling/refused=10% | 162 / 130 / 149 / 159 µs | ≤ 2× the lowest before, last step ≤ 1.25× | yes |",
		"| 6 | CreateTopic / one bare multi of the same creates, median of the ratios in each iteration (medians), server with both JIT compilers | CreateTopic/jit=full/partitions=1000 | 1.041 (47.8 / 46.0 ms) | ≤ 1.1 | yes |",
		"| 6 | Kafka-shaped createTopic (2,003 multis, 10 in flight) / CreateTopic, median (Kafka-shaped / the bare multi) | CreateTopic/jit=full/partitions=1000 | 12.1× (484.0 / 47.8 ms; 10.5×) | (comparison) | - |",
		"| 6 | CreateTopic write requests (ceil(topic bytes / max request bytes)) | CreateTopic/jit=full/partitions=1000 | 1 (bound 1) | = bound | yes |",
		"| 6 | requests on the wire: CreateTopic (its reads) / Kafka-shaped | CreateTopic/jit=full/partitions=1000 | 1 (0) / 2004 | (comparison) | - |",
		"| 6 | CreateTopic / one bare multi of the same creates, median of the ratios in each iteration (medians), server with the first JIT tier only | CreateTopic/jit=first-tier/partitions=1000 | 1.072 (49.3 / 41.6 ms) | ≤ 1.1 | yes |",
		"| 6 | Kafka-shaped createTopic (2,003 multis, 10 in flight) / CreateTopic, median (Kafka-shaped / the bare multi) | CreateTopic/jit=first-tier/partitions=1000 | 8.7× (429.9 / 49.3 ms; 10.3×) | (comparison) | - |",
		"| 7 | delta through one Batch: time per partition, 100 / 1,000 / 10,000 partitions | DeltaScaling/update-partitions | 234 / 209 / 208 µs | each step ≤ 1.25× | yes |",
		"| 7 | requests per delta (writes), 100 / 1,000 / 10,000 partitions | DeltaScaling/update-partitions | 102 (1) / 1002 (1) / 10003 (2) | (comparison) | - |",
		"| 8 | Read of 100,000 partition states / the bare client sending the same requests (syncs and reads, in Read's waves), the client on one processor, median of the ratios in each iteration (medians) | Read/partitions=100000/procs=1 | 1.044 (23.8 / 23.2 s) | ≤ 1.20 | yes |",
		"| 8 | the same, the client on every processor: Read / the bare client sending the same requests, median of the ratios in each iteration; the process's CPU per read | Read/partitions=100000 | 1.120 (23.8 / 23.2 s); 7.2 / 5.7 s | (comparison) | - |",
		"| 8 | Read / the same reads all at once, 64 in flight, median (the waves / all at once); the process's CPU per read, Read / the same requests | Read/partitions=100000/procs=1 | 1.038 (23.0 s; 1.010); 7.2 / 5.7 s | (comparison) | - |",
		"| 9 | Sync of a 1% change / Read + a Batch of the change alone, Sync's own read counted as the Read beside it: (Read + Sync's time beyond its read) / (Read + Batch), median of the ratios in each iteration | Sync/partitions=100000/changed=1000 | 1.003 (diff and Batch 0.401 s, Batch alone 0.343 s; Read 22.9 s) | ≤ 1.05 | yes |",
		"| 9 | Sync: requests on the wire beyond the Read's and the Batch's in the same iteration, the most (Sync's requests) | Sync/partitions=100000/changed=1000 | 0 (103028) | = 0 | yes |",
		"| 9 | Sync: write ops on the wire (changed partition states, checkpoint) | Sync/partitions=100000/changed=1000 | 1001 (1000 + 1) | = changed + 1 | yes |",
		"| 9 | Sync / Read + Batch, each whole, median of the ratios in each iteration: wall time; the process's CPU; Sync's own read / the Read beside it | Sync/partitions=100000/changed=1000 | 1.021; 0.997; 1.012 | (comparison) | - |",
		"| 10 | Image after Read: heap per partition, 10,000 / 100,000 partitions (ratio) | ImageMemory/read | 220 / 220 B (1.003) | ratio ≤ 1.20 | yes |",
		"| KRaftReplay/partitions=100000 | 0.95 (19.8 / 20.8 ms) | ≤ 1.0 | yes |",
		"| KRaftReplay/partitions=100000 | 0.95 (18.0 / 19.0 ms); 630 / 600 MB/s; 0.150 / 0.0005 | (comparison) | - |",
		"| KRaftImageMemory/partitions=100000 | 0.964 (215 / 223 B) | ≤ 1.05 | yes |",
		"| KRaftImageMemory/partitions=100000 | 0.66 (36.9 MB) | ≤ 1.0 | yes |",
		"| 13 | the replayed Image keeps the file's bytes alive | KRaftImageMemory/partitions=100000 | no | no | yes |",
		"| 14 | one scrape of monitor without the scan / the same reads of the 3 control znodes made bare, median | MonitorScrape/control-znodes | 1.140 (218 / 191 µs) | ≤ 1.20 | yes |",
		"| 14 | one scrape: requests on the wire (at most one read per control znode) | MonitorScrape/control-znodes | 3 | ≤ 3 | yes |",
		"| 14 | hazard scan of 100,000 partition states, unbounded / the same reads made bare (64 in flight), the client on one processor, median of the ratios in each iteration (medians) | MonitorScan/partitions=100000/procs=1 | 1.046 (8.9 / 8.5 s) | ≤ 1.10 | yes |",
		"| 14 | the same, the client on every processor, median of the ratios in each iteration; the process's CPU per scan | MonitorScan/partitions=100000 | 1.130 (8.9 / 8.5 s); 2.0 / 1.7 s | (comparison) | - |",
		"| 14 | hazard scan with --scan-rate R: the highest measured rate (requests on the wire / duration) | MonitorScan/partitions=100000/rate=20000 | 19876 /s (R = 20000) | ≤ R | yes |",
		"| 15 | kraft diff of the large snapshot against a ZooKeeper holding it: requests on the wire beyond Read's (the sync and read of /migration) | KRaftDiff/partitions=100000 | 2, 0 others (Read: 103033) | = 2, no other | yes |",
		"| 15 | kraft diff's own work (the replay, while Read reads, and the diff) / Read's time, median | KRaftDiff/partitions=100000 | 0.0073 (104 ms: replay 61, diff 43 / 14.2 s) | ≤ 0.05 | yes |",
	)
}

func TestGoalsNotHolding(t *testing.T) {
	in := strings.Replace(sample, "1.016 update/set-p50-ratio", "1.070 update/set-p50-ratio", 1)
	in = strings.Replace(in, "37387 ops=1000-ns/znode", "370387 ops=1000-ns/znode", 1)
	in = strings.Replace(in, "12.02 ops=10000-allocs/znode", "12.82 ops=10000-allocs/znode", 1)
	in = strings.Replace(in, "59671 ops=10000-ns/znode", "89671 ops=10000-ns/znode", 1)
	in = strings.Replace(in, "         5.898 zkconn-p50-ms", "         1005.898 zkconn-p50-ms", 1)
	in = strings.Replace(in, "1.041 ours/multi-paired-p50-ratio", "1.141 ours/multi-paired-p50-ratio", 1)
	in = strings.Replace(in, "1.072 ours/multi-paired-p50-ratio", "1.172 ours/multi-paired-p50-ratio", 1)
	in = strings.Replace(in, "1.000 ours-requests	         1.000 ours-write-requests", "2.000 ours-requests	         1.000 ours-write-requests", 1)
	in = strings.Replace(in, "1.210 ours/multi-p50-ratio", "1.410 ours/multi-p50-ratio", 1)
	in = strings.Replace(in, "1.000 ours-write-requests", "2.000 ours-write-requests", 1)
	in = strings.Replace(in, "207650 delta=10000-ns/partition", "262000 delta=10000-ns/partition", 1)
	in = strings.Replace(in, "1.044 read/raw-paged-paired-p50-ratio", "1.250 read/raw-paged-paired-p50-ratio", 1)
	in = strings.Replace(in, "1.003 read+sync-rest/read+apply-paired-p50-ratio", "1.061 read+sync-rest/read+apply-paired-p50-ratio", 1)
	in = strings.Replace(in, "0 sync-extra-requests", "2 sync-extra-requests", 1)
	in = strings.Replace(in, "1001 sync-write-ops", "1203 sync-write-ops", 1)
	in = strings.Replace(in, "1.003 100000/10000-B/partition-ratio", "1.400 100000/10000-B/partition-ratio", 1)
	in = strings.Replace(in, "0.9519 replay/franz-p50-ratio", "1.3000 replay/franz-p50-ratio", 1)
	in = strings.Replace(in, "0.9643 replay/read-retained-ratio", "1.0800 replay/read-retained-ratio", 1)
	in = strings.Replace(in, "0.6635 peak/(file+2×image)-ratio", "1.2000 peak/(file+2×image)-ratio", 1)
	in = strings.Replace(in, "0 file-bytes-kept", "1 file-bytes-kept", 1)
	in = strings.Replace(in, "1.140 scrape/bare-p50-ratio", "1.250 scrape/bare-p50-ratio", 1)
	in = strings.Replace(in, "19876 max-requests/s", "20100 max-requests/s", 1)
	in = strings.Replace(in, "0 other-extra-requests", "1 other-extra-requests", 1)
	in = strings.Replace(in, "0.007295 own/read-p50-ratio", "0.061000 own/read-p50-ratio", 1)
	var kept []string
	for _, line := range strings.Split(in, "\n") {
		if !strings.HasPrefix(line, "BenchmarkDualWrite") {
			kept = append(kept, line)
		}
	}
	in = strings.Join(kept, "\n") + "--- FAIL: BenchmarkX\n"
	out, ok := table(t, in)
	if ok {
		t.Fatalf("goals hold:\n%s", out)
	}
	contains(t, out,
		"1.070 (454 / 446 µs) | ≤ 1.05 | NO |",
		"| 4 | Apply: allocations per op, 10 / 100 / 1,000 / 10,000 ops | ApplyScaling/refused=0 | 18.6 / 12.8 / 12.1 / 12.8 | no growth | NO |",
		"| 5 | Apply: time per op, 10 / 100 / 1,000 / 10,000 ops | ApplyScaling/refused=0 | 444 / 99 / 370 / 25 µs | each step ≤ 1.25× | NO |",
		"ApplyScaling/refused=1% | 152 / 88 / 70 / 90 µs | ≤ 2× the lowest before, last step ≤ 1.25× | NO |",
		"Recovery/standalone | 0.994 (1005.9 / 1012.0 ms) | ≤ 0.10 | NO |",
		"DualWrite/partitions=1000 | missing | - | MISSING |",
		"benchmark failure: --- FAIL: BenchmarkX",
		"CreateTopic/jit=full/partitions=1000 | 1.141 (47.8 / 46.0 ms) | ≤ 1.1 | NO |",
		"CreateTopic/jit=first-tier/partitions=1000 | 1.172 (49.3 / 41.6 ms) | ≤ 1.1 | NO |",
		"CreateTopic/jit=full/partitions=1000 | 2 (bound 1) | = bound | NO |",
		"DeltaScaling/update-partitions | 234 / 209 / 262 µs | each step ≤ 1.25× | NO |",
		"Read/partitions=100000/procs=1 | 1.250 (23.8 / 23.2 s) | ≤ 1.20 | NO |",
		"Sync/partitions=100000/changed=1000 | 1.061 (diff and Batch 0.401 s, Batch alone 0.343 s; Read 22.9 s) | ≤ 1.05 | NO |",
		"Sync/partitions=100000/changed=1000 | 2 (103028) | = 0 | NO |",
		"Sync/partitions=100000/changed=1000 | 1203 (1000 + 1) | = changed + 1 | NO |",
		"ImageMemory/read | 220 / 220 B (1.400) | ratio ≤ 1.20 | NO |",
		"RememberedDelta/partitions=1000 | 1; 1.41 (10.2 / 8.4 ms) | 1; ≤ 1.3 | NO |",
		"CreateTopic/jit=full/partitions=1000 | 2 | 1 | NO |",
		"KRaftReplay/partitions=100000 | 1.30 (19.8 / 20.8 ms) | ≤ 1.0 | NO |",
		"KRaftImageMemory/partitions=100000 | 1.080 (215 / 223 B) | ≤ 1.05 | NO |",
		"KRaftImageMemory/partitions=100000 | 1.20 (36.9 MB) | ≤ 1.0 | NO |",
		"KRaftImageMemory/partitions=100000 | yes | no | NO |",
		"MonitorScrape/control-znodes | 1.250 (218 / 191 µs) | ≤ 1.20 | NO |",
		"MonitorScan/partitions=100000/rate=20000 | 20100 /s (R = 20000) | ≤ R | NO |",
		"KRaftDiff/partitions=100000 | 2, 1 others (Read: 103033) | = 2, no other | NO |",
		"KRaftDiff/partitions=100000 | 0.0610 (104 ms: replay 61, diff 43 / 14.2 s) | ≤ 0.05 | NO |",
		"Not holding (26):",
	)
}

func contains(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestParseResult(t *testing.T) {
	res, ok := parseResult("BenchmarkApplyScaling/refused=1%-16 \t 5 \t 1685301 ns/op \t 17.54 ops=10-allocs/znode")
	if !ok || res.name != "ApplyScaling/refused=1%" || res.n != 5 || res.metrics["ops=10-allocs/znode"] != 17.54 || res.metrics["ns/op"] != 1685301 {
		t.Fatalf("%+v %v", res, ok)
	}
	for _, bad := range []string{"BenchmarkX-2 --- FAIL", "BenchmarkX-2 \t 5 \t x ns/op", "BenchmarkX"} {
		if _, ok := parseResult(bad); ok {
			t.Errorf("parsed %q", bad)
		}
	}
}

func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   bool
	}{
		{[]float64{150, 50, 80, 68}, true},   // one refusal per transaction, then several: a constant step
		{[]float64{150, 50, 110, 68}, false}, // more than twice the lowest before
		{[]float64{150, 50, 60, 600}, false},
	} {
		if got := bounded(tc.values, maxRefusedSpread) && flat(tc.values[2:], maxScalingStep); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.values, got, tc.want)
		}
	}
}
