# Plant Store. `make help` lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
TOOLS     := $(CURDIR)/.bin
# A count of executions per fuzz target, not a duration: with a duration, Go
# 1.26's fuzz coordinator can fail a run at its end with a bare "context
# deadline exceeded" when a busy machine delays a worker (golang/go#75804,
# fixed in Go 1.27: internal/fuzz's stop() checks fuzzCtx, which the timeout
# has not cancelled yet). A count sets no deadline, so it cannot race.
FUZZTIME  ?= 20000x
BENCHCOUNT ?= 6
LOADTIME  ?= 20s
STATICCHECK_VERSION ?= v0.8.2
GOSEC_VERSION       ?= v2.29.0
ACTIONLINT_VERSION  ?= v1.7.12
DLV_VERSION         ?= v1.27.2
# gosec reads what ships: the packages of the product that its commands
# (the functions and cmd/localapi) are built from, as go list -deps names
# them. The test support beside them (internal/lambdatest, ...) and tools/
# are left out: they never ship, and by design run the commands and open the
# files and URLs that their user names.
SHIPPED_PACKAGES = GOWORK=off $(GO) list -deps -f '{{with .Module}}{{if .Main}}{{$$.Dir}}{{end}}{{end}}' $$(GOWORK=off $(GO) list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./...)

# Two modules (docs/design.md, "Two modules"): the product at the root and
# the tools in tools/, which go.work joins for development. What ships is
# built from the product's go.mod alone (GOWORK=off), whatever a workspace
# selects; repocheck (make lint) holds that the workspace selects the same.
# build-lambda builds a ./tools/ package (make bench's hello-world and raw
# PutItem floors) in the workspace, since the product's go.mod has none.
#
# Lambda builds (docs/design.md, "What runs where"): static, no RPC, trimmed,
# stripped, for the template's architecture. `sam build` hands its whole
# environment to make, so a GOARCH exported in the user's shell must not pick
# the architecture of a deployed function: only GOARCH=... on make's command
# line does (local builds and tests for this machine).
LAMBDA_ARCH   := arm64
LAMBDA_OS     := linux
ifeq ($(origin GOARCH),command line)
LAMBDA_ARCH   := $(GOARCH)
endif
# samlocal builds for the machine it runs on, passing GOOS and GOARCH on
# make's command line (a Mac runs darwin binaries).
ifeq ($(origin GOOS),command line)
LAMBDA_OS     := $(GOOS)
endif
LAMBDA_FLAGS  := -tags lambda.norpc -trimpath -ldflags='-s -w'
# A debug build (make invoke, start-api, start-lambda with DEBUG=...): what a
# debugger needs, no optimisation or inlining, symbols and source paths kept.
# samlocal asks for one as sam build's debug mode does, with
# SAM_BUILD_MODE=debug in make's environment; DEBUG_BUILD=1 counts only on
# make's command line, never one exported in the shell that sam build hands
# to make. make deploy runs sam without SAM_BUILD_MODE (SAM below).
DEBUG_BUILD_ON := $(if $(filter debug,$(SAM_BUILD_MODE)),1,$(if $(filter command line,$(origin DEBUG_BUILD)),$(DEBUG_BUILD)))
ifneq ($(DEBUG_BUILD_ON),)
LAMBDA_FLAGS  := -tags lambda.norpc -gcflags='all=-N -l'
endif
DEBUG_PORT    ?= 5858
HOSTARCH       = $(shell $(GO) env GOHOSTARCH)
# make build is not called by sam build, so a GOARCH from the shell or the
# command line both pick its architecture.
BUILD_ARCH    := $(if $(filter environment command line,$(origin GOARCH)),$(GOARCH),arm64)
# The functions are template.yaml's (their logical IDs, in its order).
FUNCTIONS     := $(shell awk '/^  [A-Za-z0-9]+:$$/ {id = substr($$1, 1, length($$1) - 1)} /^    Type: AWS::Serverless::Function$$/ {print id}' template.yaml)
FUNCTION      ?= CreatePlantFunction
EVENT         ?= $(if $(filter AuthorizerFunction,$(FUNCTION)),events/authorizer-valid.json,events/createplant-valid.json)
ENV_VARS      ?= events/env.json

# Fuzz targets: package and function.
FUZZ_TARGETS := ./internal/httpapi:FuzzCreatePlantBody ./internal/auth:FuzzVerifyHeader ./internal/auth:FuzzClaims ./functions/createplant:FuzzProxyEvent

.PHONY: bin/escape samlocal bin/samlocal bin/preflight bin/token chromium help run test test-bootstraps fuzz lint lint-go lint-templates preflight-accept bench tools build build-lambda invoke start-api smoke smoke-local deploy load moto node_modules $(addprefix build-,$(FUNCTIONS)) bin/localapi bin/runfront start-lambda

# The commands a person runs (make run, start-api, invoke) are built, then
# run: a built binary exits 0 on a clean Ctrl-C and its one-line errors stand
# alone, where `go run` adds "exit status 1" and turns Ctrl-C into an error.
#
# go build prints the repository's file names as they are, and a branch
# under review may name one with ESC ]52 (the clipboard) or a CSI sequence:
# what these builds print reaches the terminal through bin/escape
# (trace.Escape, the rule of every line the tools print). $(ESCAPED) ends a
# recipe line; the pipeline's status is the build's (pipefail). Under
# make -n, which still runs the lines that call $(MAKE), nothing is built
# (bin/escape neither), so those lines print as they are.
#
# Built without the symbol table and DWARF (-s -w): a panic still prints
# its stack (the runtime reads the pclntab, which -s keeps), and the link,
# which every fresh checkout and every reload of make run WATCH=1 pays,
# does less. A tool to step through with Delve: go build it without them.
TOOL_FLAGS := -ldflags='-s -w'
DRY_RUN  = $(findstring n,$(firstword -$(MAKEFLAGS)))
ESCAPED  = $(if $(DRY_RUN),>&2,2>&1 | bin/escape >&2)
bin/escape:
	@$(GO) build $(TOOL_FLAGS) -o $@ ./tools/cmd/escape
bin/localapi: bin/escape
	@GOWORK=off $(GO) build $(TOOL_FLAGS) -o $@ ./cmd/localapi $(ESCAPED)
bin/token bin/runfront bin/preflight: bin/escape
	@$(GO) build $(TOOL_FLAGS) -o $@ ./tools/cmd/$(notdir $@) $(ESCAPED)
samlocal: bin/samlocal ## build samlocal, the local tools for any Go SAM project, into bin/samlocal
bin/samlocal: bin/escape
	@$(GO) build $(TOOL_FLAGS) -o $@ ./samlocal/cmd/samlocal $(ESCAPED)

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-28s %s\n", $$1, $$2}'

run: $(if $(WATCH)$(TRACE),bin/runfront,bin/localapi) ## the local API on 127.0.0.1:3000 with the embedded store (prints a token; TOKEN_SCOPE=... for its scope; TRACE=1 traces each request; WATCH=1 traces and reloads on save; ALLOW_HOSTS=name,... answers those Host names too)
	@exec $(if $(WATCH)$(TRACE),bin/runfront $(if $(WATCH),-watch),bin/localapi)

# CI=true: the tests that need moto, dynalite, node or the SAM translator fail
# when one is missing instead of skipping (plain `go test` skips them and says
# that make test starts them), since the prerequisites above install (into the
# project) or check each.
#
# Each bootstrap is built once, with the targets sam build calls, into
# .bin/bootstraps/, which every test binary is handed ($(BOOTSTRAPS_ENV),
# internal/lambdatest), instead of each test binary linking its own; the
# debug builds are the two that the Delve tests run. The files are made
# read-only: a test that wants another build makes its own.
BOOTSTRAPS_ENV  := PLANTSTORE_BOOTSTRAPS
BOOTSTRAPS      := $(TOOLS)/bootstraps
DEBUG_FUNCTIONS := CreatePlantFunction AuthorizerFunction
#
# -race where there is concurrency, as Go's own cmd/dist runs it
# (registerRaceTests): the packages of RACE_FREE start no goroutine and no
# server, in their code or their tests (TestRaceFreePackages in
# tools/samtranslate holds that), so the detector has nothing to watch
# there and only makes them slower. They run first, on their own; every
# other package runs under -race, four packages at a time (-p 4; go
# test's default is GOMAXPROCS):
# many of them mostly wait on what they start (builds, emulators, a
# signalled tool), and with two at a time such a package holds a slot while
# a core idles. GORACE=atexit_sleep_ms=0: a binary built with -race sleeps
# a second before it exits (the race detector's atexit_sleep_ms, default
# 1000, go.dev/doc/articles/race_detector), so each of the phase's
# binaries, and each test binary a test runs again as a child, held its
# slot a second with no core busy. A race is reported where it happens and
# fails its test; the sleep only waits for goroutines still running at exit.
#
# Each phase keeps its test binaries, in $(TESTBINS)/plain/ and
# $(TESTBINS)/race/ (-o; go help test: "the test still runs"): the go
# command relinks one only when its build ID differs from what it would link
# now, as it does for go build -o, so a run links the packages a change
# touched instead of all of them (compare go test -run XXX over a phase's
# packages with and without -o). Stripped (-s -w), as go test strips the
# binaries it does not keep. A binary is named by the last element of its
# package's path, and go test refuses two packages of one name in one
# folder, even one with no tests: tools/cmd/preflight, whose command is
# preflight.Main and tested in tools/preflight, is left to the race phase.
RACE_FREE := ./internal/plant ./internal/glyph ./internal/logging ./functions/internal/emf ./tools/figures ./tools/toolcache ./tools/cmd/repocheck ./tools/preflight ./samlocal/samtemplate ./samlocal/eventfilter ./samlocal/cmd/samlocal
TESTBINS   := $(TOOLS)/tests
# The tests run with the collector at a quarter of its default pace
# (GOGC=400; the Go GC guide, go.dev/doc/gc-guide: "doubling GOGC will
# double heap memory overheads and roughly halve GC CPU cost"), trading its
# CPU for memory. The functions the tests start through the emulators get
# the environment Lambda gives them, not this one. To weigh the trade
# again, time a phase with GOGC=100 and GOGC=400 side by side (the figures
# are in the commit that set it).
#
# Where python3 is a pyenv shim, the tests run with the interpreter's own
# folder first on PATH: a shim is a bash script that asks pyenv for the
# version at every start, and the tests start Python a few dozen times
# (moto_server, cfn-lint, the SAM translator). They run the executables the
# shims would run (pyenv which), found once per make run. To weigh it
# again, time make test against make test PY_BIN= (through the shims) in
# turn, or one test binary that starts Python, as tools/samtranslate's (the
# figures are in the commit that set it).
PY_BIN     = $(eval PY_BIN := $$(if $$(findstring /.pyenv/shims/,$$(shell command -v python3)),$$(patsubst %/,%,$$(dir $$(shell pyenv which python3)))))$(PY_BIN)
TEST_ENV   = $(BOOTSTRAPS_ENV)=$(BOOTSTRAPS) CI=true GOGC=400 $(if $(PY_BIN),PATH=$(PY_BIN):$$PATH) $(if $(filter true,$(CI)),,$(if $(shell command -v chromium || command -v chromium-browser || command -v google-chrome),,NO_BROWSER=1))
test: node_modules moto $(TOOLS)/dlv chromium ## every test (starting moto and dynalite), then each fuzz target for FUZZTIME executions
	@$(MAKE) --no-print-directory test-bootstraps
	$(TEST_ENV) $(GO) test -count=1 -ldflags='-s -w' -o $(TESTBINS)/plain/ $(RACE_FREE)
	$(TEST_ENV) GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -p 4 -ldflags='-s -w' -o $(TESTBINS)/race/ $$($(GO) list ./... ./samlocal/... ./tools/... | grep -vxF "$$($(GO) list $(RACE_FREE))")
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME)

test-bootstraps: ## (make test) every function's bootstrap, and the debug builds, into .bin/bootstraps/ for the tests
	@mkdir -p $(BOOTSTRAPS) && chmod -R u+w $(BOOTSTRAPS)
	@for f in $(FUNCTIONS); do $(MAKE) --no-print-directory -s build-$$f ARTIFACTS_DIR=$(BOOTSTRAPS)/$$f GOARCH=$(HOSTARCH); done
	@for f in $(DEBUG_FUNCTIONS); do $(MAKE) --no-print-directory -s build-$$f ARTIFACTS_DIR=$(BOOTSTRAPS)/$$f-debug GOARCH=$(HOSTARCH) DEBUG_BUILD=1; done
	@chmod a-w $(BOOTSTRAPS)/*/bootstrap

fuzz: ## each fuzz target for FUZZTIME executions (default 20000x; e.g. make fuzz FUZZTIME=1000000x), side by side; all run, a failure prints its whole output
	@logs=$$(mktemp -d); trap 'rm -rf "$$logs"' EXIT; pids=""; \
	for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -parallel 1 -o $(TESTBINS)/fuzz/$$fn/ $$pkg >"$$logs/$$fn" 2>&1 & pids="$$pids $$!:$$fn:$$pkg"; \
	done; \
	failed=""; for p in $$pids; do \
	  pid=$${p%%:*}; rest=$${p#*:}; fn=$${rest%%:*}; pkg=$${rest#*:}; \
	  echo "fuzz $$fn ($$pkg) for $(FUZZTIME)"; \
	  if wait $$pid; then \
	    grep -E 'execs:' "$$logs/$$fn" | tail -n 1; tail -n 1 "$$logs/$$fn"; \
	  else \
	    cat "$$logs/$$fn"; failed="$$failed $$fn"; \
	  fi; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz failed:$$failed (an input that fails is kept under the package's testdata/fuzz/)"; exit 1; fi

lint: tools node_modules bin/preflight ## gofmt, go vet (also for macOS and Windows), staticcheck, gosec, cfn-lint (template.yaml, pipeline/roles.yaml), actionlint, the deploy preflight, no build outputs in git
	@logs=$$(mktemp -d); trap 'rm -rf "$$logs"' EXIT; \
	$(MAKE) --no-print-directory lint-templates >"$$logs/templates" 2>&1 & templates=$$!; \
	bin/preflight >"$$logs/preflight" 2>&1 & preflight=$$!; \
	failed=""; if ! $(MAKE) --no-print-directory lint-go; then failed="$$failed lint-go"; fi; \
	if ! wait $$templates; then failed="$$failed lint-templates"; fi; cat "$$logs/templates"; \
	if ! wait $$preflight; then failed="$$failed bin/preflight"; fi; echo bin/preflight; cat "$$logs/preflight"; \
	if [ -n "$$failed" ]; then echo "lint failed:$$failed"; exit 1; fi
	@echo "lint: clean (repocheck, go mod tidy and go vet of each module alone, go vet for linux, darwin and windows, staticcheck $(STATICCHECK_VERSION), gosec $(GOSEC_VERSION), cfn-lint on both templates, actionlint $(ACTIONLINT_VERSION), the deploy preflight (bin/preflight, every rule by ID))"

# $(call clean-before,NAME,INPUTS,COMMAND) runs COMMAND unless it passed
# before on the same inputs: the hash of COMMAND's words and of what INPUTS
# prints (the tool's own bytes or version among them). gosec and cfn-lint
# keep no cache of their own (staticcheck and go vet do), and each takes
# seconds to read inputs a lint after an unrelated edit has not changed. A
# pass leaves a stamp under the user's cache folder, touched on each use and
# dropped after five days unused; a failure leaves none, and a fresh
# machine (CI) has none, so there the tool always runs; so does
# PLANTSTORE_CACHE=off, as for the tests' caches.
LINT_CACHE = $${XDG_CACHE_HOME:-$$HOME/.cache}/plantstore/lint-clean
clean-before = key=$$( { printf '%s\n' '$(3)'; $(2); } | sha256sum | cut -c1-32 ); stamp=$(LINT_CACHE)/$(1)-$$key; \
	if [ "$${PLANTSTORE_CACHE:-}" != off ] && [ -e "$$stamp" ]; then touch "$$stamp"; echo '$(3)' "(skipped: it passed before on the same inputs)"; \
	else echo '$(3)'; $(3); mkdir -p "$(LINT_CACHE)" && touch "$$stamp" && find "$(LINT_CACHE)" -type f -mmin +7200 -delete; fi
# The edge variant: template.yaml with every optional part on. cfn-lint
# checks it, and the preflight reads this line for the stack it judges.
EDGE_PARAMETERS := EnableWaf=true DomainName=api.example.com CertificateArn=arn:aws:acm:us-east-1:123456789012:certificate/example HostedZoneId=Z0EXAMPLE CreatePlantReservedConcurrency=100 DeploymentType=AllAtOnce
GO_INPUTS  = $(GO) env GOVERSION GOOS GOARCH GOFLAGS CGO_ENABLED GOEXPERIMENT; git ls-files -z -co --exclude-standard -- '*.go' '*.mod' '*.sum' '*.work' | xargs -0 sha256sum
# cfn-lint's and the SAM translator's versions, asked of python once per make run, when first used.
CFN_VERSIONS = $(eval CFN_VERSIONS := $$(shell python3 -c 'import importlib.metadata as m; print(m.version("cfn-lint"), m.version("aws-sam-translator"))'))$(CFN_VERSIONS)
CFN_INPUTS = command -v cfn-lint; echo 'cfn-lint and aws-sam-translator $(CFN_VERSIONS)'; cat template.yaml pipeline/roles.yaml $$(ls -d .cfnlintrc* 2>/dev/null)

lint-go: tools ## (make lint) repocheck, gofmt, go mod tidy, go vet for three systems, staticcheck, gosec, actionlint
	@$(GO) run ./tools/cmd/repocheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	GOWORK=off $(GO) mod tidy -diff
	GOWORK=off $(GO) -C tools mod tidy -diff
	GOWORK=off $(GO) -C samlocal mod tidy -diff
	GOWORK=off $(GO) vet ./...
	GOWORK=off $(GO) -C tools vet ./...
	GOWORK=off $(GO) -C samlocal vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./... ./samlocal/... ./tools/...
	GOOS=windows GOARCH=amd64 $(GO) vet ./... ./samlocal/... ./tools/...
	$(TOOLS)/staticcheck ./... ./samlocal/... ./tools/...
	@pkgs=$$($(SHIPPED_PACKAGES)); test -n "$$pkgs"; $(call clean-before,gosec,sha256sum $(TOOLS)/gosec; $(GO_INPUTS),$(TOOLS)/gosec -quiet $$pkgs)
	$(TOOLS)/actionlint .github/workflows/*.yml

lint-templates: ## (make lint) cfn-lint on both templates, and on template.yaml as the edge variant (every optional part on)
	@command -v cfn-lint >/dev/null || { echo "make lint: cfn-lint is not on PATH (it is in .github/requirements.txt, which .ci/run installs on CI)" >&2; exit 1; }
	@$(call clean-before,cfn-lint,$(CFN_INPUTS),cfn-lint template.yaml pipeline/roles.yaml)
	@$(call clean-before,cfn-lint-edge,$(CFN_INPUTS),cfn-lint template.yaml --parameters $(EDGE_PARAMETERS))

preflight-accept: node_modules ## after a change you mean: write the preflight's reviewed access snapshot (tools/preflight/testdata/access.txt), CI's proof (tools/preflight/testdata/proof.json) and, for replacements tools/preflight/allowlist.yaml acknowledges, its stateful reference; commit the diff for review
	CI=true UPDATE_PREFLIGHT=1 $(GO) test -count=1 -o $(TESTBINS)/accept/ -run '^(TestAccessIsTheReviewedSnapshot|TestStatefulReference|TestProofIsTheReviewedSnapshot)$$' ./tools/preflight

build-CreatePlantFunction: ## (SAM) createplant's bootstrap into $(ARTIFACTS_DIR) (arm64; GOARCH=... on the command line for another)
	@$(MAKE) --no-print-directory build-lambda PKG=./functions/createplant

build-AuthorizerFunction: ## (SAM) the authorizer's bootstrap into $(ARTIFACTS_DIR) (arm64; GOARCH=... on the command line for another)
	@$(MAKE) --no-print-directory build-lambda PKG=./functions/authorizer

build-PreTrafficFunction: ## (SAM) the PreTraffic hook's bootstrap into $(ARTIFACTS_DIR)
	@$(MAKE) --no-print-directory build-lambda PKG=./functions/pretraffic

build-lambda: ## the bootstrap of Go package PKG into $(ARTIFACTS_DIR), with the flags above
	@test -n "$(ARTIFACTS_DIR)" || { echo "build-lambda: ARTIFACTS_DIR is not set (sam build sets it; or: make build)" >&2; exit 2; }
	GOWORK=$(if $(filter ./tools/%,$(PKG)),,off) GOOS=$(LAMBDA_OS) GOARCH=$(LAMBDA_ARCH) CGO_ENABLED=0 $(GO) build $(LAMBDA_FLAGS) -o $(ARTIFACTS_DIR)/bootstrap $(PKG)

build: ## every function's bootstrap (createplant, the authorizer, the hook) into bin/<arch>/<function>/bootstrap (arm64; GOARCH=amd64 make build for another)
	@for f in $(FUNCTIONS); do $(MAKE) --no-print-directory build-$$f ARTIFACTS_DIR=bin/$(BUILD_ARCH)/$$f GOARCH=$(BUILD_ARCH); done
	@ls -l bin/$(BUILD_ARCH)/*/bootstrap

# make invoke, start-api and start-lambda are samlocal (docs/local.md) with
# Plant Store's settings: the env file, the seed plant of events/seed.json,
# the data in .plantstore/dynalite, Delve from .bin/; start-api also the
# token the authorizer accepts (bin/token) and the contract for its page.
SAMLOCAL = bin/samlocal $(1) -n $(ENV_VARS) --data-dir .plantstore/dynalite --seed events/seed.json $(if $(DEBUG),-d $(DEBUG_PORT) --debugger-path $(TOOLS))
SERVE    = $(if $(PORT),-p $(PORT)) $(if $(filter-out 1,$(DEBUG)),--debug-function $(DEBUG)) $(if $(WATCH),--watch) $(if $(ALLOW_HOSTS),--allow-host '$(ALLOW_HOSTS)')

invoke: node_modules bin/samlocal $(if $(DEBUG),$(TOOLS)/dlv) ## FUNCTION's real bootstrap on EVENT like sam local invoke, no Docker (ENV_VARS=file, default events/env.json); the answer alone on stdout
	@exec $(call SAMLOCAL,invoke $(FUNCTION) -e $(EVENT))

start-api: node_modules bin/samlocal bin/token $(if $(DEBUG),$(TOOLS)/dlv) ## the deployed chain without Docker: a gateway read from template.yaml before the real bootstraps (ENV_VARS=file; PORT, default 3000; WATCH=1 reloads on save; ALLOW_HOSTS=name,... answers those Host names too)
	@SAMLOCAL_TOKEN=$$(bin/token -n $(ENV_VARS)) SAMLOCAL_OPENAPI=api/openapi.yaml exec $(call SAMLOCAL,start-api) $(SERVE)

start-lambda: node_modules bin/samlocal $(if $(DEBUG),$(TOOLS)/dlv) ## the Lambda Invoke API without Docker, like sam local start-lambda, on 127.0.0.1:3001 (ENV_VARS=file; PORT; WATCH=1 reloads on save; ALLOW_HOSTS=name,... answers those Host names too)
	@exec $(call SAMLOCAL,start-lambda) $(SERVE)

chromium: ## say whether make test has a headless browser for start-api's request page (make test installs no system package: .ci/run installs Debian's chromium; elsewhere install Chromium or Chrome yourself)
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
	  echo "make test: no Chromium or Chrome on PATH, so start-api's browser test is skipped (CI=true in the environment requires it)"

moto: ## check that make test has moto_server (make installs no system package: .ci/run installs .github/requirements.txt on CI)
	@command -v moto_server >/dev/null || { echo "make test: moto_server is not on PATH (it is in .github/requirements.txt, which .ci/run installs on CI)" >&2; exit 1; }

node_modules: node_modules/.bin/dynalite

node_modules/.bin/dynalite: package.json package-lock.json
	@echo "npm ci (dynalite, the DynamoDB emulator for tests)" >&2
	@npm ci --no-audit --no-fund --loglevel=error >&2
	@touch $@

smoke: ## black-box check of a running API: make smoke URL=... TOKEN=...
	@test -n "$(URL)" -a -n "$(TOKEN)" || { echo "usage: make smoke URL=http://127.0.0.1:3000 TOKEN=<token>"; exit 2; }
	@TOKEN='$(TOKEN)' $(GO) run ./tools/cmd/smoke -url '$(URL)'

smoke-local: ## start the local API (fresh store, free port), run the smoke checks against it, stop it
	@$(GO) run ./tools/cmd/smoke -start ./cmd/localapi

# sam build runs `make build-<Function>` with its whole environment
# (aws-lambda-builders, workflows/custom_make/actions.py), and make hands the
# variables of its command line to every make below it in MAKEFLAGS. So sam
# runs without make's variables: DEBUG_BUILD=1 or GOARCH=... typed after
# make deploy never reaches what it builds and ships.
SAM := env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL -u SAM_BUILD_MODE sam

deploy: ## sam build && sam deploy (ENV=dev or ENV=prod: samconfig.toml's environments, S3_BUCKET= or SAM's managed bucket; DEPLOY_FLAGS=--guided the first time)
	$(SAM) build $(if $(ENV),--config-env $(ENV))
	$(SAM) deploy $(if $(ENV),--config-env $(ENV) $(if $(S3_BUCKET),--s3-bucket $(S3_BUCKET),--resolve-s3)) $(DEPLOY_FLAGS)

load: node_modules ## drive the local API hard (embedded, DynamoDB mode, and a SIGKILL mid-load), then verify every write
	$(GO) run ./tools/cmd/load -mode embedded -duration $(LOADTIME)
	$(GO) run ./tools/cmd/load -mode dynamodb -duration $(LOADTIME)
	$(GO) run ./tools/cmd/load -mode embedded -duration $(LOADTIME) -crash

bench: node_modules moto ## the benchmarks behind docs/performance.md; writes docs/bench.json and renders every figure of README.md and docs/*.md from it
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) ./internal/httpapi ./internal/auth ./functions/createplant ./samlocal/gateway ./cmd/localapi
	$(GO) test -run '^$$' -bench . -count 2 ./internal/boltstore
	$(GO) run ./tools/cmd/bench -json docs/bench.json -render 'README.md,docs/*.md' $(if $(REFERENCE),-reference $(REFERENCE))

tools: $(TOOLS)/staticcheck $(TOOLS)/gosec $(TOOLS)/actionlint

# Installed once into .bin/. gosec's module graph is large (its AI-fix
# feature brings cloud SDKs): the first make lint downloads for minutes.
$(TOOLS)/gosec:
	@echo "lint: installing gosec $(GOSEC_VERSION) into .bin/ (first run only; it downloads about 40 modules and takes a few minutes)"
	@GOBIN=$(TOOLS) $(GO) install github.com/securego/gosec/v2/cmd/gosec@$(GOSEC_VERSION)

# Delve, for DEBUG=<Function> and its tests.
$(TOOLS)/dlv:
	@echo "installing Delve $(DLV_VERSION) into .bin/ (first run only)"
	@GOBIN=$(TOOLS) $(GO) install github.com/go-delve/delve/cmd/dlv@$(DLV_VERSION)

$(TOOLS)/actionlint:
	@echo "lint: installing actionlint $(ACTIONLINT_VERSION) into .bin/ (first run only)"
	@GOBIN=$(TOOLS) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

$(TOOLS)/staticcheck:
	@echo "lint: installing staticcheck $(STATICCHECK_VERSION) into .bin/ (first run only)"
	@GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
