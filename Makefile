# svc: the two commands are `make run` and `make test`.
GO        ?= go
export CGO_ENABLED ?= 0
export GOTOOLCHAIN ?= local
DATA_DIR  ?= ./.svc-data
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/svcplatform/svc/internal/buildinfo.Version=$(VERSION)
BIN       := bin/svc

.PHONY: run build deps test test-short lint bench fuzz clean cluster chaos generate

## run: build and start the whole platform in one process (API, worker, embedded Temporal and UI)
run: deps build
	./$(BIN) dev --data-dir $(DATA_DIR)

## build: build the svc binary into bin/
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/svc

## deps: install the Debian packages the tests and svc dev need (OCR and PDF tools), or say how
deps:
	@./deploy/deps.sh

## test: the whole test suite (store tests also on PostgreSQL when SVC_TEST_POSTGRES_URL is set)
test: deps
	$(GO) test -count=1 -timeout 25m ./...

## lint: golangci-lint (the pinned version, installed into bin/ if missing) with .golangci.yml
## (gofmt, go vet, staticcheck, revive, errname, ...); not part of `make test`
GOLANGCI_VERSION ?= v2.15.0
GOLANGCI         := bin/golangci-lint-$(GOLANGCI_VERSION)
lint: $(GOLANGCI)
	./$(GOLANGCI) run ./...

$(GOLANGCI):
	@mkdir -p bin
	GOBIN=$(CURDIR)/bin/.golangci-$(GOLANGCI_VERSION) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv bin/.golangci-$(GOLANGCI_VERSION)/golangci-lint $@ && rmdir bin/.golangci-$(GOLANGCI_VERSION)

## cluster: the multi-process topology on this machine, without Docker (PostgreSQL must run):
## Temporal on PostgreSQL, 2 x svc api, 2 x svc worker, S3 blobs, a webhook receiver; Ctrl-C stops it
cluster:
	$(GO) run ./deploy/cmd/cluster $(CLUSTER_FLAGS)

## chaos: a fresh cluster under a mixed load while every process is killed at random; checks that
## nothing is lost or done twice and prints the figures (CHAOS_FLAGS="-load 45s -kill-every 7s")
chaos:
	$(GO) run ./deploy/cmd/chaos $(CHAOS_FLAGS)

## generate: regenerate the Go and TypeScript clients from api/openapi.yaml (the tests fail when
## the committed ones differ from a fresh generation)
generate:
	$(GO) tool oapi-codegen -config client/oapi-codegen.yaml api/openapi.yaml
	cd client/typescript && npm ci --no-audit --no-fund && npm run generate

## bench: benchmarks with their baselines, measured in the same run
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./bench/...

## fuzz: run each fuzz target for a short while (the seed corpora already run in `make test`)
fuzz:
	@for p in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); do \
	    echo "== $$p $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 20s $$p || exit 1; \
	  done; \
	done

clean:
	rm -rf bin
