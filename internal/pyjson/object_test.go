package pyjson

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestObject checks dict semantics on both sides of the index threshold:
// Set replaces in place, new keys go last, Delete keeps the order of the
// rest, Update is dict.update and Clone is independent of the original.
func TestObject(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, indexFrom + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var o Object // the zero value is ready to use
			var want []string
			for i := range n {
				k := fmt.Sprintf("k%d", i)
				o.Set(k, i)
				want = append(want, k)
			}
			o.Set("k1", "again") // replaced in place
			if v, ok := o.Get("k1"); !ok || v != "again" {
				t.Errorf("Get(k1) = %v, %v", v, ok)
			}
			if _, ok := o.Get("missing"); ok {
				t.Error("Get(missing) found")
			}
			o.Delete("k0")
			o.Delete("missing")
			want = want[1:]
			if diff := cmp.Diff(want, o.Keys()); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if v, ok := o.Get(want[len(want)-1]); !ok || v != n-1 {
				t.Errorf("last key after Delete: %v, %v", v, ok)
			}

			c := o.Clone()
			c.Set("k1", "clone")
			c.Set("new", true)
			c.Delete("k2")
			if v, _ := o.Get("k1"); v != "again" || o.Len() != n-1 {
				t.Errorf("Clone shares storage: k1 = %v, len %d", v, o.Len())
			}

			other := NewObject()
			other.Set("z", 1)
			other.Set("k2", "updated")
			o.Update(other)
			keys := o.Keys()
			if keys[1] != "k2" || keys[len(keys)-1] != "z" || o.Len() != n {
				t.Errorf("Update: keys %v", keys)
			}
			if v, _ := o.Get("k2"); v != "updated" {
				t.Errorf("Update: k2 = %v", v)
			}
		})
	}
}

// TestPlain: nested objects and lists become Go maps and slices.
func TestPlain(t *testing.T) {
	t.Parallel()
	o, err := DecodeObject([]byte(`{"thinking": true, "n": 2, "x": 1.5, "d": {"k": [1, {"j": null}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"thinking": true, "n": 2, "x": 1.5, "d": map[string]any{"k": []any{1, map[string]any{"j": nil}}}}
	if diff := cmp.Diff(want, o.Plain()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
