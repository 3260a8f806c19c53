package htmlreport

import (
	"fmt"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// headerKeys are what was run, in the header's order.
var headerKeys = []string{
	resultkey.Label, resultkey.Backend, resultkey.ModelID, resultkey.TokenizerID, resultkey.NumPrompts,
	resultkey.RequestRate, resultkey.Burstiness, resultkey.MaxConcurrency, resultkey.Date,
	resultkey.GobenchVersion, resultkey.EndReason,
}

// headerSection is what was run (the result's settings and its
// gobench_workload) and vLLM's result block as a table, folded at the end
// of the page: the cards at the top carry what a reader checks first.
func headerSection(d *runData, several bool) section {
	title := "Settings and result block"
	if several {
		title += ": " + d.label
	}
	s := section{Title: title, Fold: true}
	if d.run.Name() != "" {
		s.Notes = append(s.Notes, "File: "+d.run.Name())
	}
	set := table{Caption: "What was run", Head: []string{"setting", "value"}}
	if w, ok := d.run.Object(resultkey.GobenchWorkload); ok {
		if c, ok := w.Get(resultkey.WorkloadCommand); ok {
			if cmd, ok := c.(string); ok {
				set.Rows = append(set.Rows, []string{"target", target(cmd)})
			}
		}
	}
	for _, k := range headerKeys {
		if d.run.Has(k) {
			set.Rows = append(set.Rows, []string{k, d.run.Display(k)})
		}
	}
	if w, ok := d.run.Object(resultkey.GobenchWorkload); ok {
		for _, k := range w.Keys() {
			v, _ := w.Get(k)
			set.Rows = append(set.Rows, []string{k, scalar(v)})
		}
	}
	s.Tables = append(s.Tables, set)
	if t, ok := blockTable(blockText(d.run)); ok {
		s.Tables = append(s.Tables, t)
		return s
	}
	res := table{Caption: "Result (the file's keys)", Head: []string{"key", "value"}}
	for _, k := range d.run.Keys() {
		if d.run.IsNumeric(k) {
			res.Rows = append(res.Rows, []string{k, d.run.Display(k)})
		}
	}
	s.Tables = append(s.Tables, res)
	return s
}

// scalar is a workload value as text: JSON for lists and objects.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case *pyjson.Object, []any:
		b, err := pyjson.AppendCompact(nil, x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
	return fmt.Sprint(v)
}

// blockTable turns vLLM's printed block ("Label:   value" lines under
// "====" and "----" headings) into a table: a heading is a row with one
// cell.
func blockTable(text string) (table, bool) {
	if text == "" {
		return table{}, false
	}
	t := table{Caption: "Result (vLLM's block)", Head: []string{"metric", "value"}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "=") || strings.HasPrefix(line, "-"):
			h := strings.TrimSpace(strings.Trim(line, "=-"))
			if h != "" {
				t.Rows = append(t.Rows, []string{h})
			}
		default:
			i := strings.LastIndex(line, ":")
			if i < 0 {
				t.Rows = append(t.Rows, []string{line})
				continue
			}
			t.Rows = append(t.Rows, []string{strings.TrimSpace(line[:i+1]), strings.TrimSpace(line[i+1:])})
		}
	}
	return t, true
}

// sweepSections are the sweep's table and charts and the SLA search.
func sweepSections(s *Sweep) []section {
	var secs []section
	if len(s.Points) > 0 {
		t := table{Caption: "sweep_table.json"}
		seen := map[string]bool{}
		for _, p := range s.Points {
			for _, k := range p.Keys() {
				if v, _ := p.Get(k); isComposite(v) {
					continue // per-request lists of vLLM's summary.json
				}
				if !seen[k] {
					seen[k] = true
					t.Head = append(t.Head, k)
				}
			}
		}
		for _, p := range s.Points {
			row := make([]string, len(t.Head))
			for i, k := range t.Head {
				row[i] = "-"
				if v, ok := p.Get(k); ok {
					row[i] = cellText(v)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		secs = append(secs, section{Title: "Sweep: " + s.Dir, Charts: sweepCharts(s)},
			section{Title: fmt.Sprintf("The sweep's table (%d points)", len(s.Points)), Tables: []table{t}, Fold: true})
	}
	if s.SLA != nil {
		secs = append(secs, slaSection(s))
	}
	return secs
}

// cellText is a table value: numbers with two decimals, integers whole.
func cellText(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("%.2f", x)
	case nil:
		return "-"
	}
	return scalar(v)
}

// slaSection is the SLA search's answer and its points.
func slaSection(s *Sweep) section {
	sec := section{Title: "SLA search"}
	v, _ := s.SLA.Get("sla_variable")
	variable, _ := v.(string)
	crit, _ := s.SLA.Get("criteria")
	ans, _ := s.SLA.Get("answer")
	iv, _ := s.SLA.Get("answer_interval")
	stop, _ := s.SLA.Get("stop")
	sec.Notes = append(sec.Notes,
		fmt.Sprintf("Largest %s meeting %s: %s (interval %s; stopped: %s).", variable, scalar(crit), cellText(ans), scalar(iv), scalar(stop)))
	t := table{Caption: "Points tried", Head: []string{variable, "attempt", "requests", "req/s", "good share", "kept up", "verdict", "file"}}
	pl, _ := s.SLA.Get("points")
	list, _ := pl.([]any)
	for _, e := range list {
		p, ok := e.(*pyjson.Object)
		if !ok {
			continue
		}
		row := []string{}
		for _, k := range []string{variable, "attempt", "num_prompts", "request_throughput", "good_share", "kept_up", "verdict", "file"} {
			val, _ := p.Get(k)
			row = append(row, cellText(val))
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []table{t}
	if c := slaChart(s); c != nil {
		sec.Charts = []*chart{c}
	}
	return sec
}

// isComposite tells a list or an object from a scalar.
func isComposite(v any) bool {
	switch v.(type) {
	case []any, *pyjson.Object:
		return true
	}
	return false
}

// target is the server a run's recorded command line sent to (its
// credentials already redacted by the recording): the simulator for
// --sim, else --base-url, else vLLM's http://{--host}:{--port} (defaults
// 127.0.0.1 and 8000), with --endpoint when given. Result files keep no
// separate key for it. The recorded line writes each flag as
// --name=value (shell-quoted where needed).
func target(command string) string {
	flags := map[string]string{}
	for _, w := range strings.Fields(command) {
		name, value, _ := strings.Cut(strings.Trim(w, "'"), "=")
		if strings.HasPrefix(name, "--") {
			flags[name] = strings.Trim(value, "'")
		}
	}
	if _, ok := flags["--sim"]; ok {
		return "gobench's simulator (--sim)"
	}
	base := flags["--base-url"]
	if base == "" {
		host, port := flags["--host"], flags["--port"]
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "8000"
		}
		base = "http://" + host + ":" + port
	}
	return base + flags["--endpoint"]
}
