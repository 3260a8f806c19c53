package doctable

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const page = "# Title\n\nIntro.\n\n" +
	"| `--name` | what |\n|---|:--|\n| `a` | first \\| one |\n| `b` (`c`: old) | second |\n\n" +
	"## Part one\n\ntext one\n```sh\n# not a heading\n```\n### Inner\ninner text\n" +
	"## Part two\n\n| other | x |\n| --- | --- |\n| `z` | y |\n"

func mustPage(t *testing.T) *Page {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestColumn reads a column of the table a header names.
func TestColumn(t *testing.T) {
	t.Parallel()
	p := mustPage(t)
	tests := []struct {
		header string
		col    int
		want   []string
		ok     bool
	}{
		{"`--name`", 0, []string{"`a`", "`b` (`c`: old)"}, true},
		{"`--name`", 1, []string{`first \| one`, "second"}, true},
		{"other", 0, []string{"`z`"}, true},
		{"other", 5, nil, true},
		{"missing", 0, nil, false},
	}
	for _, tt := range tests {
		got, ok := p.Column(tt.header, tt.col)
		if ok != tt.ok || !cmp.Equal(got, tt.want) {
			t.Errorf("Column(%q, %d) = %q, %v; want %q, %v", tt.header, tt.col, got, ok, tt.want, tt.ok)
		}
	}
}

// TestListed lists the sorted code spans of a table's first column.
func TestListed(t *testing.T) {
	t.Parallel()
	p := mustPage(t)
	if got, err := p.Listed("`--name`"); err != nil || !cmp.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Listed = %q, %v", got, err)
	}
	if _, err := p.Listed("missing"); err == nil {
		t.Error("a missing table listed")
	}
}

// TestSection cuts a section at the next heading of its level or above,
// reading past deeper headings and fenced code.
func TestSection(t *testing.T) {
	t.Parallel()
	p := mustPage(t)
	tests := []struct {
		title, want string
		ok          bool
	}{
		{"Part one", "\ntext one\n```sh\n# not a heading\n```\n### Inner\ninner text\n", true},
		{"Inner", "inner text\n", true},
		{"Part two", "\n| other | x |\n| --- | --- |\n| `z` | y |\n\n", true},
		{"not a heading", "", false},
	}
	for _, tt := range tests {
		got, ok := p.Section(tt.title)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Section(%q) = %q, %v; want %q, %v", tt.title, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCode lists a cell's code spans.
func TestCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cell string
		want []string
	}{
		{"`b` (`c`: old)", []string{"b", "c"}},
		{"plain", nil},
		{"`open", nil},
	}
	for _, tt := range tests {
		if got := Code(tt.cell); !cmp.Equal(got, tt.want) {
			t.Errorf("Code(%q) = %q, want %q", tt.cell, got, tt.want)
		}
	}
}

// FuzzPage: any text reads without a panic, and every cell of a column
// comes from a table row.
func FuzzPage(f *testing.F) {
	f.Add(page)
	f.Add("|a|\n|-|\n|")
	f.Add("| x |\n|---|\n| \\|\\ |\n# h\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := &Page{Path: "fuzz", text: text}
		if cells, ok := p.Column("", 0); !ok && cells != nil {
			t.Fatalf("cells %q without a table", cells)
		}
		p.Section("h")
		for _, c := range Code(text) {
			if c == "" {
				t.Fatal("an empty code span")
			}
		}
	})
}

// TestUnnamed lists the fields a section does not name as code.
func TestUnnamed(t *testing.T) {
	t.Parallel()
	p := &Page{Path: "p", text: "## Recipe\n`A`, `T.B` and C.\n## Next\n`C`\n"}
	type fields struct {
		A, B, C int
		d       int // unexported: never asked for
	}
	tests := []struct {
		title string
		want  []string
		err   bool
	}{
		{"Recipe", []string{"C"}, false},
		{"Next", []string{"A", "B"}, false},
		{"None", nil, true},
	}
	for _, tt := range tests {
		got, err := p.Unnamed(tt.title, reflect.TypeOf(fields{d: 1}))
		if (err != nil) != tt.err || !cmp.Equal(got, tt.want) {
			t.Errorf("Unnamed(%q) = %v, %v; want %v", tt.title, got, err, tt.want)
		}
	}
}
