// Command vllmratio prints `make bench-vs-vllm`'s figures: for each
// scenario (streams at once) of one or more runs of the side-by-side
// script (../shared/bench/perf_side_by_side.sh, one summary.jsonl per run),
// the client CPU per streamed event and the mean TTFT error of gobench and
// of vLLM's own client on the same mock server, and the ratios
// gobench/vLLM, per run and their median over the runs.
//
// A summary line is the script's:
//
//	{"scenario": "c64", "vllm": {"cpu_us_per_event": 40.1, "ttft_err": {"mean": 1.2, ...}, ...},
//	 "gobench": {...}}
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
)

// client is what the table reads of one client's side of a scenario.
type client struct {
	CPU     float64 `json:"cpu_us_per_event"`
	TTFTErr struct {
		Mean float64 `json:"mean"`
	} `json:"ttft_err"`
}

// line is one scenario of one run.
type line struct {
	Scenario string `json:"scenario"`
	VLLM     client `json:"vllm"`
	Gobench  client `json:"gobench"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: vllmratio SUMMARY.jsonl...")
		os.Exit(2)
	}
	var lines []line
	for _, path := range os.Args[1:] {
		ls, err := readSummary(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vllmratio:", err)
			os.Exit(1)
		}
		lines = append(lines, ls...)
	}
	if err := printTable(os.Stdout, lines); err != nil {
		fmt.Fprintln(os.Stderr, "vllmratio:", err)
		os.Exit(1)
	}
}

// readSummary reads one run's summary.jsonl.
func readSummary(path string) ([]line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// printTable writes a row per scenario and run, then per scenario the
// median of the runs' ratios.
func printTable(w io.Writer, lines []line) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tgobench µs/event\tvLLM µs/event\tCPU ratio\tgobench TTFT err ms\tvLLM TTFT err ms\tTTFT err ratio\t")
	cpu, ttft := map[string][]float64{}, map[string][]float64{}
	var order []string
	for _, l := range lines {
		if _, seen := cpu[l.Scenario]; !seen {
			order = append(order, l.Scenario)
		}
		c, t := l.Gobench.CPU/l.VLLM.CPU, l.Gobench.TTFTErr.Mean/l.VLLM.TTFTErr.Mean
		cpu[l.Scenario], ttft[l.Scenario] = append(cpu[l.Scenario], c), append(ttft[l.Scenario], t)
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", l.Scenario, l.Gobench.CPU, l.VLLM.CPU, c,
			l.Gobench.TTFTErr.Mean, l.VLLM.TTFTErr.Mean, t)
	}
	for _, s := range order {
		fmt.Fprintf(tw, "%s median of %d\t\t\t%.2f\t\t\t%.2f\t\n", s, len(cpu[s]), median(cpu[s]), median(ttft[s]))
	}
	return tw.Flush()
}

// median is the middle value of xs (the mean of the two middle ones for an
// even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
