package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gobench/gobench/internal/pyfmt"
)

// defaultNumPrompts is vLLM's DEFAULT_NUM_PROMPTS, the dataset size when
// neither the bench command nor the combination sets --num-prompts.
const defaultNumPrompts = 1000

// exploreWorkloads is serve_workload's explore_comb_workloads
// (vllm/benchmarks/sweep/serve_workload.py@11dfa3169): a serial run (max
// concurrency 1) and a batch run (max concurrency = the dataset size)
// bracket the load variable, then Iters-2 levels evenly between the two
// measured loads, rounded and without repeats.
func (s *sweeper) exploreWorkloads(ctx context.Context, sess *session, sc, bc Comb) ([]Point, error) {
	wl := s.o.Workload
	fmt.Fprintf(s.log, "[WL START]\nServe parameters: %s\nBench parameters: %s\nNumber of workload iterations: %d\n",
		orNone(sc.Text(", ")), orNone(bc.Text(", ")), wl.Iters)
	size, err := datasetSize(bc, s.o.BenchNumPrompts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(s.log, "Dataset size: %d\n", size)
	serial, err := s.runWorkload(ctx, sess, sc, bc.With("max_concurrency", 1), 1)
	if err != nil {
		return nil, err
	}
	batch, err := s.runWorkload(ctx, sess, sc, bc.With("max_concurrency", size), size)
	if err != nil {
		return nil, err
	}
	if s.o.DryRun {
		fmt.Fprintln(s.log, "Omitting intermediate Workload iterations.\n[WL END]")
		return nil, nil
	}
	if len(serial) == 0 || len(batch) == 0 {
		return nil, errors.New("the serial or the batch run failed: no load to explore between them")
	}
	lo := int(math.Ceil(estimateLoad(serial, wl.Var)))
	fmt.Fprintf(s.log, "Serial inference: %s=%d\n", wl.Var, lo)
	hi := int(math.Floor(estimateLoad(batch, wl.Var)))
	fmt.Fprintf(s.log, "Batch inference: %s=%d\n", wl.Var, hi)
	var mid []Point
	for _, v := range between(lo, hi, wl.Iters) {
		fmt.Fprintf(s.log, "Exploring: %s=%d\n", wl.Var, v)
		data, err := s.runWorkload(ctx, sess, sc, bc, v)
		if err != nil {
			return nil, err
		}
		mid = append(mid, data...)
	}
	fmt.Fprintln(s.log, "[WL END]")
	return slices.Concat(serial, mid, batch), nil
}

// runWorkload runs bc at one level of the load variable, in the folder
// named after bc and "WL-<var>=<value>" (run_comb_workload).
func (s *sweeper) runWorkload(ctx context.Context, sess *session, sc, bc Comb, value int) ([]Point, error) {
	v := s.o.Workload.Var
	dir := combDir(s.dir, sc, bc, "WL-", v+"="+strconv.Itoa(value))
	return s.runComb(ctx, sess, sc, bc.With(v, value), dir)
}

// datasetSize is the combination's num_prompts, else the bench command's
// --num-prompts (numPrompts), else vLLM's default.
func datasetSize(bc Comb, numPrompts int) (int, error) {
	v, ok := bc.Get("num_prompts")
	if !ok {
		if numPrompts > 0 {
			return numPrompts, nil
		}
		return defaultNumPrompts, nil
	}
	n, err := strconv.Atoi(pyfmt.Str(v))
	if err != nil {
		return 0, fmt.Errorf("the dataset size %q is not an integer", pyfmt.Str(v))
	}
	return n, nil
}

// estimateLoad is the mean over runs of the load a run sustained
// (_estimate_workload_value): its request throughput, times its mean
// end-to-end latency in seconds for max_concurrency (Little's law).
func estimateLoad(points []Point, variable string) float64 {
	total := 0.0
	for _, p := range points {
		v := number(p.Result, "request_throughput")
		if variable == "max_concurrency" {
			v *= number(p.Result, "mean_e2el_ms") / 1000
		}
		total += v
	}
	return total / float64(len(points))
}

// between is round(np.linspace(lo, hi, n)[1:-1]) without repeats, sorted;
// NumPy's round takes halves to even.
func between(lo, hi, n int) []int {
	var out []int
	step := float64(hi-lo) / float64(n-1)
	for i := 1; i < n-1; i++ {
		v := int(math.RoundToEven(float64(lo) + float64(i)*step))
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// orNone is s, or "(None)" when empty.
func orNone(s string) string {
	if s == "" {
		return "(None)"
	}
	return s
}
