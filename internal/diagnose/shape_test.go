package diagnose

import (
	"math"
	"strings"
	"testing"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// TestShapeQuantilesAreBuckets: every request generated 128 tokens; the
// bucket (100, 200] is all the page knows of each quantile, so the table
// prints the bucket, not an interpolation inside it (150), and the exact
// mean beside it.
func TestShapeQuantilesAreBuckets(t *testing.T) {
	t.Parallel()
	p := scenario(0.05, 0.001, 0.03, smoothITL()).hist(sm.GenerationTokensHist, tokenBuckets, obs(128, 100)...)
	r, err := FromScrapes(Input{End: [][]byte{p.bytes()}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.Render(&b, "text"); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "generation tokens") && row == "" {
			row = l // the Request shape table's, before the ratios'
		}
	}
	if strings.Count(row, "(100, 200]") != 4 || strings.Contains(row, "150") || !strings.HasSuffix(row, " 128.0") {
		t.Errorf("generation tokens row %q, want the bucket (100, 200] for each quantile and the mean 128", row)
	}
	for _, tc := range []struct {
		e    sm.Estimate
		want string
	}{
		{sm.Estimate{Value: 150, Lower: 100, Upper: 200}, "(100, 200]"},
		{sm.Estimate{Value: 5000, Lower: 5000, Upper: math.Inf(1)}, "> 5000"},
	} {
		if got := shapeBucket(tc.e); got != tc.want {
			t.Errorf("shapeBucket(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}
