package diagnose

import (
	"strings"
	"testing"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// unconfirmedCases are the verdict cases of verdictCases whose cause the
// page does not show, with what their headline says is missing; every
// other case's verdict is confirmed.
var unconfirmedCases = map[string]string{
	"seq limit, max_num_seqs unknown":    "max_num_seqs not known, give --max-num-seqs",
	"memory full, no preemption counter": "no preemption counter, thrashing not ruled out",
	"prefill interference":               "inferred from the ITL tail; prefill steps are not observed",
}

// TestVerdictHeadlines: for every verdict case, a verdict the evidence
// does not confirm says so in its headline, and one it confirms does not
// hedge.
func TestVerdictHeadlines(t *testing.T) {
	t.Parallel()
	noCounter := scenario(1.2, 1.0, 0.1, smoothITL()).gauge(sm.Waiting, 40).gauge(sm.KVUsage, 0.95)
	delete(noCounter.counters, sm.Preemptions)
	cases := append(verdictCases(), verdictCase{"memory full, no preemption counter", noCounter, 0, QueueMemoryFull, 3, 0})
	for _, tt := range cases {
		if tt.want == "" {
			continue // the deferred case, built in TestVerdicts
		}
		o := DefaultOptions()
		o.MaxNumSeqs, o.Thresholds.ExpectedPrefixHitRate = tt.maxNumSeqs, tt.expectHit
		r, err := FromScrapes(Input{Sources: []string{"p"}, End: [][]byte{tt.page.bytes()}}, o)
		if err != nil {
			t.Fatal(err)
		}
		want := unconfirmedCases[tt.name]
		if r.Verdict != tt.want || r.VerdictUnconfirmed != want {
			t.Errorf("%s: verdict %s unconfirmed %q, want %s %q", tt.name, r.Verdict, r.VerdictUnconfirmed, tt.want, want)
		}
		var text strings.Builder
		if err := r.Render(&text, "text"); err != nil {
			t.Fatal(err)
		}
		headline := "\nVerdict: " + string(tt.want) + Hedge(want) + "\n"
		if !strings.Contains(text.String(), headline) {
			t.Errorf("%s: no headline %q in\n%s", tt.name, headline, text.String())
		}
	}
}

// TestIdleSamplesUnconfirmed: requests waited, but every state sample
// shows an idle server: the sequence limit is a guess, and the headline
// says so.
func TestIdleSamplesUnconfirmed(t *testing.T) {
	t.Parallel()
	idle := scenario(1.2, 1.0, 0.1, smoothITL()).gauge(sm.Running, 0).gauge(sm.Waiting, 0)
	r, err := FromScrapes(Input{End: [][]byte{idle.bytes()}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != QueueSeqLimit || r.VerdictUnconfirmed != "every state sample shows an idle server" {
		t.Errorf("verdict %s unconfirmed %q\n%s", r.Verdict, r.VerdictUnconfirmed, findingsText(r))
	}
}
