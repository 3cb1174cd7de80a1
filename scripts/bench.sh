#!/usr/bin/env bash
# Runs the benchmarks of ./bench against real ZooKeeper servers, each group
# with an iteration count that suits it, keeps their output in bench.out
# (or $BENCH_OUT), and prints the table of the figures the performance goals
# are judged by (scripts/benchfmt). Exits non-zero when a goal does not
# hold. BENCH_SCALE multiplies the iteration counts (default 1).
set -euo pipefail
export ZKWRITER_REQUIRE_ZK=1
out="${BENCH_OUT:-bench.out}"
scale="${BENCH_SCALE:-1}"
: >"$out"

note() { echo "# $*" | tee -a "$out"; }
run() {
	local pattern="$1" times="$2"
	local n=$((times * scale))
	note "go test ./bench -run '^\$' -bench '$pattern' -benchtime ${n}x -benchmem -count 1 -timeout 60m"
	go test ./bench -run '^$' -bench "$pattern" -benchtime "${n}x" -benchmem -count 1 -timeout 60m 2>&1 | tee -a "$out"
}

note "load before: $(uptime | sed 's/.*load average/load average/')"
run '^BenchmarkCheckpoint$' 3000
run '^BenchmarkCheckpointMemory$' 3000
run '^BenchmarkDualWrite$' 24
run '^BenchmarkRecovery$' 20
run '^BenchmarkTLSRecovery$' 24
run '^BenchmarkSASLRecovery$' 24
run '^BenchmarkSASLConnect$' 24
run '^BenchmarkKerberosRecovery$' 24
run '^BenchmarkKerberosConnect$' 24
run '^BenchmarkApplyScaling$' 12
run '^BenchmarkCreateTopic$' 144
run '^BenchmarkDeltaScaling$' 5
run '^BenchmarkRead$' 12
run '^BenchmarkSync$' 12
run '^BenchmarkImageMemory$' 3
run '^BenchmarkRememberedDelta$' 200
run '^BenchmarkRememberedMemory$' 3
run '^BenchmarkKRaftReplay$' 10
run '^BenchmarkKRaftImageMemory$' 3
run '^BenchmarkMonitorScrape$' 3000
run '^BenchmarkMonitorScan$' 6
run '^BenchmarkKRaftDiff$' 3
note "load after: $(uptime | sed 's/.*load average/load average/')"
echo
go run ./scripts/benchfmt "$out"
