package htmlreport

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/pyjson"
)

// serverDoc is the part of a server_view object the page draws as HTML
// (serverview draws the same object as the run's text section).
type serverDoc struct {
	WindowS *float64 `json:"window_s"`
	Server  *struct {
		Name    string  `json:"name"`
		Metrics *string `json:"metrics"`
	} `json:"server"`
	Rows []struct {
		Metric       string     `json:"metric"`
		ServerMetric string     `json:"server_metric"`
		Client       *msFigures `json:"client"`
		Server       *msFigures `json:"server"`
		Gap          *float64   `json:"gap_mean"`
		Why          string     `json:"why"`
	} `json:"client_vs_server"`
	Findings []struct {
		Step       int     `json:"step"`
		Question   string  `json:"question"`
		Status     string  `json:"status"`
		Conclusion string  `json:"conclusion"`
		Advice     *string `json:"advice"`
		Verdict    *string `json:"verdict"`
		Evidence   []struct {
			Text string `json:"text"`
		} `json:"evidence"`
	} `json:"findings"`
	Verdict       string   `json:"verdict"`
	VerdictReason *string  `json:"verdict_reason"`
	Notes         []string `json:"notes"`
}

// msFigures are one side's figures of a row, in seconds.
type msFigures struct {
	Mean *float64 `json:"mean"`
	P99  *float64 `json:"p99"`
}

// serverHTML draws a server_view object: which server, the verdict, the
// client's figures beside the server's, and the diagnosis' questions.
func serverHTML(o *pyjson.Object) (template.HTML, error) {
	raw, err := pyjson.AppendCompact(nil, o)
	if err != nil {
		return "", fmt.Errorf("server view: %w", err)
	}
	var v serverDoc
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("server view: %w", err)
	}
	var b strings.Builder
	if v.Server != nil && v.Server.Metrics != nil {
		fmt.Fprintf(&b, `<p>Server: %s (%s metrics)`, esc(v.Server.Name), esc(*v.Server.Metrics))
		if v.WindowS != nil {
			fmt.Fprintf(&b, `, over %.1f s`, *v.WindowS)
		}
		b.WriteString(`.</p>`)
	}
	// The headline hedges as the diagnosis prints it.
	hedge := diagnose.Hedge(unconfirmed(o))
	fmt.Fprintf(&b, `<p class="gb-verdict">Verdict: <strong>%s</strong>%s%s</p>`, esc(v.Verdict), esc(hedge), esc(advice(&v)))
	if v.VerdictReason != nil {
		fmt.Fprintf(&b, `<p class="gb-note">%s</p>`, esc(*v.VerdictReason))
	}
	if len(v.Rows) > 0 {
		t := table{Caption: "The client's figures beside the server's (ms)",
			Head: []string{"metric", "client mean", "server mean", "gap", "client p99", "server p99", "what the gap is"}}
		for _, r := range v.Rows {
			name := strings.ToUpper(r.Metric)
			if r.ServerMetric != "" && r.Server != nil {
				name += " (" + r.ServerMetric + ")"
			}
			t.Rows = append(t.Rows, []string{name, sideMS(r.Client, false), sideMS(r.Server, false), msText(r.Gap),
				sideMS(r.Client, true), sideMS(r.Server, true), r.Why})
		}
		b.WriteString(string(tableHTML(t, nil)))
	}
	b.WriteString(findingsHTML(&v))
	for _, n := range v.Notes {
		fmt.Fprintf(&b, `<p class="gb-note">Note: %s</p>`, esc(n))
	}
	return template.HTML(b.String()), nil // every text escaped
}

// advice is the advice of the finding that named the verdict, " — ..."
// or "".
func advice(v *serverDoc) string {
	for _, f := range v.Findings {
		if f.Verdict != nil && *f.Verdict == v.Verdict && f.Advice != nil {
			return " — " + *f.Advice
		}
	}
	return ""
}

// findingsHTML lists the questions the diagnosis asked, each with its
// status and conclusion, and the evidence of those that located a cause.
func findingsHTML(v *serverDoc) string {
	var b strings.Builder
	b.WriteString(`<ol class="gb-findings">`)
	for _, f := range v.Findings {
		if f.Status == "not asked" {
			continue
		}
		status := strings.ReplaceAll(f.Status, " ", "-")
		fmt.Fprintf(&b, `<li value="%d">%s <span class="gb-status gb-status-%s">%s</span> %s`,
			f.Step, esc(f.Question), esc(status), esc(f.Status), esc(f.Conclusion))
		if f.Status == "located" && len(f.Evidence) > 0 {
			b.WriteString(`<ul>`)
			for _, e := range f.Evidence {
				fmt.Fprintf(&b, `<li>%s</li>`, esc(e.Text))
			}
			b.WriteString(`</ul>`)
		}
		b.WriteString(`</li>`)
	}
	b.WriteString(`</ol>`)
	return b.String()
}

// sideMS is a side's mean or p99 in ms, "-" when unknown.
func sideMS(f *msFigures, p99 bool) string {
	if f == nil {
		return "-"
	}
	if p99 {
		return msText(f.P99)
	}
	return msText(f.Mean)
}

// msText writes seconds as milliseconds with two decimals.
func msText(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return "-"
	}
	return strconv.FormatFloat(*v*1000, 'f', 2, 64)
}
