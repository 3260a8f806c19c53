package cli

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/spf13/pflag"
)

// benchPoint is one run's options being made from the bench command's:
// serve's flags registered over a copy of its run options, so that a flag
// bound to a field writes the copy, and the flags serve converts after
// parsing kept beside it until options() converts the ones set.
type benchPoint struct {
	base *ServeOptions
	f    *serveFlags
	fs   *pflag.FlagSet
	// given are the flags the run's parameters set, in their order.
	given []*pflag.Flag
}

// newBenchPoint registers serve's flags over a copy of base's run options.
// The converted flags that merge several values into one field (the
// sampling parameters, the ramp-up) start from base's values, so that a
// run's parameter adds to them as it would on the command line.
func newBenchPoint(base *ServeOptions) *benchPoint {
	f := newServeFlags()
	f.opts = base.Run
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	p := &benchPoint{base: base, f: f, fs: fs}
	for _, k := range base.Run.SamplingParams.Keys() {
		v, _ := base.Run.SamplingParams.Get(k)
		_ = fs.Set(strings.ReplaceAll(k, "_", "-"), pyfmt.Str(v)) // a value read from these flags
	}
	if ru := base.Run.Schedule.RampUp; ru != nil {
		_ = fs.Set("ramp-up-strategy", ru.Strategy)
		for name, v := range map[string]float64{"ramp-up-start-rps": ru.StartRPS, "ramp-up-end-rps": ru.EndRPS} {
			if !math.IsNaN(v) {
				_ = fs.Set(name, strconv.Itoa(int(v)))
			}
		}
	}
	return p
}

// set gives fl the values texts (several for a flag that takes a list,
// which they replace).
func (p *benchPoint) set(fl *pflag.Flag, texts []string) error {
	for _, t := range texts {
		if err := fl.Value.Set(t); err != nil {
			return err
		}
	}
	fl.Changed = true
	p.given = append(p.given, fl)
	return nil
}

// options are the run's serve options: the flags set converted, the
// argument namespace and the simulator brought in line, then every value
// checked (run.Options.Validate).
func (p *benchPoint) options() (*ServeOptions, error) {
	so := *p.base
	names := map[string]bool{}
	for _, fl := range p.given {
		names[fl.Name] = true
		if err := p.convert(fl.Name); err != nil {
			return nil, err
		}
	}
	if names["input-len"] || names["output-len"] {
		dataset.ApplyLengths(&p.f.opts.Dataset, p.f.inputLen.Ptr(), p.f.outputLen.Ptr())
	}
	if names["served-model-name"] && p.f.opts.Model == "" {
		p.f.opts.ServedModelName = "" // as serve: a served name needs --model
	}
	so.Run = p.f.opts
	if len(p.given) > 0 {
		so.Run.Args = p.base.Run.Args.Clone()
		for _, fl := range p.given {
			so.Run.Args.Set(strings.ReplaceAll(fl.Name, "-", "_"), argValue(fl))
		}
	}
	if so.Sim != nil {
		so.Sim = pointSim(&so)
	}
	if err := so.Run.Validate(); err != nil {
		return nil, err
	}
	return &so, nil
}

// convert does for the flag name what serve's options() does once every
// flag is read, for the flags not bound to one field; a flag bound to one
// needs nothing.
func (p *benchPoint) convert(name string) error {
	f, o := p.f, &p.f.opts
	var err error
	switch name {
	case "max-concurrency":
		if f.maxConcurrency.Value() <= 0 {
			return argErrorf("--max-concurrency must be greater than 0")
		}
		o.MaxConcurrency = f.maxConcurrency.Value()
	case "served-model-name":
		o.ServedModelName = f.servedModelName
	case "logprobs":
		o.Logprobs = f.logprobs.Ptr()
	case "lora-modules":
		o.LoRAModules = f.loraModules.Value()
	case "percentile-metrics":
		o.PercentileMetrics = metrics.ParsePercentileMetrics(f.percentileMetrics)
	case "header":
		o.Headers, err = parseHeaders(f.header.Value())
	case "goodput":
		if o.Goodput, err = metrics.ParseGoodput(f.goodput.Value()); err != nil {
			err = argErrorf("argument --goodput: %w", err)
		}
	case "metadata":
		if o.Metadata, err = report.ParseMetadata(f.metadata.Value()); err != nil {
			err = argErrorf("argument --metadata: %w", err)
		}
	case "read-timeout":
		o.ReadTimeout, err = readTimeout("argument --read-timeout:", f.readTimeout.Value())
	case "chat-template-kwargs":
		kw := f.chatTemplateKwargs.Value().Plain()
		if err = tokenizer.CheckChatTemplateKwargs(kw); err != nil {
			return argErrorf("argument --chat-template-kwargs: %v", err)
		}
		o.Dataset.ChatTemplateKwargs = kw
	case "ramp-up-strategy", "ramp-up-start-rps", "ramp-up-end-rps":
		o.Schedule.RampUp = f.rampUp()
	case "top-p", "top-k", "min-p", "temperature", "frequency-penalty", "presence-penalty", "repetition-penalty":
		o.SamplingParams = f.sampling.object()
	default:
		if text, ok := f.datasetTexts[name]; ok {
			err = exitcode.Usage(dataset.ParseFlagTexts(&o.Dataset, map[string]string{name: *text}))
		}
	}
	return err
}

// argValue is a flag's value in vLLM's argument namespace (vars(args)), as
// argsObject writes it.
func argValue(fl *pflag.Flag) any {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.AddFlag(fl)
	v, _ := argsObject(fs).Get(strings.ReplaceAll(fl.Name, "-", "_"))
	return v
}

// pointSim is the simulator of so's --sim for a run whose parameters may
// have changed what serve builds it from: the model it answers to and the
// seed of its scheduler (serveSimConfig).
func pointSim(so *ServeOptions) *sim.Config {
	cfg := *so.Sim
	model := so.Run.Model
	if model != "" && so.Run.ServedModelName != "" {
		model = so.Run.ServedModelName
	}
	if model != "" {
		cfg.Model = model
	}
	if cfg.Scheduler != nil {
		sch := *cfg.Scheduler
		sch.Seed = so.Run.Seed
		cfg.Scheduler = &sch
	}
	return &cfg
}
