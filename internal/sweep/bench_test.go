package sweep

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestReadRunPythonTokens: --resume reads back a run file that Python's
// json.dump wrote with bare non-finite floats (vLLM's "burstiness":
// Infinity for --burstiness inf, a NaN statistic), as json.loads does.
func TestReadRunPythonTokens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run=0.json")
	if err := os.WriteFile(path, []byte(`{"burstiness": Infinity, "std_ttft_ms": NaN, "completed": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := readRun(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := o.Get("burstiness")
	s, _ := o.Get("std_ttft_ms")
	c, _ := o.Get("completed")
	if b != math.Inf(1) || !math.IsNaN(s.(float64)) || c != 5 {
		t.Errorf("read %v, %v, %v", b, s, c)
	}
}
