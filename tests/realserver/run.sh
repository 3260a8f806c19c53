#!/usr/bin/env bash
# The real-server suite (make test-servers): sets up llama.cpp's llama-server
# with the script given as $1 (once per machine; the script caches it), then
# runs the Go tests of this folder against it. When the set-up cannot run
# here (no script, not root, its package mirrors unreachable) it says so in
# one line and exits 0: the set-up is not a check. A failing test exits 1.
set -uo pipefail
sh="${1:?usage: run.sh LLAMA_SERVER_SH [go test flags...]}"; shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log="${TMPDIR:-/tmp}/gobench-llama-setup.log"

[ -f "$sh" ] || { echo "test-servers: no llama-server set-up script at $sh: the real-server suite did not run"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "test-servers: the llama-server set-up needs root (debootstrap, chroot): the real-server suite did not run"; exit 0; }
sh="$(cd "$(dirname "$sh")" && pwd)/$(basename "$sh")"
if ! bash "$sh" setup >"$log" 2>&1; then
  echo "test-servers: the llama-server set-up failed ($(tail -n 1 "$log"); log: $log): the real-server suite did not run"
  exit 0
fi
cd "$here" && LLAMA_SERVER_SH="$sh" exec go test -tags realserver -count=1 -timeout 30m "$@" .
