package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

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
}

const simLong = `Run gobench's simulated OpenAI-compatible server: /v1/completions and
/v1/chat/completions (streaming and not, with the usage chunk), /v1/models
(with vLLM's "root"), /health, /start_profile and /stop_profile.

Every request waits --ttft before its first token, then --itl between
tokens, on an absolute timeline; it generates max_tokens tokens with
"ignore_eos": true, else stops at a seeded random length. Prompt tokens
are counted with the tokenizer (gobench's built-in one by default, which
"gobench serve" picks up from the model's root).

Flag names follow "vllm serve" where it has one.`

func newSimCmd(deps *Deps, runF func(context.Context, *SimOptions) error) *cobra.Command {
	var (
		host, model, served, tok  string
		port, maxModelLen, maxTok *intFlag
		seed                      *intFlag
		perRequestMetrics         bool
		ttft, itl                 *floatFlag
	)
	cmd := &cobra.Command{
		Use:   "sim [flags]",
		Short: "Run a simulated OpenAI-compatible LLM server",
		Long:  simLong,
		Example: `  gobench sim --port 8000 --ttft 0.05 --itl 0.01
  gobench serve --base-url http://127.0.0.1:8000 --num-prompts 100 --request-rate 10`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !(ttft.v >= 0) || !(itl.v >= 0) {
				return argErrorf("--ttft and --itl must be non-negative seconds")
			}
			o := &SimOptions{
				Addr:          net.JoinHostPort(host, strconv.Itoa(port.v)),
				TokenizerPath: tok,
				Config: sim.Config{
					Model: model, TTFT: seconds(ttft.v), ITL: seconds(itl.v),
					MaxModelLen: maxModelLen.v, DefaultMaxTokens: maxTok.v, Seed: int64(seed.v),
					Logger: deps.Stderr, EnablePerRequestMetrics: perRequestMetrics,
				},
			}
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
	fs.Var(ttft, "ttft", "Time to first token, in seconds.")
	fs.Var(itl, "itl", "Time between tokens, in seconds.")
	maxModelLen = newInt("max-model-len", sim.DefaultMaxModelLen)
	fs.Var(maxModelLen, "max-model-len", "Context length reported in /v1/models.")
	maxTok = newInt("default-max-tokens", sim.DefaultMaxTokens)
	fs.Var(maxTok, "default-max-tokens", "Output length of requests that set no max_tokens.")
	seed = newInt("seed", 0)
	fs.Var(seed, "seed", "Seed of the random stop of requests without ignore_eos.")
	fs.BoolVar(&perRequestMetrics, "enable-per-request-metrics", false, "Add vLLM's per-request metrics object (server-side TTFT, queue time, ...) to the final usage event.")
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
	srv, err := sim.NewServer(cfg)
	if err != nil {
		return &argError{msg: err.Error()}
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	name := cfg.Model
	if name == "" {
		name = sim.DefaultModel
	}
	fmt.Fprintf(deps.Stdout, "gobench sim listening on http://%s (model %q, TTFT %s, ITL %s); Ctrl-C stops it.\n",
		ln.Addr(), name, cfg.TTFT, cfg.ITL)
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
		return nil
	}
	return err
}
