package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/spf13/cobra"
)

// SimOptions is what `gobench sim` runs.
type SimOptions struct {
	// Addr is host:port to listen on.
	Addr string
	// Config is the simulator's configuration.
	Config sim.Config
	// TokenizerPath is --tokenizer; empty uses gobench's built-in tokenizer.
	TokenizerPath string
	// RecordPath is --record: the file the ground truth is written to.
	RecordPath string
}

const simLong = `Run gobench's simulated vLLM server: /v1/completions and
/v1/chat/completions (streaming and not, with the usage chunk),
/v1/embeddings, /v1/models (with vLLM's "root"), /health, /metrics
(vLLM's Prometheus families), /tokenize, /detokenize, /start_profile and
/stop_profile.

Two engines decide when tokens come out:

  fixed      every request waits --ttft before its first token, then --itl
             between tokens, on an absolute timeline, however many run: the
             known truth that gobench's client is measured against.
  scheduler  vLLM's scheduler loop: each step has a token budget
             (--max-num-batched-tokens), serves running requests first, then
             admits waiting ones up to --max-num-seqs, prefills long prompts
             in chunks (no output before the last chunk), keeps a KV cache of
             --num-gpu-blocks-override blocks of --block-size tokens (when a
             running request needs a block and none is free, the newest
             running request is preempted and recomputed later), reuses
             cached prompt prefixes, and takes --step-time-base +
             --step-time-per-token × prefill tokens + --step-time-per-seq ×
             sequences per step, so a bigger batch slows every stream.
             --num-speculative-tokens adds speculative decoding.

A request generates max_tokens tokens with "ignore_eos": true, else stops
at a seeded random length. Prompt tokens are counted with the tokenizer
(gobench's built-in one by default, which "gobench serve" picks up from the
model's root). /metrics serves vLLM's metric names, types, labels and
buckets; with a logger, vLLM's periodic stats line goes to stderr.

Faults on demand make the server misbehave as real ones do: HTTP
429/500/503, a reset or a stall mid-stream, a malformed or error event, a
slow drip, no [DONE], no usage, a wrong completion_tokens. Each --fault-*
flag takes a RULE: a fraction of requests ("0.05" or "5%", fixed by --seed
and the request id, so a replay is struck alike) or a regular expression
matched against the request id ("1[0-9]$"; "re:7" for one that reads as a
number). Mid-stream faults strike after the event that brings the output
to half its tokens.

--record FILE writes the ground truth: per request, the instant every event
left and the server-side intervals, on CLOCK_MONOTONIC.

Presets (--preset) start from a typical case; flags override them. A
--config YAML file holds the same options. Flag names follow "vllm serve"
where it has one.`

func newSimCmd(deps *Deps, runF func(context.Context, *SimOptions) error) *cobra.Command {
	var (
		host, model, served, tok string
		port, maxTok, seed       *intFlag
		ttft, itl                *floatFlag
		sf                       simFlags
	)
	cmd := &cobra.Command{
		Use:   "sim [flags]",
		Short: "Run a simulated vLLM server (fixed latencies or vLLM's scheduler, metrics, faults, ground truth)",
		Long:  simLong + "\n\n" + presetsHelp(),
		Example: `  gobench sim --port 8000 --ttft 0.05 --itl 0.01
  gobench sim --preset 8b-1gpu --record truth.jsonl
  gobench sim --max-num-seqs 8 --num-gpu-blocks-override 256 --max-model-len 4096
  gobench sim --fault-http-503 0.05 --fault-reset 'bench-.*-1[0-9]$'
  gobench serve --base-url http://127.0.0.1:8000 --num-prompts 100 --request-rate 10`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !(ttft.v >= 0) || !(itl.v >= 0) {
				return argErrorf("--ttft and --itl must be non-negative seconds")
			}
			var latency []string
			for _, name := range []string{"ttft", "itl"} {
				if cmd.Flags().Lookup(name).Changed {
					latency = append(latency, "--"+name)
				}
			}
			cfg, err := sf.build(cmd.Flags(), metrics.Duration(ttft.v), metrics.Duration(itl.v), latency)
			if err != nil {
				return err
			}
			cfg.Model, cfg.DefaultMaxTokens, cfg.Seed, cfg.Logger = model, maxTok.v, int64(seed.v), deps.Stderr
			if cfg.Scheduler != nil {
				cfg.Scheduler.Seed = int64(seed.v)
			}
			o := &SimOptions{Addr: net.JoinHostPort(host, strconv.Itoa(port.v)), TokenizerPath: tok, Config: cfg,
				RecordPath: sf.record}
			if served != "" {
				// vllm serve: --model names the weights (root), the served
				// name is what clients send.
				o.Config.Model, o.Config.Root = served, model
			}
			return runF(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&host, "host", "127.0.0.1", "Address to listen on.")
	port = newInt("port", 8000)
	fs.Var(port, "port", "Port to listen on (0 picks a free one).")
	fs.StringVar(&model, "model", sim.DefaultModel, "Model name served in /v1/models and responses.")
	fs.StringVar(&served, "served-model-name", "", "Name clients use; --model then becomes the model's root.")
	ttft, itl = newFloat("ttft", 0.05), newFloat("itl", 0.01)
	fs.Var(ttft, "ttft", "Fixed engine: time to first token, in seconds.")
	fs.Var(itl, "itl", "Fixed engine: time between tokens, in seconds.")
	sf.register(fs, "", true)
	maxTok = newInt("default-max-tokens", sim.DefaultMaxTokens)
	fs.Var(maxTok, "default-max-tokens", "Output length of requests that set no max_tokens.")
	seed = newInt("seed", 0)
	fs.Var(seed, "seed", "Seed of the random stop of requests without ignore_eos, of fault rates and of draft acceptance.")
	fs.StringVar(&tok, "tokenizer", "", "tokenizer.json (or folder) used to count prompt tokens; default: gobench's built-in tokenizer.")
	return cmd
}

// runSim serves until the context ends (Ctrl-C).
func runSim(ctx context.Context, deps *Deps, o *SimOptions, stop <-chan struct{}) error {
	cfg := o.Config
	if o.TokenizerPath != "" {
		t, err := tokenizer.Load(o.TokenizerPath)
		if err != nil {
			return err
		}
		cfg.Tokenizer = t
	} else {
		cfg.Tokenizer = tokenizer.Builtin()
		if cfg.Root == "" {
			cfg.Root = tokenizer.BuiltinName
		}
	}
	var rec *os.File
	if o.RecordPath != "" {
		f, err := os.Create(o.RecordPath)
		if err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		rec = f
		defer rec.Close()
		cfg.Record = rec
	}
	srv, err := sim.NewServer(cfg)
	if err != nil {
		return exitcode.Usage(err)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	name := cfg.Model
	if name == "" {
		name = sim.DefaultModel
	}
	fmt.Fprintf(deps.Stdout, "gobench sim listening on http://%s (model %q, %s); Ctrl-C stops it.\n",
		ln.Addr(), name, describeSim(cfg))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	err = srv.Serve(ctx, ln)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if rerr := srv.RecordErr(); rerr != nil && err == nil {
		err = fmt.Errorf("--record %s: %w", o.RecordPath, rerr)
	}
	if rec != nil {
		if cerr := rec.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--record %s: %w", o.RecordPath, cerr)
		}
	}
	return err
}
