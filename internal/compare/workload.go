package compare

import (
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// WorkloadKeys are the top-level result keys that define the load a run
// offered (vLLM's names): two runs that differ in one of them measured
// different things, so their numbers are no like-for-like comparison.
// Together with the values of gobench_workload (but ReportingOnly) they
// are the one list compare and the threshold baselines check.
var WorkloadKeys = []string{
	resultkey.EndpointType, resultkey.Backend, resultkey.ModelID, resultkey.TokenizerID,
	resultkey.NumPrompts, resultkey.RequestRate, resultkey.Burstiness, resultkey.MaxConcurrency,
	resultkey.RampUpStrategy, resultkey.RampUpStartRPS, resultkey.RampUpEndRPS,
}

// ReportingOnly are the values of gobench_workload that change what a run
// reports or how it is judged, not what it sent, and warmup_requests,
// which counts what a run's warm-up window happened to hold: they never
// make two workloads differ.
var ReportingOnly = []string{
	resultkey.WorkloadCommand, resultkey.WorkloadPercentileMetrics, resultkey.WorkloadMetricPercentiles,
	resultkey.WorkloadGoodput, resultkey.WorkloadWarmupRequests,
}

// WorkloadDifference is one workload setting two runs do not share.
type WorkloadDifference struct {
	// Key is the setting as printed: a top-level key, or a value of
	// gobench_workload by its path inside it ("random_input_len",
	// "sampling_params.temperature").
	Key string
	// A and B are the two runs' values as printed ("unset" where a run's
	// gobench_workload lacks the value).
	A, B string
}

// unset is printed for a value a run's gobench_workload does not record:
// the flag was not given, so the server's default applied.
const unset = "unset"

// WorkloadDiff lists the workload settings (WorkloadKeys and the values of
// gobench_workload but ReportingOnly) in which b differs from a. A key one
// run does not record at all (vLLM's files have no gobench_workload) is
// unknown, not different, and is left out.
func WorkloadDiff(a, b *resultfile.Run) []WorkloadDifference {
	var out []WorkloadDifference
	for _, k := range WorkloadKeys {
		if !a.Has(k) || !b.Has(k) {
			continue
		}
		ta, tb := settingText(a, k), settingText(b, k)
		if ta != tb {
			out = append(out, WorkloadDifference{Key: k, A: ta, B: tb})
		}
	}
	runs := []*resultfile.Run{a, b}
	if _, ok := a.Object(resultkey.GobenchWorkload); !ok {
		return out
	}
	if _, ok := b.Object(resultkey.GobenchWorkload); !ok {
		return out
	}
	for _, p := range objectPaths(runs, resultkey.GobenchWorkload) {
		if slices.Contains(ReportingOnly, p[1]) {
			continue
		}
		ta, tb := orUnset(nestedText(a, p)), orUnset(nestedText(b, p))
		if ta != tb {
			out = append(out, WorkloadDifference{Key: strings.Join(p[1:], "."), A: ta, B: tb})
		}
	}
	return out
}

func orUnset(s string) string {
	if s == "" {
		return unset
	}
	return s
}

// FormatWorkloadDiff is the warning line of a workload that differs,
// "workload differs, A → B: endpoint_type openai → openai-chat;
// random_input_len 512 → 1024" (each change read from the baseline A), or
// "" when nothing differs.
func FormatWorkloadDiff(diffs []WorkloadDifference, nameA, nameB string) string {
	if len(diffs) == 0 {
		return ""
	}
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		parts[i] = d.Key + " " + d.A + " → " + d.B
	}
	return "workload differs, " + nameA + " → " + nameB + ": " + strings.Join(parts, "; ")
}
