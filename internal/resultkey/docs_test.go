package resultkey

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// presence says in words when a key of each kind of row is present.
var presence = map[when]string{
	always:             "always",
	withRampUp:         "with `--ramp-up-strategy`",
	perRequest:         "with `--save-detailed`",
	perRequestServer:   "with `--save-detailed`, when the server reports per-request metrics",
	cachedTokens:       "with `--report-cached-tokens`, when the server reports cached tokens",
	withProbes:         "with `--probe-request-rate`, when a probe succeeded",
	server:             "when the server publishes it",
	detailedOnly:       "with `--save-detailed` (gobench)",
	endReason:          "in `gobench serve`'s results, and with `--save-detailed`",
	workload:           "in `gobench serve`'s results",
	multiTurn:          "with `--multi-turn`",
	multiTurnDetailed:  "with `--multi-turn` and `--save-detailed`",
	steadyState:        "in `gobench serve`'s generation runs",
	clientLoad:         "in `gobench serve`'s runs on a schedule",
	clientLoadDetailed: "in `gobench serve`'s runs on a schedule, with `--save-detailed`",
	sharded:            "in a shard's result",
	merged:             "in `gobench merge`'s result",
}

// TestResultKeysPage keeps docs/result-keys.md, the reference list of the
// latency metrics and of the result file's keys, equal to the tables of
// this package: `go test ./internal/resultkey -run TestResultKeysPage
// -update` writes it again after a change.
func TestResultKeysPage(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Result keys\n\n" +
		"The latency metrics and the keys of a result file, in file order. This page is generated from\n" +
		"`internal/resultkey` (`go test ./internal/resultkey -run TestResultKeysPage -update`); what each\n" +
		"key holds is described in `internal/report/doc.go`, how the metrics are computed in\n" +
		"[metrics.md](metrics.md), gobench's own objects in [results.md](results.md).\n\n" +
		"## Latency metrics\n\n" +
		"Each is a section of the printed block and the statistic keys `mean_{m}_ms`, `median_{m}_ms`,\n" +
		"`std_{m}_ms` and `p{P}_{m}_ms` (one per `--metric-percentiles` value) of the result.\n\n" +
		"| `--percentile-metrics` name `{m}` | printed as | section | reported |\n|---|---|---|---|\n")
	for _, m := range Metrics() {
		reported := "when `--percentile-metrics` names it"
		switch {
		case m.ClientQueue:
			reported = "with `--max-concurrency`, named or not"
		case m.NeedsTokenizer:
			reported += ", with a tokenizer"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Key, m.Name, m.Header, reported)
	}
	b.WriteString("\n## Keys\n\n| key | present | kind | better |\n|---|---|---|---|\n")
	for _, r := range schema {
		text, ok := presence[r.when]
		if !ok && r.when != statistics {
			t.Fatalf("no words for when %d (of %q)", r.when, r.key)
		}
		if r.when == statistics {
			b.WriteString("| the statistic keys of each latency section | as the section | measurement | lower |\n")
			continue
		}
		kind := "measurement"
		if r.setting {
			kind = "setting"
		}
		if r.generation {
			text += "; not in pooling results"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.key, text, kind, r.better)
	}
	golden.CheckFile(t, "../../docs/result-keys.md", []byte(b.String()))
}
