package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/analyze"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// card is one figure at the top of the page: what a reader checks first.
type card struct {
	Label, Value, Sub string
	// Class colours the card ("gb-bad" for failures, "gb-warn" for a
	// server verdict that found a cause) or widens it ("gb-wide-card").
	Class string
}

// cardRow is one run's cards.
type cardRow struct {
	Label string
	Cards []card
}

// cardRows are the runs' cards, one row per run, from the result's keys
// (and the per-request data where a key is missing).
func cardRows(runs []*runData) []cardRow {
	out := make([]cardRow, 0, len(runs))
	for _, d := range runs {
		row := cardRow{Cards: runCards(d)}
		if len(runs) > 1 {
			row.Label = d.label
		}
		out = append(out, row)
	}
	return out
}

// runCards are requests, failures, throughput, TTFT, ITL and E2EL p50 and
// p99, the goodput when --goodput was set and the server's verdict when
// the run read the server.
func runCards(d *runData) []card {
	r := d.run
	completed, _ := r.Number(resultkey.Completed)
	failed, ok := r.Number(resultkey.Failed)
	if !ok {
		if n, ok := r.Number(resultkey.NumPrompts); ok {
			failed = math.Max(n-completed, 0)
		}
	}
	total := completed + failed
	cards := []card{{Label: "Requests", Value: whole(total), Sub: whole(completed) + " completed"}}
	f := card{Label: "Failed", Value: whole(failed), Sub: "none"}
	if failed > 0 {
		f.Class = "gb-bad"
		f.Sub = fmt.Sprintf("%.1f %% of the requests", 100*failed/math.Max(total, 1))
		if kinds := d.failureKinds(); len(kinds) > 0 {
			f.Sub = fmt.Sprintf("%.1f %%, most %s", 100*failed/math.Max(total, 1), kinds[0].Kind)
		}
	}
	cards = append(cards, f)
	if v, ok := r.Number(resultkey.RequestThroughput); ok {
		c := card{Label: "Throughput", Value: resultfile.FormatFloat(v) + " req/s"}
		if o, ok := r.Number(resultkey.OutputThroughput); ok {
			c.Sub = resultfile.FormatFloat(o) + " tok/s out"
		}
		cards = append(cards, c)
	}
	for _, m := range []struct{ key, title string }{{"ttft", "TTFT"}, {"itl", "ITL"}, {"e2el", "E2EL"}} {
		p50, p99 := quantile(d, m.key, 50), quantile(d, m.key, 99)
		if p50 == "" && p99 == "" {
			continue
		}
		cards = append(cards, card{Label: m.title + " p50", Value: orDash(p50) + " ms", Sub: "p99 " + orDash(p99) + " ms"})
	}
	if g, ok := r.Number(resultkey.RequestGoodput); ok {
		c := card{Label: "Goodput", Value: resultfile.FormatFloat(g) + " req/s"}
		if t, ok := r.Number(resultkey.RequestThroughput); ok && t > 0 {
			c.Sub = fmt.Sprintf("%.1f %% within SLOs", 100*g/t)
		}
		cards = append(cards, c)
	}
	if c, ok := verdictCard(d); ok {
		cards = append(cards, c)
	}
	return cards
}

// quantile is the run's p-th percentile of a latency metric in ms as
// the file holds it (median for 50), else computed from the per-request
// values; "" when neither is there.
func quantile(d *runData, metric string, p int) string {
	keys := []string{fmt.Sprintf("p%d_%s_ms", p, metric)}
	if p == 50 {
		keys = append([]string{"median_" + metric + "_ms"}, keys...)
	}
	for _, k := range keys {
		if v, ok := d.run.Number(k); ok {
			return resultfile.FormatFloat(v)
		}
	}
	if v := d.values(metric); len(v) > 0 {
		return resultfile.FormatFloat(metrics.Percentile(v, float64(p)))
	}
	return ""
}

// verdictCard is the server view's verdict, with the reason the
// diagnosis gives or the advice of the finding that named it.
func verdictCard(d *runData) (card, bool) {
	view := analyze.ServerView(d.run)
	if view == nil {
		return card{}, false
	}
	v, ok := view.Get("verdict")
	verdict, _ := v.(string)
	if !ok || verdict == "" {
		return card{}, false
	}
	c := card{Label: "Server verdict", Value: verdict, Class: "gb-wide-card"}
	if verdict != "healthy" && verdict != "unknown" {
		c.Class += " gb-warn"
	}
	if r, ok := view.Get("verdict_reason"); ok {
		if s, ok := r.(string); ok {
			c.Sub = s
		}
	}
	// A verdict whose cause the evidence does not show says so in its
	// headline, as the diagnosis prints it.
	if u := unconfirmed(view); u != "" {
		c.Label += ", unconfirmed"
		c.Sub = "unconfirmed: " + u
	}
	return c, true
}

// unconfirmed is what the server view's verdict lacks to be confirmed
// (its verdict_unconfirmed), "" for a confirmed verdict.
func unconfirmed(view interface{ Get(string) (any, bool) }) string {
	v, _ := view.Get("verdict_unconfirmed")
	s, _ := v.(string)
	return s
}

// sweepCards are a sweep's points and its peaks (the load each was
// reached at), and the SLA search's answer when there is one.
func sweepCards(s *Sweep) []card {
	cards := []card{{Label: "Points", Value: strconv.Itoa(len(s.Points))}}
	load := s.loadKey()
	for _, k := range []struct{ key, label, unit string }{
		{resultkey.RequestThroughput, "Peak throughput", " req/s"},
		{resultkey.OutputThroughput, "Peak output", " tok/s"},
	} {
		best, at := math.Inf(-1), ""
		for _, p := range s.Points {
			if v := num(p, k.key); v > best {
				best, at = v, loadText(p, load)
			}
		}
		if !math.IsInf(best, -1) {
			cards = append(cards, card{Label: k.label, Value: resultfile.FormatFloat(best) + k.unit, Sub: "at " + load + " " + at})
		}
	}
	if s.SLA != nil {
		if a := num(s.SLA, "answer"); !math.IsNaN(a) {
			v, _ := s.SLA.Get("sla_variable")
			name, _ := v.(string)
			cards = append(cards, card{Label: "SLA answer", Value: strconv.FormatFloat(a, 'f', -1, 64), Sub: "largest " + name + " meeting the objectives"})
		}
	}
	return cards
}

// whole writes a count.
func whole(v float64) string { return fmt.Sprintf("%.0f", v) }

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cardsHTML draws the rows of cards.
func cardsHTML(rows []cardRow) template.HTML {
	var b strings.Builder
	b.WriteString(`<div class="gb-cards-all">`)
	for _, r := range rows {
		if r.Label != "" {
			fmt.Fprintf(&b, `<div class="gb-cards-run">%s</div>`, esc(r.Label))
		}
		b.WriteString(`<div class="gb-cards">`)
		for _, c := range r.Cards {
			fmt.Fprintf(&b, `<div class="gb-card %s"><div class="gb-card-label">%s</div><div class="gb-card-value">%s</div>`,
				c.Class, esc(c.Label), esc(c.Value))
			if c.Sub != "" {
				fmt.Fprintf(&b, `<div class="gb-card-sub">%s</div>`, esc(c.Sub))
			}
			b.WriteString(`</div>`)
		}
		b.WriteString(`</div>`)
	}
	b.WriteString(`</div>`)
	return template.HTML(b.String()) // every text escaped above
}

// esc escapes text for HTML.
func esc(s string) string { return template.HTMLEscapeString(s) }
