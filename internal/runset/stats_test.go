package runset

import (
	"math"
	"testing"
)

// close reports whether got is within a relative 1e-9 of want (gonum's
// Student-t quantile is an iterative inverse, not SciPy's).
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// The expected values were computed with NumPy 1.24 and SciPy 1.10
// (Debian's python3-numpy and python3-scipy):
//
//	x = np.array([17.59, 17.20, 17.41, 17.66])
//	x.mean(), x.std(ddof=1), x.std(ddof=1)/x.mean()
//	stats.t.interval(0.95, 3, loc=x.mean(), scale=stats.sem(x))
func TestSummarize(t *testing.T) {
	s := Summarize([]float64{17.59, 17.20, 17.41, 17.66}, 0.95)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", s.Mean, 17.465}, {"std", s.Std, 0.20566963801203164}, {"cv", s.CV, 0.011776102949443552},
		{"low", s.Low, 17.13773371019973}, {"high", s.High, 17.79226628980027},
		{"min", s.Min, 17.20}, {"max", s.Max, 17.66},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
	if s.N != 4 {
		t.Errorf("N = %d, want 4", s.N)
	}
}

func TestSummarizeOneRun(t *testing.T) {
	s := Summarize([]float64{3}, 0.95)
	if s.Mean != 3 || s.Min != 3 || s.Max != 3 || s.N != 1 {
		t.Errorf("one run: %+v", s)
	}
	for name, v := range map[string]float64{"std": s.Std, "cv": s.CV, "low": s.Low, "high": s.High} {
		if !math.IsNaN(v) {
			t.Errorf("one run: %s = %v, want NaN (no spread from one value)", name, v)
		}
	}
}

// Welch's interval against SciPy (the p-value is
// stats.ttest_ind(b, a, equal_var=False).pvalue; the interval is
// d ± stats.t.ppf((1+c)/2, df) · se with the Welch–Satterthwaite df).
func TestWelch(t *testing.T) {
	cases := []struct {
		name                        string
		a, b                        []float64
		conf                        float64
		diff, se, df, low, high, tt float64
		p                           float64
		excludes                    bool
	}{
		{
			name: "real", a: []float64{10.01, 10.03, 9.99}, b: []float64{11.02, 10.97, 11.05, 11.01}, conf: 0.99,
			diff: 1.0025000000000013, se: 0.02015564437074622, df: 4.89487234499032,
			low: 0.920323842151511, high: 1.0846761578484916, tt: 49.737928570273034, p: 8.246460762268739e-08, excludes: true,
		},
		{
			name: "noise", a: []float64{50.1, 51.3, 49.8}, b: []float64{50.6, 50.2, 51.9}, conf: 0.95,
			diff: 0.5000000000000071, df: 3.949853085210579,
			low: -1.4197750772992457, high: 2.41977507729926, tt: 0.7267523746672756, p: 0.5081070879692123,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Welch(c.a, c.b, c.conf)
			checks := []struct {
				name      string
				got, want float64
			}{{"diff", d.Diff, c.diff}, {"df", d.DF, c.df}, {"low", d.Low, c.low}, {"high", d.High, c.high}, {"t", d.T, c.tt}, {"p", d.P, c.p}}
			if c.se != 0 {
				checks = append(checks, struct {
					name      string
					got, want float64
				}{"se", d.SE, c.se})
			}
			for _, k := range checks {
				if !near(k.got, k.want) {
					t.Errorf("%s = %.17g, want %.17g", k.name, k.got, k.want)
				}
			}
			if d.Excludes0() != c.excludes {
				t.Errorf("Excludes0 = %v, want %v", d.Excludes0(), c.excludes)
			}
		})
	}
}

func TestWelchDegenerate(t *testing.T) {
	if d := Welch([]float64{1}, []float64{2, 3}, 0.95); d.Note == "" || !math.IsNaN(d.Low) {
		t.Errorf("one run on a side: %+v, want a note and no interval", d)
	}
	d := Welch([]float64{2, 2}, []float64{3, 3, 3}, 0.95)
	if d.Low != 1 || d.High != 1 || !d.Excludes0() || d.P != 0 {
		t.Errorf("constant sets: %+v, want the exact difference 1", d)
	}
	d = Welch([]float64{2, 2}, []float64{2, 2}, 0.95)
	if d.Low != 0 || d.High != 0 || d.Excludes0() || d.P != 1 {
		t.Errorf("equal constant sets: %+v, want 0 and no difference", d)
	}
}
