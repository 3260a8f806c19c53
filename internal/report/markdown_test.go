package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
)

// TestMarkdown renders every golden scenario of TestText as Markdown: the
// same figures, the same conditional lines.
func TestMarkdown(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			r := metrics.Calculate(sc.outputs, sc.dur, sc.cfg)
			var buf bytes.Buffer
			if err := Markdown(&buf, &r, sc.spec, "gobench serve: model_*x* | "+sc.name); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, buf.Bytes())
		})
	}
}

// TestMarkdownMatchesText: every value line of the printed block appears
// in the Markdown table with the same value.
func TestMarkdownMatchesText(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios(t) {
		r := metrics.Calculate(sc.outputs, sc.dur, sc.cfg)
		var text, md bytes.Buffer
		if err := Text(&text, &r, nil); err != nil {
			t.Fatal(err)
		}
		if err := Markdown(&md, &r, nil, ""); err != nil {
			t.Fatal(err)
		}
		for _, l := range summaryLines(&r) {
			if !strings.Contains(text.String(), ljust(l.label+":", labelWidth)+" "+ljust(l.value, valueWidth)) {
				t.Errorf("%s: block lacks %q %q", sc.name, l.label, l.value)
			}
			if !strings.Contains(md.String(), "| "+l.label+" | "+l.value+" |") {
				t.Errorf("%s: markdown lacks %q %q", sc.name, l.label, l.value)
			}
		}
		if got, want := strings.Count(text.String(), "\n"), strings.Count(md.String(), "\n"); want < len(summaryLines(&r)) || got < len(summaryLines(&r)) {
			t.Errorf("%s: %d text lines, %d markdown lines", sc.name, got, want)
		}
	}
}
