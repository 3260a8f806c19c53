package texttable

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	t.Parallel()
	header := []string{"(ms)", "mean", "p99"}
	rows := [][]string{{"TTFT", "55.00", "99.00"}, {"E2EL", "-", "1234.50"}}
	for _, tc := range []struct {
		name     string
		header   []string
		markdown bool
		want     string
	}{
		{"numbers", header, false, "  (ms)   mean      p99\n  TTFT  55.00    99.00\n  E2EL      -  1234.50"},
		{"list", nil, false, "  TTFT  55.00  99.00\n  E2EL  -      1234.50"},
		{"markdown numbers", header, true, "| (ms) | mean | p99 |\n|---|---:|---:|\n| TTFT | 55.00 | 99.00 |\n| E2EL | - | 1234.50 |"},
		{"markdown list", nil, true, "|  |  |  |\n|---|---|---|\n| TTFT | 55.00 | 99.00 |\n| E2EL | - | 1234.50 |"},
	} {
		if got := strings.Join(Lines(tc.header, rows, tc.markdown, "  "), "\n"); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
