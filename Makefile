# make test   prepares ZooKeeper, a JDK with Jackson, an MIT Kerberos
#             KDC and Prometheus (with promtool), then vets and runs
#             every test with the race detector against real servers and the
#             real JDK, and runs each fuzz target briefly.
# make demo   the lost-acknowledgement demo (examples/lostack).
# Also:
# make torture    the long form of the torture suite: 100,000 operations under
#                 random faults against a three-member ensemble (TORTURE_OPS,
#                 TORTURE_SEED and TORTURE_FAULTS override).
# make dualwrite  a controller-like dual-write loop under injected faults
#                 (examples/dualwrite).
# make sandbox    a throwaway local ZooKeeper holding a Kafka cluster in
#                 mid-migration, in the background, to try migrationzk on
#                 (cmd/zksandbox); it prints the --zk to use.
#                 make sandbox-delta mirrors one more KRaft delta into it,
#                 make sandbox-stop stops it (SANDBOX_DIR overrides where
#                 it lives, default $TMPDIR/zkwriter-sandbox).
# make bench      the benchmarks of ./bench against real servers, and the table
#                 of the performance goals (see BENCHMARKS.md).
# make mutants    the mutation check: every mutant of scripts/mutants/mutants.txt
#                 (the landing and tenure rules and the code acting on their
#                 verdicts) must be killed by the torture short form alone,
#                 and every mutant of scripts/mutants/data.txt (decoders,
#                 validation, the password encoder) by its package's tests
#                 (MUTANT_SEEDS overrides the seed range, default 1-3).
GO ?= go
FUZZTIME ?= 20000x

.PHONY: test demo dualwrite zookeeper jdk kerberos prometheus vet fuzz bench torture mutants sandbox sandbox-delta sandbox-stop

zookeeper:
	@./scripts/prepare-zookeeper.sh

jdk:
	@./scripts/prepare-jdk.sh

kerberos:
	@./scripts/prepare-kerberos.sh

prometheus:
	@./scripts/prepare-prometheus.sh

vet:
	$(GO) vet ./...

test: zookeeper jdk kerberos prometheus vet
	ZKWRITER_REQUIRE_ZK=1 ZKWRITER_REQUIRE_JDK=1 ZKWRITER_REQUIRE_PROMETHEUS=1 ZKWRITER_REQUIRE_KFAKE=1 $(GO) test -race -timeout 30m ./...
	./scripts/fuzz.sh $(FUZZTIME)

fuzz:
	./scripts/fuzz.sh 60s

demo: zookeeper
	$(GO) run ./examples/lostack

TORTURE_OPS ?= 100000
TORTURE_FAULT_RATE ?= 4

torture: zookeeper
	TORTURE_OPS=$(TORTURE_OPS) TORTURE_FAULT_RATE=$(TORTURE_FAULT_RATE) ZKWRITER_REQUIRE_ZK=1 $(GO) test -count=1 -v -timeout 6h -run 'TestTorture$$' ./internal/torture

dualwrite: zookeeper
	$(GO) run ./examples/dualwrite

SANDBOX_DIR ?=
SANDBOX_FLAGS = $(if $(SANDBOX_DIR),-dir $(SANDBOX_DIR))

sandbox: zookeeper
	@$(GO) run ./cmd/zksandbox start $(SANDBOX_FLAGS)

sandbox-delta:
	@$(GO) run ./cmd/zksandbox delta $(SANDBOX_FLAGS)

sandbox-stop:
	@$(GO) run ./cmd/zksandbox stop $(SANDBOX_FLAGS)

bench: zookeeper
	./scripts/bench.sh

MUTANT_SEEDS ?= 1-3

mutants: zookeeper
	ZKWRITER_REQUIRE_ZK=1 $(GO) run ./scripts/mutants -seeds $(MUTANT_SEEDS)
