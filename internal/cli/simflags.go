package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/sim"
	"github.com/spf13/pflag"
)

// simFlags are the simulator's knobs (sim.Knobs) as flags: `gobench sim`
// registers them as they are, `gobench serve` with the prefix "sim-"
// (--sim-max-num-seqs ...), so both build the same sim.Config through
// sim.Options. The flags parse like the rest of gobench's; sim.Options
// decides what they mean.
type simFlags struct {
	prefix     string
	standalone bool // gobench sim, with its own knobs (host, port, model ...)
}

// register defines the knobs' flags on fs, each name prefixed.
func (f *simFlags) register(fs *pflag.FlagSet, prefix string, standalone bool) {
	f.prefix, f.standalone = prefix, standalone
	for _, k := range sim.Knobs(prefix, standalone) {
		name := prefix + k.Name
		switch d := k.Default.(type) {
		case int:
			fs.Var(argparse.NewInt(name, d), name, k.Usage)
		case float64:
			fs.Var(argparse.NewFloat(name, d), name, k.Usage)
		case bool:
			fs.Bool(name, d, k.Usage)
		case string:
			fs.String(name, d, k.Usage)
		}
	}
}

// config turns the flags given into the simulator's configuration; a
// mistake in them is a command-line error.
func (f *simFlags) config(fs *pflag.FlagSet) (sim.Config, error) {
	o := sim.NewOptions(f.prefix, f.standalone)
	var err error
	for _, k := range sim.Knobs(f.prefix, f.standalone) {
		if fl := fs.Lookup(f.prefix + k.Name); err == nil && fl != nil && fl.Changed {
			err = o.Set(k.Name, fl.Value.String())
		}
	}
	var cfg sim.Config
	if err == nil {
		cfg, err = o.Config()
	}
	if errors.As(err, new(*sim.OptionError)) {
		return cfg, exitcode.Usage(err)
	}
	return cfg, err
}

// presetsHelp describes every preset, for the long help of `gobench sim`:
// what it shows and, for a scenario, the verdict it reproduces and the
// load that shows it.
func presetsHelp() string {
	var b strings.Builder
	b.WriteString("Presets:\n")
	for _, p := range sim.Presets() {
		fmt.Fprintf(&b, "\n  %s", p.Name)
		if len(p.Aliases) > 0 {
			fmt.Fprintf(&b, " (also %s)", strings.Join(p.Aliases, ", "))
		}
		if p.Verdict != "" {
			fmt.Fprintf(&b, ": scenario for the verdict %s", p.Verdict)
		}
		b.WriteString("\n")
		wrap(&b, p.Description)
		if len(p.Load) > 0 {
			wrap(&b, "Load: gobench serve --base-url http://127.0.0.1:8000 "+p.LoadArgs())
		}
	}
	return b.String()
}

// simKnobGroups files the simulator's knobs (sim.Knobs), as flags
// (prefix+name), under the headings of the help: "server", "engine",
// "faults" and "logs". A knob whose help starts with "Engine:" is the
// engine's; one not named here is the server's.
func simKnobGroups(prefix string, standalone bool) map[string][]string {
	engine := []string{"preset", "config", "engine", "ttft", "itl", "frontend-latency"}
	out := map[string][]string{}
	for _, k := range sim.Knobs(prefix, standalone) {
		group := "server"
		switch {
		case strings.HasPrefix(k.Name, "fault-"):
			group = "faults"
		case k.Name == "record" || strings.Contains(k.Name, "log"):
			group = "logs"
		case strings.HasPrefix(k.Usage, "Engine:") || slices.Contains(engine, k.Name):
			group = "engine"
		}
		out[group] = append(out[group], prefix+k.Name)
	}
	return out
}

// simHelpGroups are the headings of `gobench sim --help`.
func simHelpGroups() []helpGroup {
	g := simKnobGroups("", true)
	return []helpGroup{
		{title: "Server flags:", flags: g["server"]},
		{title: "Engine flags:", flags: g["engine"]},
		{title: "Fault flags:", flags: g["faults"]},
		{title: "Log and record flags:", flags: g["logs"]},
	}
}

// serveSimHelpGroups are the headings of the simulator's flags in `gobench
// serve --help`: --sim and the knobs most runs set; --help-all lists the
// others.
func serveSimHelpGroups() []helpGroup {
	core := []string{"sim"}
	for _, name := range []string{"preset", "engine", "ttft", "itl"} {
		core = append(core, "sim-"+name)
	}
	g := simKnobGroups("sim-", false)
	rest := func(group string) []string {
		return slices.DeleteFunc(g[group], func(name string) bool { return slices.Contains(core, name) })
	}
	const more = "more simulator flags (--sim-*)"
	return []helpGroup{
		{title: "Simulator flags (with --sim; gobench sim --help describes the simulator):", flags: core},
		{title: "Simulator server flags:", flags: rest("server"), more: more},
		{title: "Simulator engine flags:", flags: rest("engine"), more: more},
		{title: "Simulator fault flags:", flags: rest("faults"), more: more},
		{title: "Simulator log and record flags:", flags: rest("logs"), more: more},
	}
}

// wrap writes text indented, in lines of at most 76 columns.
func wrap(b *strings.Builder, text string) {
	line := "     "
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 76 && line != "     " {
			b.WriteString(line + "\n")
			line = "     "
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}

// describeSim summarises cfg's engine for the start-up banner.
func describeSim(cfg sim.Config) string {
	if sc := cfg.Scheduler; sc != nil {
		s := fmt.Sprintf("engine scheduler: max-num-seqs %d, max-num-batched-tokens %d, %d KV blocks of %d tokens, prefix caching %t, "+
			"step %v + %v/prefill token + %v/seq", sc.MaxNumSeqs, sc.MaxNumBatchedTokens, sc.NumGPUBlocks, sc.BlockSize,
			sc.EnablePrefixCaching, sc.StepBase, sc.StepPerToken, sc.StepPerSeq)
		if sc.NumSpeculativeTokens > 0 {
			s += fmt.Sprintf(", %d speculative tokens accepted at %.0f%%", sc.NumSpeculativeTokens, 100*sc.SpecAcceptanceRate)
		}
		return s
	}
	return fmt.Sprintf("TTFT %s, ITL %s", cfg.TTFT, cfg.ITL)
}
