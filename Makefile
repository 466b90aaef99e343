# Plant Store. `make help` lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
TOOLS     := $(CURDIR)/.bin
FUZZTIME  ?= 5s
STATICCHECK_VERSION ?= v0.8.2

# Fuzz targets: package and function.
FUZZ_TARGETS := ./internal/httpapi:FuzzCreatePlantBody ./internal/auth:FuzzVerifyHeader

.PHONY: help run test fuzz lint bench tools

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-28s %s\n", $$1, $$2}'

run: ## the local API on 127.0.0.1:3000 with the embedded store (prints a token)
	$(GO) run ./cmd/localapi

test: ## every test, then each fuzz target for FUZZTIME
	$(GO) test -race -count=1 ./...
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME)

fuzz: ## each fuzz target for FUZZTIME (default 5s; e.g. make fuzz FUZZTIME=2m)
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$fn ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) $$pkg | tail -n 2; \
	done

lint: tools ## gofmt, go vet, staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...

bench: ## the benchmarks behind the performance figures
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./internal/...

tools: $(TOOLS)/staticcheck

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
