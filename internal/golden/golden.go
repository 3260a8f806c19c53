// Package golden compares a test's output with a file under testdata/ and,
// with `go test -update`, rewrites the file instead: the golden-file
// convention (as in vegeta's plot tests), in one place. It is imported by
// tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports this
// package: a flag must be registered when the test binary starts, which is
// why it is package state.
var update = flag.Bool("update", false, "rewrite the testdata/*.golden files with the current output")

// Check compares got with testdata/<test name>.golden (slashes of subtest
// names become underscores), or writes it with -update.
func Check(t testing.TB, got []byte) {
	t.Helper()
	CheckFile(t, filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+".golden"), got)
}

// CheckFile is Check with an explicit file path.
func CheckFile(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}
