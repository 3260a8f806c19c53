package servermetrics

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestFilterPage keeps the families gobench reads and bounds them, with a
// note for each thing dropped; the limits are small so that the page is.
func TestFilterPage(t *testing.T) {
	t.Parallel()
	lim := limits{line: 80, family: 3, samples: 6, bytes: 1 << 20}
	var page strings.Builder
	page.WriteString("# HELP python_gc_objects_collected_total Objects collected.\n# TYPE python_gc_objects_collected_total counter\n")
	for i := range 5 {
		fmt.Fprintf(&page, "python_gc_objects_collected_total{generation=\"%d\"} 1\n", i)
	}
	page.WriteString("# TYPE vllm:num_requests_running gauge\n")
	for i := range 5 { // 2 over the family bound
		fmt.Fprintf(&page, "vllm:num_requests_running{engine=\"%d\"} 1\n", i)
	}
	// Over the line bound:
	fmt.Fprintf(&page, "vllm:num_requests_waiting{x=%q} 1\n", strings.Repeat("a", 100))
	// 3 over the page's sample bound (3 + 3 = 6):
	for i := range 5 {
		fmt.Fprintf(&page, "llamacpp:requests_deferred{slot=\"%d\"} 1\n", i)
	}
	page.WriteString("process_start_time_seconds 5\n")
	kept, lines, notes, err := filterPage([]byte(page.String()), lim)
	if err != nil {
		t.Fatal(err)
	}
	want := `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0"} 1
vllm:num_requests_running{engine="1"} 1
vllm:num_requests_running{engine="2"} 1
llamacpp:requests_deferred{slot="0"} 1
llamacpp:requests_deferred{slot="1"} 1
llamacpp:requests_deferred{slot="2"} 1
`
	if string(kept) != want {
		t.Errorf("kept\n%s\nwant\n%s", kept, want)
	}
	if fmt.Sprint(lines) != "[8 9 10 11 15 16 17]" {
		t.Errorf("line numbers %v", lines)
	}
	wantNotes := []string{
		"vllm:num_requests_running had more than 3 samples: the first 3 were read",
		"the page had more than 6 samples (or 1,048,576 bytes) of families gobench reads: 3 more were not read",
		"1 sample lines longer than 80 bytes were not read",
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
}

// TestParseDropsUnread: a page of families gobench does not read costs a
// line scan, and the report says how many samples it dropped once they
// are many.
func TestParseDropsUnread(t *testing.T) {
	t.Parallel()
	var page bytes.Buffer
	for i := range droppedNoteFrom {
		fmt.Fprintf(&page, "app_requests_total{user=\"u%d\"} %d\n", i, i)
	}
	page.WriteString("vllm:num_requests_running 2\n")
	s := mustParse(t, page.String())
	if g, ok := s.Gauge(Running); !ok || g.Sum != 2 {
		t.Errorf("running %+v %v", g, ok)
	}
	if len(s.Names()) != 1 {
		t.Errorf("families %v", s.Names())
	}
	if want := "dropped 10,000 samples of families gobench does not read"; len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0], want) {
		t.Errorf("notes %q, want one starting %q", s.Notes, want)
	}
}

// TestFilterPageErrors: a malformed line is an error naming its line in
// the page, whether its family is read (expfmt's error, its line mapped
// back from the kept page) or not (the filter's own check).
func TestFilterPageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		page string
		line int
	}{
		{"app_a 1\napp_b{x=\"1\" 2\n", 2},
		{"app_a 1\napp_b 1 2 3\n", 2},
		{"app_a one\n", 1},
		{"app_a 1\napp_a 2\nvllm:x 1\n# TYPE vllm:y counter\nvllm:y{a=\"b\" 2\n", 5},
		{"{\"app.a\" 1\n", 1},
	} {
		_, err := Parse([]byte(tt.page))
		var pe expfmt.ParseError
		if !errors.As(err, &pe) || pe.Line != tt.line {
			t.Errorf("Parse(%q) = %v, want a parse error in line %d", tt.page, err, tt.line)
		}
	}
}

// TestTypeLines: a family declared twice, or after its samples, would
// make expfmt refuse the whole page; the first declaration is read and
// the conflict noted.
func TestTypeLines(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `# TYPE vllm:num_preemptions counter
# TYPE vllm:num_preemptions gauge
vllm:num_preemptions_total 3
vllm:num_requests_running 2
# TYPE vllm:num_requests_running gauge
`)
	if v, ok := s.Counter(Preemptions); !ok || v != 3 {
		t.Errorf("preemptions %v %v", v, ok)
	}
	if g, ok := s.Gauge(Running); !ok || g.Sum != 2 {
		t.Errorf("running %+v %v", g, ok)
	}
	want := []string{
		"vllm:num_preemptions: a second # TYPE line (gauge after counter): the first is read",
		"vllm:num_requests_running: a # TYPE line (gauge) after its samples: ignored",
	}
	if strings.Join(s.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes %q", s.Notes)
	}
}

// FuzzFilterPage checks the filter against expfmt: a page expfmt's text
// parser accepts is never refused by the filter's own syntax check, and
// what is kept is lines of the page.
func FuzzFilterPage(f *testing.F) {
	for _, seed := range []string{
		windowStart, "app 1\n", "app{a=\"}\"} 1 2\n", "{\"a.b\",x=\"1\"} 1\n", "app 1e400\n", "app 0x1p3\n",
		"# TYPE a counter\na_total 1\n# EOF\n", "app{a=\"\\\"\"} NaN\n", "app +Inf 12\n", "app 1 # {a=\"b\"} 1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, lines, _, err := filterPage(data, pageLimits())
		if err != nil {
			p := expfmt.NewTextParser(model.UTF8Validation)
			if _, perr := p.TextToMetricFamilies(bytes.NewReader(data)); perr == nil {
				t.Fatalf("the filter refuses a page expfmt reads: %v", err)
			}
			return
		}
		if n := bytes.Count(kept, []byte("\n")); n != len(lines) {
			t.Fatalf("%d kept lines, %d line numbers", n, len(lines))
		}
		for _, l := range bytes.SplitAfter(kept, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 && !bytes.Contains(data, bytes.TrimSpace(l)) {
				t.Fatalf("kept %q, which the page does not have", l)
			}
		}
	})
}
