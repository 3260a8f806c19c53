// Package datasets holds the dataset files gobench ships, embedded in the
// binary so that a dataset vLLM reads from a file of its repository runs
// without one.
package datasets

import _ "embed"

// Sonnet is vLLM's benchmarks/sonnet.txt (vllm/benchmarks/sonnet.txt@11dfa3169):
// the first 518 lines of Shakespeare's sonnets, one poem line per line,
// without a final newline. The sonnet dataset reads it when no
// --dataset-path is given.
//
//go:embed sonnet.txt
var Sonnet string
