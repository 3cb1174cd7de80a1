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
# make sandbox    a throwaway ZooKeeper holding a Kafka cluster in
#                 mid-migration, to try migrationzk on (cmd/zksandbox): a
#                 local server in the background, or, with ZK_SERVERS, a
#                 fresh chroot /zkwriter-sandbox-<random> there (no local
#                 installation needed); it prints the --zk to use and what
#                 the cluster holds. make sandbox-delta mirrors one more
#                 KRaft delta into it, make sandbox-stop stops it and
#                 deletes the chroot (SANDBOX_DIR overrides where its state
#                 lives, default $TMPDIR/zkwriter-sandbox).
# make migrationzk  builds the operator tool into bin/migrationzk (BIN
#                 overrides); make install installs it with go install.
#                 Both stamp the commit of the checkout into it, which
#                 --version names when the build recorded none.
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

.PHONY: test demo dualwrite zookeeper jdk kerberos prometheus vet fuzz bench torture mutants sandbox sandbox-delta sandbox-stop migrationzk install

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

# The commit of the checkout, for migrationzk --version: a build records
# it itself only when the go command can ask git (-buildvcs).
GIT_REVISION = $(shell git rev-parse HEAD 2>/dev/null)
GIT_TIME = $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
GIT_MODIFIED = $(shell git status --porcelain 2>/dev/null | grep -q . && echo true)
VERSION_LDFLAGS = -X main.stampedRevision=$(GIT_REVISION) -X main.stampedTime=$(GIT_TIME) -X main.stampedModified=$(GIT_MODIFIED)
BIN ?= bin/migrationzk

migrationzk:
	$(GO) build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN) ./cmd/migrationzk

install:
	$(GO) install -ldflags "$(VERSION_LDFLAGS)" ./cmd/migrationzk

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
