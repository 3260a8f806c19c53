package servermetrics

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and every query over its
// result: no input may panic, and an input that does not parse is an
// error with a message.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		windowStart, windowEnd, "", "# EOF\n", "a NaN\n", "a_bucket{le=\"x\"} 1\n",
		"# TYPE a histogram\na_bucket{le=\"+Inf\"} -1\n", "a{b=\"\\\"\"} +Inf\n# EOF\n",
	} {
		f.Add([]byte(seed))
	}
	if files, err := filepath.Glob(filepath.Join("testdata", "real", "*.prom")); err == nil {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		for _, name := range s.Names() {
			s.Counter(name)
			s.Gauge(name)
			s.CounterBy(name, "le")
			if h, ok := s.Histogram(name); ok {
				for _, q := range []float64{0, 0.5, 0.99, 1} {
					h.Quantile(q)
				}
				h.Mean()
			}
		}
		for _, m := range s.Models() {
			s.ForModel(m)
		}
		Increase(s, s)
		Increase(newScrape(), s)
	})
}
