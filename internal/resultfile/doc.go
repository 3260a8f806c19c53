// Package resultfile reads saved benchmark results — gobench's and vLLM's
// own (`vllm bench serve --save-result`) — for the commands that work on
// files: compare, check and analyze. It is the one place that knows how
// those files may look:
//
//   - one JSON object (--save-result), or one object per line
//     (--append-result, JSON Lines); a file of several runs is read whole
//     and one run is chosen with "PATH#INDEX" or "PATH#LABEL" (Open); a
//     damaged line (a record cut short by a failed append, garbage) is
//     skipped with a warning naming the file and line, and indices count
//     the intact runs;
//   - non-finite floats as gobench writes them ("inf", "nan" strings) and as
//     Python's json.dump writes them in vLLM's files (bare Infinity, NaN);
//   - keys in file order, values decoded lazily (a detailed file holds
//     megabytes of per-request lists that most commands never read), every
//     number parsed from its text exactly, so that a float64 saved as
//     Python's shortest repr is read back bit for bit;
//   - values inside objects named by dotted paths (Lookup, and Number and
//     String with such a key: "server_view.ratios.preemptions"), so that
//     thresholds and compare reach the server's figures;
//   - the per-request lists of --save-detailed (Detailed), rebuilt as the
//     records metrics.Calculate takes, with vLLM's older files' gaps filled
//     where that can be done exactly and reported where it cannot.
//
// The package only reads; package report writes result files.
package resultfile
