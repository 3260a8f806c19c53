#!/bin/sh
# Writes the result files with a server_view (gobench serve's account of the
# server from its /metrics) that the tests of resultfile, gate, compare and
# cli read: gobench serve against its simulator, one run per preset, the
# preset's own load (sim.Preset.Load), gauges sampled every 0.1 s so that a
# run of a few seconds has a timeline. The figures depend on the machine's
# timing, so the files are captured once and committed; the tests assert
# what the files say, not what a new capture would say.
#
#   server_healthy.json       --sim-preset healthy       verdict healthy
#   server_seq_limit.json     --sim-preset seq-limit     verdict queue/seq-limit
#   server_kv_thrashing.json  --sim-preset kv-thrashing  verdict queue/memory-thrashing
#
# Run from the repository root: sh internal/resultfile/testdata/gen_server_view_fixtures.sh
set -eu
out=internal/resultfile/testdata
bin=$(mktemp -d)/gobench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/gobench
run() { # preset label file load...
	preset=$1 label=$2 file=$3
	shift 3
	"$bin" serve --sim --sim-preset "$preset" "$@" --metrics-interval 0.1 --disable-tqdm \
		--label "$label" --save-result --result-dir "$out" --result-filename "$file" >/dev/null
}
run healthy healthy server_healthy.json \
	--dataset-name random --random-input-len 64 --random-output-len 32 --num-prompts 60 --request-rate 30
run seq-limit seq-limit server_seq_limit.json \
	--dataset-name random --random-input-len 128 --random-output-len 16 --num-prompts 150 --request-rate 100
run kv-thrashing kv-thrashing server_kv_thrashing.json \
	--dataset-name random --random-input-len 32 --random-output-len 128 --num-prompts 150 --request-rate 100
