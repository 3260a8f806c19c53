package sim

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseConfigFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string // key=value@line
		wantErr    string
	}{
		{"plain", "a: 1\nb-c: x y\n", []string{"a=1@1", "b-c=x y@2"}, ""},
		{"comments and quotes", "# c\n---\na: '0.5' # rate\nb: \"re:7\"\nc: -1\n\n", []string{"a=0.5@3", "b=re:7@4", "c=-1@5"}, ""},
		{"trailing comment", "a: 3 # three", []string{"a=3@1"}, ""},
		{"empty", "", nil, ""},
		{"comments only", "# nothing\n---\n", nil, ""},
		{"indented as a whole", "  b: 1\n", []string{"b=1@1"}, ""},
		{"nested", "a:\n  b: 1\n", nil, "line 1: a: only plain values are supported, got a map"},
		{"list", "a: [1, 2]\n", nil, "line 1: a: only plain values are supported, got a list"},
		{"alias", "a: &x 1\nb: *x\n", nil, "line 2: b: only plain values are supported, got an alias (*x)"},
		{"missing value", "a: 1\nb:\n", nil, "line 2: b: missing value"},
		{"no colon", "a\n", nil, "line 1: expected 'option: value' lines, got \"a\""},
		{"list at the top", "- a\n", nil, "line 1: expected 'option: value' lines, got a list"},
		{"duplicate", "a: 1\na: 2\n", nil, "line 2: a already set on line 1"},
		{"duplicate spelt with underscores", "max-num-seqs: 1\nmax_num_seqs: 2\n", nil, "line 2: max_num_seqs already set on line 1"},
		{"two documents", "a: 1\n---\nb: 2\n", nil, "line 2: a config file holds one YAML document"},
		{"unterminated", "a: 'x\n", nil, "yaml: line 2: found unexpected end of stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseConfigFile([]byte(tt.text))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kv []string
			for _, e := range got {
				kv = append(kv, e.key+"="+e.value+"@"+strconv.Itoa(e.line))
			}
			if strings.Join(kv, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", kv, tt.want)
			}
		})
	}
}

func FuzzParseConfigFile(f *testing.F) {
	for _, s := range []string{"a: 1\n", "# x\nb: 'y' # z\n", "a:\n  b: 1", "a: [1]", "a: \"", "---\n", "a: &x 1\nb: *x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := parseConfigFile([]byte(text))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range entries {
			name := strings.ReplaceAll(e.key, "_", "-")
			if e.key == "" || seen[name] || e.line < 1 {
				t.Fatalf("bad entry %+v from %q", e, text)
			}
			seen[name] = true
		}
	})
}
