# make test   prepares ZooKeeper, then vets and runs every test with the race
#             detector against real servers, and runs each fuzz target briefly.
# make demo   the lost-acknowledgement demo (examples/lostack).
# make bench  prepares ZooKeeper, runs the benchmarks of ./bench against
#             real servers and prints the table of the performance goals
#             (see BENCHMARKS.md).
GO ?= go
FUZZTIME ?= 3s

.PHONY: test demo zookeeper vet fuzz bench torture

zookeeper:
	@./scripts/prepare-zookeeper.sh

vet:
	$(GO) vet ./...

test: zookeeper vet
	ZKWRITER_REQUIRE_ZK=1 $(GO) test -race -timeout 30m ./...
	./scripts/fuzz.sh $(FUZZTIME)

fuzz:
	./scripts/fuzz.sh 60s

demo: zookeeper
	$(GO) run ./examples/lostack

bench: zookeeper
	./scripts/bench.sh
