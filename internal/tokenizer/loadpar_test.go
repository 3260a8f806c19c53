package tokenizer

import (
	"strconv"
	"strings"
	"testing"
)

// TestMergeValuesFirstError: the merges are resolved in chunks on several
// goroutines, yet the error names the first bad merge, as a serial loop
// would.
func TestMergeValuesFirstError(t *testing.T) {
	t.Parallel()
	vocab := map[string]int{}
	var merges [][2]string
	for i := range 40000 {
		a, b := "a"+strconv.Itoa(i), "b"+strconv.Itoa(i)
		vocab[a], vocab[b], vocab[a+b] = 3*i, 3*i+1, 3*i+2
		merges = append(merges, [2]string{a, b})
	}
	keys, vals, err := mergeValues(vocab, merges, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 20000, 39999} {
		if keys[i] != pairKey(int32(3*i), int32(3*i+1)) || vals[i] != uint64(i)<<32|uint64(3*i+2) {
			t.Errorf("merge %d: key %x value %x", i, keys[i], vals[i])
		}
	}
	merges[39000][1] = "missing"
	merges[25000][0] = "absent"
	_, _, err = mergeValues(vocab, merges, "")
	if err == nil || !strings.Contains(err.Error(), "model.merges[25000]") || !strings.Contains(err.Error(), `"absent"`) {
		t.Errorf("error %v, want one naming model.merges[25000] and \"absent\"", err)
	}
}

// TestInvalidJSONWinsOverParseErrors: the validation runs beside the
// parse, and invalid JSON is still what is reported.
func TestInvalidJSONWinsOverParseErrors(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]}`,
		`{"version": "9", "model": {"type": "BPE", "vocab": {"a": 0,}, "merges": []}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]}} x`,
	} {
		if _, _, err := buildFromJSON([]byte(data)); err == nil || !strings.HasPrefix(err.Error(), "invalid JSON") {
			t.Errorf("%s: error %v, want invalid JSON", data, err)
		}
	}
}
