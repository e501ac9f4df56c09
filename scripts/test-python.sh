#!/usr/bin/env bash
# The Python package's tests (bindings/python), as on a clean machine: a virtual
# environment, maturin and pytest from PyPI, the package built from the working tree and
# installed into it (`maturin develop`), then pytest; and the package's types checked with
# `mypy --strict` (what an editor or a user's mypy sees). The reports' JSON is compared with
# the command line's (built here). Extra arguments go to pytest.
# POLYPATCH_PY_VENV names the environment (default: a folder under the cargo target dir).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="${POLYPATCH_PY_VENV:-$target/python-venv}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.9,<2' pytest mypy
# The bindings build in their own target folder: their workspace is not the repository's.
CARGO_TARGET_DIR="$target/python" VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
    "$venv/bin/maturin" develop --quiet --manifest-path bindings/python/Cargo.toml
"$venv/bin/python" -m mypy --strict bindings/python/python/polypatch
# The command line, whose `--json` documents the package's reports must equal (after
# `cargo test --workspace` it is already built).
cargo build --quiet -p polypatch-cli
POLYPATCH_CLI="$target/debug/polypatch" "$venv/bin/python" -m pytest -q bindings/python/tests "$@"
