package merge

import (
	"github.com/gobench/gobench/internal/analyze"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// reportObject writes the merged result through report.ResultObject, the
// writer of every serve result, from the recomputed metrics and the
// settings of the merged object run (shard 0's): the same keys in the
// same order as one client's detailed result, plus gobench_merge.
func reportObject(run *resultfile.Run, rec *analyze.Result, offsets []any, merge *pyjson.Object) *pyjson.Object {
	str := func(k string) string { s, _ := run.String(k); return s }
	num := func(k string) float64 { v, _ := run.Number(k); return v }
	r := &report.Run{
		Date: str(resultkey.Date), Backend: str(resultkey.Backend), Label: str(resultkey.Label),
		ModelID: str(resultkey.ModelID), TokenizerID: str(resultkey.TokenizerID), NumPrompts: int(num(resultkey.NumPrompts)),
		Metadata: metadata(run), Burstiness: num(resultkey.Burstiness), NumWarmups: int(num(resultkey.NumWarmups)),
		SaveDetailed: true, Version: str(resultkey.GobenchVersion), EndReason: str(resultkey.EndReason),
		Steady: rec.Steady, Client: rec.Client, Merge: merge,
	}
	if r.EndReason == "" {
		r.EndReason = report.EndCompleted
	}
	if w, ok := run.Object(resultkey.GobenchWorkload); ok {
		r.Workload = w
	}
	if s := str(resultkey.RampUpStrategy); s != "" {
		r.RampUp = &report.RampUp{Strategy: s, StartRPS: int(num(resultkey.RampUpStartRPS)), EndRPS: int(num(resultkey.RampUpEndRPS))}
	}
	for _, v := range offsets {
		f, _ := pyjson.Number(v)
		r.ScheduledOffsets = append(r.ScheduledOffsets, f)
	}
	return report.ResultObject(&rec.Metrics, r)
}

// metadata returns the --metadata pairs of run: ResultObject writes them
// between num_prompts and request_rate.
func metadata(run *resultfile.Run) []report.KV {
	var out []report.KV
	inside := false
	for _, k := range run.Keys() {
		switch {
		case k == resultkey.NumPrompts:
			inside = true
		case k == resultkey.RequestRate:
			return out
		case inside:
			v, _ := run.String(k)
			out = append(out, report.KV{Key: k, Value: v})
		}
	}
	return out
}
