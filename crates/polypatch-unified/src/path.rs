//! Paths in diff headers: git's C-quoted paths, `/dev/null`, timestamps, strip levels.
