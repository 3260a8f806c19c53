package run

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// TestTokenizerLetGoDuringRun: a run lets its tokenizer (a tokenizer.json
// on disk) go while the requests are out and loads it again to count what
// the server did not report (half the streams carry no usage) and for the
// usage check. Its result must be that of the same run with the tokenizer
// kept: the output lengths counted, the totals, the warnings.
func TestTokenizerLetGoDuringRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, tinyTokenizer(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var faults sim.Faults
	faults.Set(sim.FaultNoUsage, sim.FaultRule{Rate: 0.5})
	faults.Set(sim.FaultWrongUsage, sim.FaultRule{Rate: 0.25})
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond, Tokenizer: tok, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	run := func(keep bool) (map[string]any, string, tokenizer.Tokenizer) {
		o := baseOptions(srv.URL)
		o.Tokenizer, o.NumPrompts, o.Seed = path, 40, 7
		o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, t.TempDir()
		var b buffers
		p, err := NewPlan(context.Background(), o, b.env())
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			p.tokSrc.reloadable = false
		}
		res, err := p.Execute(context.Background(), b.env())
		if err != nil {
			t.Fatalf("keep %v: %v\n%s", keep, err, b.err.String())
		}
		return readResult(t, res.File), b.err.String(), p.Tokenizer
	}
	let, letErr, letTok := run(false)
	kept, keptErr, keptTok := run(true)
	if _, ok := letTok.(*reloading); !ok {
		t.Errorf("the run kept its tokenizer (%T), want it let go", letTok)
	}
	if _, ok := keptTok.(*reloading); ok {
		t.Errorf("the run with reloadable false let its tokenizer go")
	}
	if err := tokenizer.Err(letTok); err != nil {
		t.Errorf("loading it again: %v", err)
	}
	for _, k := range []string{"output_lens", "input_lens", "total_output_tokens", "total_input_tokens", "generated_texts", "tokenizer_id", "completed"} {
		if diff := cmp.Diff(kept[k], let[k]); diff != "" {
			t.Errorf("%s (-kept +let go):\n%s", k, diff)
		}
	}
	warned := func(s string) bool { return strings.Contains(s, "usage.completion_tokens differs") }
	if warned(letErr) != warned(keptErr) || !warned(keptErr) {
		t.Errorf("usage warning: let go %v, kept %v (want both)\n%s", warned(letErr), warned(keptErr), letErr)
	}
}

// TestTokenizerChangedDuringRun: a tokenizer.json replaced while the
// requests are out is noticed when it is loaded again after the run, and
// the run warns that its counts came from the changed file; the same file
// left alone gives no warning.
func TestTokenizerChangedDuringRun(t *testing.T) {
	t.Parallel()
	srv := startSim(t, time.Millisecond, 100*time.Microsecond)
	other, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "unit", "gpt2.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, replace := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "tokenizer.json")
		if err := os.WriteFile(path, tinyTokenizer(t), 0o644); err != nil {
			t.Fatal(err)
		}
		o := baseOptions(srv.URL)
		o.Tokenizer, o.NumPrompts = path, 4
		var b buffers
		p, err := NewPlan(context.Background(), o, b.env())
		if err != nil {
			t.Fatal(err)
		}
		if replace {
			if err := os.WriteFile(path, other, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Execute(context.Background(), b.env()); err != nil {
			t.Fatalf("replace %v: %v\n%s", replace, err, b.err.String())
		}
		_ = p.Tokenizer.Encode("x", false) // loaded again if the run did not
		err = tokenizer.Err(p.Tokenizer)
		if changed := err != nil && strings.Contains(err.Error(), "its files changed during the run"); changed != replace {
			t.Errorf("replace %v: tokenizer error %v", replace, err)
		}
	}
}
