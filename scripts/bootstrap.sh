#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test Recount. Safe to run again.
set -euo pipefail

packages=()
for pkg in liblz4-dev libxxhash-dev libssl-dev libarchive-dev libxml2-dev liblmdb-dev libsqlite3-dev pkg-config; do
    dpkg -s "$pkg" >/dev/null 2>&1 || packages+=("$pkg")
done
if [ ${#packages[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" >/dev/null
fi
# The schema-agreement tests run the corpus through Python's jsonschema.
python3 -c "import jsonschema, referencing" 2>/dev/null || python3 -m pip install -q "jsonschema>=4.18"
command -v swift >/dev/null || { echo "bootstrap: swift is not on PATH (expected a Swift 6 toolchain)" >&2; exit 1; }
