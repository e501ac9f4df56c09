#!/usr/bin/env bash
# `polypatch mcp` tested with a real MCP client: the official Python SDK (`mcp` on PyPI)
# drives the server over stdio (crates/polypatch-mcp/tests/client.py). Creates a virtual
# environment under target/ on first use (needs python3 and pip's access to PyPI).
# Usage: scripts/test-mcp.sh [--log FILE]   (FILE: the exchange, as JSON lines)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target/mcp-venv"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "mcp>=2.3,<3"
fi
cargo build --quiet -p polypatch-cli
"$venv/bin/python" crates/polypatch-mcp/tests/client.py "$target/debug/polypatch" "$@"
