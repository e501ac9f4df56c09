//! before/after → git-compatible unified diff. (Owned by the binary/generate work.)
