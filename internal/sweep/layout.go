package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sanitizeFilename is vLLM's sanitize_filename
// (vllm/benchmarks/sweep/utils.py@11dfa3169): no "/" and no "..".
func sanitizeFilename(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "/", "_"), "..", "__")
}

// combDir is the folder of a combination, vLLM's _get_comb_base_path: the
// parts "SERVE-", its name, "BENCH-", its name (each only when the
// combination has keys) and the extra parts, joined by "-", so
// SERVE--max_num_seqs=8-BENCH--request_rate=1; no parts at all is the
// experiment folder itself.
func combDir(experiment string, serve, bench Comb, extra ...string) string {
	var parts []string
	if serve.Len() > 0 {
		parts = append(parts, "SERVE-", serve.Name())
	}
	if bench.Len() > 0 {
		parts = append(parts, "BENCH-", bench.Name())
	}
	parts = append(parts, extra...)
	return filepath.Join(experiment, sanitizeFilename(strings.Join(parts, "-")))
}

// SummaryFile is the file of a combination's runs that vLLM's plot reads.
const SummaryFile = "summary.json"

// runPath is run=N.json in a combination's folder (_get_comb_run_path).
func runPath(dir string, run int) string {
	return filepath.Join(dir, "run="+strconv.Itoa(run)+".json")
}

// summaryPath is the combination's summary.json.
func summaryPath(dir string) string { return filepath.Join(dir, SummaryFile) }

// serverLogPath is where the output of the server of a serve combination
// goes (gobench's: vLLM discards it), named like vLLM's failure file of
// that combination.
func serverLogPath(experiment string, serve Comb) string {
	name := serve.Name()
	if name == "" {
		name = "default"
	}
	return filepath.Join(experiment, sanitizeFilename("SERVE-"+name+"-server.log"))
}

// experimentDir is OUTPUT_DIR/EXPERIMENT, which must exist to resume and
// must not exist otherwise (resolve_experiment_dir).
func experimentDir(outputDir, name string, resume bool) (string, error) {
	dir := filepath.Join(outputDir, name)
	_, err := os.Stat(dir)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("experiment folder %s: %w", dir, err)
	}
	switch {
	case resume && !exists:
		return "", fmt.Errorf("cannot resume from %s: it does not exist", dir)
	case !resume && exists:
		return "", fmt.Errorf("cannot overwrite the existing experiment %s: give another --experiment-name, or --resume to continue it", dir)
	}
	return dir, nil
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
