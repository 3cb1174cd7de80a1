# make test   prepares ZooKeeper, then vets and runs every test with the race
#             detector against real servers, and runs each fuzz target briefly.
# make demo   the lost-acknowledgement demo (examples/lostack).
# make dualwrite  a controller-like dual-write loop under injected faults
#             (examples/dualwrite).
GO ?= go
FUZZTIME ?= 3s

.PHONY: test demo dualwrite zookeeper vet fuzz bench torture

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

dualwrite: zookeeper
	$(GO) run ./examples/dualwrite
