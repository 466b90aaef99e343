#!/usr/bin/env bash
# Start the local API as `make run` does (on a free port, a fresh store), run
# `make smoke` against it with the token it prints, then stop it.
set -euo pipefail
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
go build -o "$dir/localapi" ./cmd/localapi
PORT=0 STORE_PATH="$dir/plants.db" "$dir/localapi" >"$dir/out" 2>"$dir/log" &
pid=$!
for _ in $(seq 1 100); do
  grep -q '^Token' "$dir/out" 2>/dev/null && grep -q 'listening on' "$dir/out" && break
  sleep 0.1
done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$dir/out")
token=$(sed -n '/^Token/{n;p;}' "$dir/out")
if [ -z "$url" ] || [ -z "$token" ]; then
  echo "smoke-local: the local API did not start:"; cat "$dir/out" "$dir/log"; exit 1
fi
make --no-print-directory smoke URL="$url" TOKEN="$token"
