#!/usr/bin/env bash
# Packs the package with `npm pack` and installs the tarball into a fresh scratch project
# (the folder given), exactly as a user would get it from the registry.
set -euo pipefail
cd "$(dirname "$0")/.."
consumer=${1:?usage: pack-consumer.sh <folder>}

rm -rf "$consumer"
mkdir -p "$consumer"
tarball=$(npm pack --silent --pack-destination "$consumer")
(
  cd "$consumer"
  echo '{ "name": "attnlab-consumer", "private": true, "type": "module" }' >package.json
  npm install --silent --no-audit --no-fund "./$tarball"
)
echo "pack-consumer: installed $tarball into $consumer"
