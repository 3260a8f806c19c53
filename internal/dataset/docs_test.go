package dataset

import (
	"reflect"
	"slices"
	"testing"

	"github.com/gobench/gobench/internal/doctable"
	"github.com/google/go-cmp/cmp"
)

// TestDocsListEveryDataset keeps the table and its pages in step:
// docs/datasets.md's table of --dataset-name lists every dataset (and no
// other), its multi-turn table every dataset with Conversations, and the
// recipe in docs/architecture.md names every field of Spec.
func TestDocsListEveryDataset(t *testing.T) {
	t.Parallel()
	page, err := doctable.Read("../../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	for header, names := range map[string][]string{"| `--dataset-name` |": Names(), "with `--multi-turn`": MultiTurnDatasets()} {
		got, err := page.Listed(header)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(slices.Sorted(slices.Values(names)), got); diff != "" {
			t.Errorf("%s, table headed %q (-table.go +page):\n%s", page.Path, header, diff)
		}
	}
	arch, err := doctable.Read("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	missing, err := arch.Unnamed("Adding a dataset", reflect.TypeOf(Spec{}))
	if err != nil || len(missing) > 0 {
		t.Errorf("the recipe for a dataset does not name Spec's %v (%v)", missing, err)
	}
}
