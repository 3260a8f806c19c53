package cli

import (
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/sim"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Shell completion is cobra's (`gobench completion bash|zsh|fish|powershell`
// prints the script; the script asks `gobench __complete ARGS...`). Flag
// names come from the commands; flag values from valueCompletion: a choice
// flag offers its choices (argparse.NewChoice records them, so no choice
// flag is left out), a few flags offer lists of their own, numbers and
// other values offer nothing, and the remaining ones (paths) file names.

// isCompletionRequest reports whether args ask for completions: cobra's
// scripts call `gobench __complete ...` (__completeNoDesc without
// descriptions).
func isCompletionRequest(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// registerCompletions gives every flag of root and of the commands below
// it its value completion. Cobra keeps these in a package-level map keyed
// by flag, which would grow with every command tree built, so Main
// registers them only to answer a completion request.
func registerCompletions(root *cobra.Command) {
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if fn := valueCompletion(f); fn != nil {
			// The only error is a flag registered twice, which a walk
			// over distinct commands cannot do.
			_ = root.RegisterFlagCompletionFunc(f.Name, fn)
		}
	})
	for _, c := range root.Commands() {
		registerCompletions(c)
	}
}

// valueCompletion completes the value of f, or is nil for file names
// (cobra's default).
func valueCompletion(f *pflag.Flag) cobra.CompletionFunc {
	switch strings.TrimPrefix(f.Name, "sim-") { // gobench serve --sim-preset is gobench sim --preset
	case "preset":
		var names []string
		for _, p := range sim.Presets() {
			names = append(names, p.Name)
		}
		return completeFrom(names)
	case "engine":
		return completeFrom([]string{"fixed", "scheduler"})
	case "percentile-metrics":
		return completeMetricList
	case "result-dir":
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	}
	if strings.HasPrefix(strings.TrimPrefix(f.Name, "sim-"), "fault-") {
		return completeFrom(nil) // a RULE
	}
	switch v := f.Value.(type) {
	case interface{ Completions() []string }:
		return completeFrom(v.Completions())
	case *percentilesFlag, *argparse.JSON, *argparse.List, *argparse.Strings:
		return completeFrom(nil)
	}
	return nil
}

// completeFrom offers the values among choices that start with what is
// typed, and no file names.
func completeFrom(choices []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, c := range choices {
			if strings.HasPrefix(c, toComplete) {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeMetricList completes the last item of a comma-separated
// --percentile-metrics list with the metrics not in it yet.
func completeMetricList(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	given := strings.Split(done, ",")
	var out []cobra.Completion
	for _, m := range resultkey.Metrics() {
		if strings.HasPrefix(m.Key, last) && !slices.Contains(given, m.Key) {
			out = append(out, done+m.Key)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// supportedBackends lists the --backend choices gobench can benchmark, the
// ones completion offers.
func supportedBackends() []string {
	var names []string
	for _, s := range backend.Specs() {
		if s.Supported() {
			names = append(names, s.Name)
		}
	}
	return names
}
