package sweep

import (
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

// TestIndentedLikeJSONDump: the bytes of Python's json.dumps(v, indent=4)
// (the expected text is Python 3's).
func TestIndentedLikeJSONDump(t *testing.T) {
	t.Parallel()
	v, err := pyjson.Decode([]byte(`{"a": 1, "b": [], "c": {}, "d": [1.5, "xé", null, true, {"e": 1e-05}], "f": "inf"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := indented(v, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "a": 1,
    "b": [],
    "c": {},
    "d": [
        1.5,
        "x\u00e9",
        null,
        true,
        {
            "e": 1e-05
        }
    ],
    "f": "inf"
}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-Python +gobench):\n%s", diff)
	}
}

// TestPandasCSV: summary.csv as pandas writes DataFrame.from_records(runs)
// .to_csv(): an unnamed index column, columns in order of first
// appearance, an integer column turned float by a missing value, objects
// as Python's str, None and missing values empty.
func TestPandasCSV(t *testing.T) {
	t.Parallel()
	var recs []*pyjson.Object
	for _, s := range []string{
		`{"a": 1, "b": 2, "c": 0.5, "d": "x,y", "e": null, "f": {"k": [1, "v"]}, "g": true}`,
		`{"a": 3, "c": 2, "d": "z", "h": "inf"}`,
	} {
		o, err := pyjson.DecodeObject([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, o)
	}
	got, err := pandasCSV(recs)
	if err != nil {
		t.Fatal(err)
	}
	want := `,a,b,c,d,e,f,g,h
0,1,2.0,0.5,"x,y",,"{'k': [1, 'v']}",True,
1,3,,2.0,z,,,,inf
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-pandas +gobench):\n%s", diff)
	}
}

// TestBetween: serve_workload's intermediate levels, round(np.linspace(lo,
// hi, n)[1:-1]) without repeats.
func TestBetween(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lo, hi, n int
		want      []int
	}{
		{1, 10, 10, []int{2, 3, 4, 5, 6, 7, 8, 9}},
		{1, 4, 10, []int{1, 2, 3, 4}},
		{2, 20, 4, []int{8, 14}},
		{1, 2, 2, nil},
	} {
		if diff := cmp.Diff(tt.want, between(tt.lo, tt.hi, tt.n)); diff != "" {
			t.Errorf("between(%d, %d, %d): %s", tt.lo, tt.hi, tt.n, diff)
		}
	}
}
