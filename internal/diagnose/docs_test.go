package diagnose

import (
	"slices"
	"testing"

	"github.com/gobench/gobench/internal/doctable"
	"github.com/google/go-cmp/cmp"
)

// TestDocsListEveryVerdict keeps the list and its page in step:
// docs/server-view.md's table of verdicts lists every verdict, and no
// other.
func TestDocsListEveryVerdict(t *testing.T) {
	t.Parallel()
	page, err := doctable.Read("../../docs/server-view.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := page.Listed("| verdict |")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range Verdicts() {
		want = append(want, string(v))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-Verdicts +page):\n%s", page.Path, diff)
	}
}
