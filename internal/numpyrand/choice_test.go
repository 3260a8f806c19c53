package numpyrand

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUint8sAndChoiceP replays, draw for draw, what this printed under
// NumPy 1.24:
//
//	r = np.random.default_rng(5)
//	r.integers(0, 10), r.integers(0, 256, 7, dtype=np.uint8).tolist(),
//	r.integers(0, 100), r.choice(3, p=[0.2, 0.5, 0.3]),
//	r.choice(3, p=[0.2, 0.5, 0.3]),
//	r.integers(0, 256, (1, 2, 3), dtype=np.uint8).ravel().tolist(),
//	r.integers(0, 1000)
//
// The byte draws share PCG64's buffered 32-bit half with the int64 draws
// around them, which the later values prove.
func TestUint8sAndChoiceP(t *testing.T) {
	g := NewGenerator(5)
	p := []float64{0.2, 0.5, 0.3}
	type draws struct {
		A      int64
		B      []byte
		C      int64
		D, E   int
		F      []byte
		Gfinal int64
	}
	var got draws
	got.A = g.Integers(0, 10)
	got.B = g.Uint8s(7)
	got.C = g.Integers(0, 100)
	var err error
	if got.D, err = g.ChoiceP(p); err != nil {
		t.Fatal(err)
	}
	if got.E, err = g.ChoiceP(p); err != nil {
		t.Fatal(err)
	}
	got.F = g.Uint8s(6)
	got.Gfinal = g.Integers(0, 1000)
	want := draws{6, []byte{238, 171, 20, 206, 245, 153, 204}, 80, 1, 1, []byte{237, 16, 194, 250, 10, 103}, 277}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("draws differ from NumPy (-want +got):\n%s", diff)
	}
	for _, bad := range [][]float64{{0.5, 0.4}, {-0.5, 1.5}, {}} {
		if _, err := NewGenerator(1).ChoiceP(bad); err == nil {
			t.Errorf("ChoiceP(%v): no error", bad)
		}
	}
}
