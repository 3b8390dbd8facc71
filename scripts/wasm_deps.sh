#!/usr/bin/env bash
# Fetches the protobuf source the wasm build compiles (protobuf-lite), from Debian's own source
# package, into the build tree: build/deps/src/protobuf-<version>. Debian's patches are applied by
# dpkg-source. The system's apt configuration is not touched (a private sources list and lists
# directory live under build/deps/apt). Cached: a second run does nothing.
# Prints the source directory on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
W="$ROOT/build/deps"
VERSION="$(dpkg-query -W -f='${Version}' libprotobuf-dev 2>/dev/null || true)"
if [ -z "$VERSION" ]; then
  echo "[wasm_deps] libprotobuf-dev is not installed (run scripts/setup.sh)" >&2
  exit 1
fi
UPSTREAM="${VERSION%%-*}"
SRC="$W/src/protobuf-$UPSTREAM"
if [ -f "$SRC/CMakeLists.txt" ]; then
  echo "$SRC"
  exit 0
fi
mkdir -p "$W/apt/sources.list.d" "$W/apt/lists/partial" "$W/src"
# The deb-src entries are the machine's own apt sources with their type turned into deb-src (no
# mirror is named here): deb822 files (*.sources) and one-line lists (sources.list, *.list).
rm -f "$W/apt/sources.list.d/"*
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  sed -E 's/^Types:.*$/Types: deb-src/' "$f" >"$W/apt/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  sed -nE 's/^[[:space:]]*deb[[:space:]]+/deb-src /p' "$f" >"$W/apt/sources.list.d/$(basename "$f").list"
done
if ! grep -qs 'deb-src' "$W/apt/sources.list.d/"*; then
  echo "[wasm_deps] no apt sources found in /etc/apt to derive deb-src entries from" >&2
  exit 1
fi
APTO=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$W/apt/sources.list.d"
      -o "Dir::State::Lists=$W/apt/lists" -o Debug::NoLocking=1)
echo "[wasm_deps] fetching Debian source package protobuf $VERSION" >&2
apt-get "${APTO[@]}" update -q >&2
rm -rf "$W/src/dl" && mkdir -p "$W/src/dl"
(cd "$W/src/dl" && apt-get "${APTO[@]}" source --download-only "protobuf=$VERSION" >&2)
rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
(cd "$W/src/dl" && dpkg-source -x ./*.dsc "$SRC.tmp/protobuf" >&2)
mv "$SRC.tmp/protobuf" "$SRC" && rm -rf "$SRC.tmp" "$W/src/dl"
echo "$SRC"
