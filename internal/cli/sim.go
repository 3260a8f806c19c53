package cli

import (
	"context"
	"fmt"

	"github.com/gobench/gobench/internal/sim"
	"github.com/spf13/cobra"
)

// SimOptions is what `gobench sim` runs.
type SimOptions struct {
	// Config is the simulator's configuration, its address and record
	// included.
	Config sim.Config
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
buckets, vllm:cache_config_info included. vLLM's periodic stats line goes
to stderr (--disable-log-stats turns it off); a line per request only with
--enable-log-requests, as with vllm serve.

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

Presets (--preset) start from a typical case; flags override them. The
scenario presets each make the server sick in one way, so that the load
shown with them reproduces one verdict of the diagnosis of a slow server.
A --config YAML file holds the same options. Flag names follow "vllm
serve" where it has one.`

func newSimCmd(deps *Deps, runF func(context.Context, *SimOptions) error) *cobra.Command {
	var sf simFlags
	cmd := &cobra.Command{
		Use:   "sim [flags]",
		Short: "Run a simulated vLLM server (fixed latencies or vLLM's scheduler, metrics, faults, ground truth)",
		Long:  simLong + "\n\n" + presetsHelp(),
		Example: `  gobench sim --port 8000 --ttft 0.05 --itl 0.01
  gobench sim --preset 8b-1gpu --record truth.jsonl
  gobench sim --preset kv-thrashing --enable-log-requests
  gobench sim --max-num-seqs 8 --num-gpu-blocks-override 256 --max-model-len 4096
  gobench sim --fault-http-503 0.05 --fault-reset 'bench-.*-1[0-9]$'
  gobench serve --base-url http://127.0.0.1:8000 --num-prompts 100 --request-rate 10`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := sf.config(cmd.Flags())
			if err != nil {
				return err
			}
			cfg.Logger = deps.Stderr
			return runF(cmd.Context(), &SimOptions{Config: cfg})
		},
	}
	cmd.Flags().SortFlags = false
	sf.register(cmd.Flags(), "", true)
	return cmd
}

// runSim serves until the context ends or stop closes (Ctrl-C).
func runSim(ctx context.Context, deps *Deps, o *SimOptions, stop <-chan struct{}) error {
	r, err := sim.Start(ctx, o.Config)
	if err != nil {
		return err
	}
	name := o.Config.Model
	if name == "" {
		name = sim.DefaultModel
	}
	fmt.Fprintf(deps.Stdout, "gobench sim listening on http://%s (model %q, %s); Ctrl-C stops it.\n",
		r.Addr(), name, describeSim(o.Config))
	select {
	case <-ctx.Done():
	case <-stop:
	case <-r.Done():
	}
	return r.Close()
}
