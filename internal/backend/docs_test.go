package backend

import (
	"reflect"
	"slices"
	"testing"

	"github.com/gobench/gobench/internal/doctable"
	"github.com/google/go-cmp/cmp"
)

// TestDocsListEveryBackend keeps the table and its pages in step:
// docs/backends.md's table of --backend lists every backend (and no
// other), and the recipe in docs/architecture.md names every field of
// Spec.
func TestDocsListEveryBackend(t *testing.T) {
	t.Parallel()
	page, err := doctable.Read("../../docs/backends.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := page.Listed("| `--backend` |")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(Names())), got); diff != "" {
		t.Errorf("%s (-backend.go +page):\n%s", page.Path, diff)
	}
	arch, err := doctable.Read("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	missing, err := arch.Unnamed("Adding a backend", reflect.TypeOf(Spec{}))
	if err != nil || len(missing) > 0 {
		t.Errorf("the recipe for a backend does not name Spec's %v (%v)", missing, err)
	}
}
