// Package sweep is `gobench sweep`: vLLM's `vllm bench sweep serve` and
// `serve_workload` (vllm/benchmarks/sweep/@11dfa3169) over gobench serve
// runs, and the summary table of a sweep's points that both it and the
// short form `gobench serve --sweep-request-rate/--sweep-max-concurrency`
// print and save.
//
// The layout of an experiment is vLLM's, file for file, so that vLLM's
// `vllm bench sweep plot` reads what gobench wrote and `gobench sweep
// --resume` continues what vLLM started:
//
//	OUTPUT_DIR/EXPERIMENT/                         (--output-dir, --experiment-name)
//	  SERVE--<serve comb>-BENCH--<bench comb>/     (one folder per combination)
//	    run=0.json, run=1.json, ...                (one gobench serve result each,
//	                                                plus run_number and the parameters)
//	    summary.json                               (the list of those runs: what plot reads)
//	  summary.csv                                  (every run, pandas' to_csv)
//
// gobench adds, beside them, the server's output (SERVE-<name>-server.log)
// and its own table of the points (sweep_table.csv, sweep_table.json),
// which plot never opens: it reads **/summary.json only.
//
// The jobs are split by file: options.go and env.go (what a sweep is
// given, and the Runner that carries out its benchmark runs), params.go
// (the JSON files of parameter combinations and how a combination becomes
// flags), layout.go (paths), server.go, serverwatch.go and process_*.go
// (the server process, and its exit noticed in the ready wait and during
// a run), bench.go (one benchmark run), sweep.go (the loop over
// combinations), workload.go (serve_workload), pyfiles.go (json.dump with
// indent and pandas' CSV), table.go (the summary table).
package sweep
