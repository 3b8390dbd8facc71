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
cat >"$W/apt/sources.list.d/debian-src.sources" <<SRCS
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRCS
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
