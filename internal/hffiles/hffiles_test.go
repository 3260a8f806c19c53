package hffiles

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSelectFiles: the split from the file names (with the datasets
// library's synonyms and separators), else from directory names, else
// every file; the subset is a directory; other files are not data.
func TestSelectFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		files         []string
		subset, split string
		want          []string
		err           string
	}{
		{"sharded names", []string{"README.md", "data/train-00001-of-00002.parquet", "data/train-00000-of-00002.parquet", "data/test-00000-of-00001.parquet"},
			"", "train", []string{"data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet"}, ""},
		{"synonym", []string{"dev.jsonl", "train.jsonl"}, "", "validation", []string{"dev.jsonl"}, ""},
		{"not a word", []string{"trainer.jsonl", "my_test.csv"}, "", "test", []string{"my_test.csv"}, ""},
		{"directories", []string{"train/a.parquet", "validation/b.parquet"}, "", "validation", []string{"validation/b.parquet"}, ""},
		{"no split named", []string{"mmstar.parquet", ".gitattributes"}, "", "val", []string{"mmstar.parquet"}, ""},
		{"subset", []string{"main/test-0.parquet", "socratic/test-0.parquet", "main/train-0.parquet"}, "main", "test", []string{"main/test-0.parquet"}, ""},
		{"missing split", []string{"train.jsonl"}, "", "test", nil, `Unknown split "test"`},
		{"missing subset", []string{"main/test.jsonl"}, "other", "test", nil, "--hf-subset other: no directory other"},
		{"no data", []string{"README.md"}, "", "train", nil, "no data files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Select(tc.files, tc.subset, tc.split, isData)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// isData is the dataset package's formats: Parquet, JSON Lines, JSON, CSV.
func isData(ext string) bool {
	return ext == ".parquet" || ext == ".jsonl" || ext == ".json" || ext == ".csv"
}
