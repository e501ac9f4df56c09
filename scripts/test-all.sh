#!/usr/bin/env bash
# The README's one test command: the Rust workspace's tests, the MCP server driven by the
# official MCP Python SDK over stdio (scripts/test-mcp.sh), and the Python package's
# pytest suite (scripts/test-python.sh). The last two make virtual environments under the
# cargo target folder (python3, and pip's access to PyPI).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cargo test --workspace
scripts/test-mcp.sh
scripts/test-python.sh
