# make test runs every test the project has, installing what the tests need first.
GO ?= go

# Fuzz targets run briefly with their seed corpus on every make test: package:Target.
FUZZ_TARGETS ?= config:FuzzParse cmdline:FuzzSplit cmdline:FuzzExpand command:FuzzParseFile connpool:FuzzServerConfig mcpcap:FuzzCheckSkillURI mcpcap:FuzzUnwrapURI ext:FuzzParseURI ext:FuzzConfine skill:FuzzParseFrontmatter frontmatter:FuzzParse gateway:FuzzHandlerJSONRPC connpool:FuzzLeanDispatch plugin:FuzzLoadManifest plugin:FuzzMarketplace skill:FuzzNamespacedURI bearer:FuzzVerify internal/wire:FuzzDecode view:FuzzToolName hiddentext:FuzzSanitize hiddentext:FuzzSanitizeSchema pin:FuzzCanonical pin:FuzzCanonicalReference pin:FuzzDigestReference gateway/internal/stdioframe:FuzzFrame gateway/internal/stdioframe:FuzzResponseID gateway/internal/lane:FuzzParseHead connpool/internal/httpcall:FuzzReadResponse connpool/internal/httpcall:FuzzWriteRequest toolsearch:FuzzSearch pin:FuzzScanIndex
# A count, not a duration: duration-based -fuzztime can fail spuriously with "context deadline
# exceeded" in Go 1.26 (go.dev/issue/75804, fixed in 1.27).
FUZZTIME ?= 100000x

# npm reference MCP servers used by the tests (pinned by testdata/npm/package-lock.json).
NPM_DIR := testdata/npm

.PHONY: test vet unit fuzz deps sysdeps build bench

test: deps vet unit fuzz

# The sandbox launcher goes beside agentpool, where agentpool looks for it; on linux/amd64 its
# entry point is assembly that never starts Go's runtime (-E=main.start), a faster start.
LAUNCHER_FLAGS := $(if $(filter linux/amd64,$(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH)),-ldflags=-E=main.start)
build:
	$(GO) build -o bin/ ./cmd/agentpool
	$(GO) build $(LAUNCHER_FLAGS) -o bin/ ./cmd/agentpool-sandbox

deps: sysdeps
	@if [ -f $(NPM_DIR)/package-lock.json ]; then \
		npm ci --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error; \
	fi

# Debian packages some tests drive for real: chromium (the status page, rendered headless) and
# haproxy (replicas behind a load balancer). Installed with apt-get when missing, which needs
# root (CI runs as root); without root and without them, make test stops here and says so.
SYSDEPS := chromium haproxy
sysdeps:
	@missing=""; for p in $(SYSDEPS); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "make test needs the Debian packages:$$missing (run as root, or apt-get install them)"; exit 1; fi; \
		echo "apt-get install$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# vet also requires go.mod and go.sum to be what go mod tidy makes them (direct dependencies not
# marked indirect, no missing or stale sums); -diff prints the difference and changes nothing.
vet:
	$(GO) vet ./...
	@if ! $(GO) mod tidy -diff; then echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; fi
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test -race -count=1 -timeout 30m ./...
	# Without the race detector: internal/rawio's raw system calls (made only then) under connpool
	# and under serve as users build it (the conformance suite and the client matrix through it),
	# and the allocation bounds of the pass-through path (the detector allocates).
	$(GO) test -count=1 ./internal/rawio ./connpool/...
	$(GO) test -count=1 -run 'TestConformanceThroughServe|TestClientMatrix$$' ./cmd/agentpool
	$(GO) test -count=1 -run 'Allocations$$' ./gateway ./mcpcap

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) -timeout=5m ./$$pkg; \
	done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...
