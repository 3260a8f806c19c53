package benchrow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendThenRead(t *testing.T) {
	name := filepath.Join(t.TempDir(), "rows.jsonl")
	a := []Row{{Group: "cpu", Figure: "gobench, 512 streams", Value: 6.8, Unit: "µs/event", Target: "<= 7 µs/event", Met: Judged(true), Note: "n"}}
	b := []Row{{Group: "memory", Figure: "peak", Value: 0, Unit: "MB"}}
	if err := Append(name, a); err != nil {
		t.Fatal(err)
	}
	if err := Append(name, b); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := Read(f, name)
	if err != nil {
		t.Fatal(err)
	}
	// A value of 0 is a value: only a missing one is refused.
	if diff := cmp.Diff(append(a, b...), got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestBadRowNamesFileAndLine(t *testing.T) {
	for _, in := range []string{
		"{}\n{\"group\":\"cpu\"}\n",
		"\n{\"group\":\"cpu\",\"figure\":\"x\",\"value\":1,\"extra\":2}\n",
		"{\"group\":\"cpu\",\"figure\":\"x\",\"value\":1}\nnot json\n",
	} {
		_, err := Read(strings.NewReader(in), "rows.jsonl")
		if err == nil || !strings.Contains(err.Error(), "rows.jsonl:") {
			t.Errorf("%q: error %v, want one naming rows.jsonl and the line", in, err)
		}
	}
}
