"""The Python package's tests: real files in a temporary directory, exact bytes after
applying, exact failure kinds and fields, and nothing written on a failure."""

import doctest
import hashlib
import json
import os
import subprocess

import pytest

import polypatch

DIFF = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
AIPATCH_B = "*** Begin Patch\n*** Update File: b.txt\n@@\n-bee\n+BEE\n*** End Patch\n"


@pytest.fixture
def root(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\nthree\n")
    (tmp_path / "b.txt").write_bytes(b"bee\n")
    return tmp_path


def test_apply_writes_the_file_and_reports_each_edit(root):
    report = polypatch.apply(DIFF, root)
    assert (root / "a.txt").read_bytes() == b"one\n2\nthree\n"
    assert report.status == "applied" and report.ok and report.committed
    [file] = report.files
    assert (file.path, file.operation, file.status, file.block) == ("a.txt", "modify", "applied", None)
    [edit] = file.edits
    assert (edit.name, edit.status, str(edit.lines), edit.tier, edit.confidence) == (
        "hunk 1",
        "applied",
        "lines 1-3",
        "exact",
        1.0,
    )
    assert str(report) == "applied: modify a.txt\n  hunk 1: applied at lines 1-3\n"
    assert report.blocks == []
    # Applied again, nothing changes and nothing fails.
    assert polypatch.apply(DIFF, root).status == "already_applied"


def test_a_character_of_the_raw_byte_range_is_written_as_itself(root):
    # U+10FF80..U+10FFFF is the range the engine's text uses for bytes that are not UTF-8:
    # in a Python string it is that character (a diff wrote the one byte 0xEE before).
    diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+t\U0010ffeeo\n three\n"
    polypatch.apply(diff, root)
    assert (root / "a.txt").read_bytes() == "one\nt\U0010ffeeo\nthree\n".encode()
    texts, _ = polypatch.apply_to_files(diff, {"a.txt": "one\ntwo\nthree\n"})
    assert texts == {"a.txt": "one\nt\U0010ffeeo\nthree\n"}


def test_root_accepts_a_path_and_a_string(root):
    polypatch.apply(DIFF, str(root))
    assert (root / "a.txt").read_bytes() == b"one\n2\nthree\n"


def test_a_dry_run_writes_nothing(root):
    report = polypatch.apply(DIFF, root, dry_run=True)
    assert (root / "a.txt").read_bytes() == b"one\ntwo\nthree\n"
    assert report.status == "dry_run" and report.dry_run and not report.committed
    assert report.files[0].status == "located"
    assert report.files[0].edits[0].status == "located"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "b.txt"]
    assert polypatch.check(DIFF, root).status == "dry_run"
    assert (root / "a.txt").read_bytes() == b"one\ntwo\nthree\n"


def test_a_failed_edit_raises_apply_error_with_the_report_and_writes_nothing(root):
    # Two files: the second fails, so the first is not written either.
    patch = (
        "*** Begin Patch\n*** Update File: b.txt\n@@\n-bee\n+BEE\n"
        "*** Update File: a.txt\n@@\n one\n-tw0\n+2\n three\n*** End Patch\n"
    )
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply(patch, root)
    err = caught.value
    assert isinstance(err, polypatch.PolypatchError)
    assert (root / "a.txt").read_bytes() == b"one\ntwo\nthree\n"
    assert (root / "b.txt").read_bytes() == b"bee\n"
    report = err.report
    assert report.status == "failed" and not report.ok
    assert [(f.path, f.status) for f in report.files] == [("b.txt", "located"), ("a.txt", "failed")]
    file, edit, failure = report.first_failure
    assert (file.path, edit.name, failure.kind) == ("a.txt", "hunk 1", "not_found")
    assert failure.next_step, "a failure says what to do next"
    assert failure.closest is not None and str(failure.closest.lines) == "lines 1-3"
    assert failure.closest.diff.endswith("@@ -1,3 +1,3 @@\n one\n-tw0\n+two\n three\n")
    assert str(err).startswith("a.txt: hunk 1: not found: ")
    text = str(report)
    assert "FAILED: modify a.txt" in text and "next step: " in text
    assert err.commit_error is None and err.rolled_back is None
    assert report.to_dict()["status"] == "failed"


def test_a_malformed_patch_raises_patch_error_with_line_column_and_kind(root):
    patch = "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n"
    with pytest.raises(polypatch.PatchError) as caught:
        polypatch.apply(patch, root)
    err = caught.value
    assert isinstance(err, polypatch.PolypatchError)
    assert (err.kind, err.dialect, err.line, err.column, err.block) == ("invalid_header", "ai-patch", 2, 1, None)
    assert str(err).startswith("malformed ai-patch patch: ")
    assert "*** Frobnicate File: a.txt" in str(err), "the offending line is shown"
    assert err.document["status"] == "malformed" and err.document["version"] == 1
    assert json.loads(err.to_json()) == err.document
    assert (root / "a.txt").read_bytes() == b"one\ntwo\nthree\n"


def test_a_text_with_no_patch_is_a_patch_error(root):
    with pytest.raises(polypatch.PatchError) as caught:
        polypatch.apply("Sure! Here is the plan, no code yet.\n", root)
    assert (caught.value.kind, caught.value.line) == ("no_patch", None)
    assert str(caught.value).startswith("the reply holds no patch")


def test_crlf_files_keep_their_line_ends(root):
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    polypatch.apply("--- a/w.txt\n+++ b/w.txt\n@@ -2 +2 @@\n-two\n+2\n+2.5\n", root)
    assert (root / "w.txt").read_bytes() == b"one\r\n2\r\n2.5\r\nthree\r\n"


def test_a_whole_reply_with_two_blocks_is_one_transaction(root):
    reply = (
        "I changed two files.\n\n```diff\n" + DIFF + "```\n\nAnd the other one:\n\n```\n" + AIPATCH_B + "```\n\nDone.\n"
    )
    report = polypatch.apply(reply, root)
    assert (root / "a.txt").read_bytes() == b"one\n2\nthree\n"
    assert (root / "b.txt").read_bytes() == b"BEE\n"
    assert [(b.index, b.dialect, b.status, b.fence) for b in report.blocks] == [
        (1, "unified", "applied", "diff"),
        (2, "ai-patch", "applied", ""),
    ]
    assert [(f.path, f.block) for f in report.files] == [("a.txt", 1), ("b.txt", 2)]
    assert str(report).startswith("block 1 (unified, lines 4-10): applied\napplied: modify a.txt\n")
    doc = report.to_dict()
    assert doc["status"] == "applied" and len(doc["blocks"]) == 2


def test_a_reply_whose_second_block_fails_writes_nothing(root):
    bad = AIPATCH_B.replace("-bee", "-wasp")
    reply = "```diff\n" + DIFF + "```\n\n```\n" + bad + "```\n"
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply(reply, root)
    assert (root / "a.txt").read_bytes() == b"one\ntwo\nthree\n"
    assert [b.status for b in caught.value.report.blocks] == ["located", "failed"]
    assert str(caught.value).startswith("block 2 (ai-patch, lines 12-17): b.txt: hunk 1: not found")


def test_a_path_outside_the_root_is_refused(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    patch = "*** Begin Patch\n*** Add File: ../outside.txt\n+planted\n*** End Patch\n"
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply(patch, root)
    assert caught.value.report.first_failure[2].kind == "path_escapes_root"
    assert not (tmp_path / "outside.txt").exists()
    assert list(root.iterdir()) == []


def test_apply_to_files_returns_the_new_texts_and_none_for_deleted():
    files = {"a.txt": "one\ntwo\nthree\n", "gone.txt": "x\n", "kept.txt": "k\n"}
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+2\n*** Delete File: gone.txt\n"
        "*** Add File: new.txt\n+fresh\n*** End Patch\n"
    )
    texts, report = polypatch.apply_to_files(patch, files)
    assert texts == {"a.txt": "one\n2\nthree\n", "gone.txt": None, "new.txt": "fresh\n"}
    assert files["a.txt"] == "one\ntwo\nthree\n", "the input is not changed"
    assert report.status == "applied"
    assert [(f.path, f.operation, f.status) for f in report.files] == [
        ("a.txt", "modify", "applied"),
        ("gone.txt", "delete", "applied"),
        ("new.txt", "create", "applied"),
    ]


def test_apply_to_files_refuses_as_apply_does():
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply_to_files(DIFF, {"a.txt": "one\nthree\n"})
    assert caught.value.report.first_failure[2].kind == "not_found"
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply_to_files("--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", {"a.txt": "a\n"})
    assert caught.value.report.first_failure[2].kind == "path_escapes_root"


def test_read_hashes_refuse_a_file_changed_since_it_was_read(root):
    read = (root / "a.txt").read_bytes()
    hash_read = polypatch.hash(read)
    assert hash_read == "sha256:" + hashlib.sha256(read).hexdigest()
    assert polypatch.hash(read.decode()) == hash_read
    # Someone else changes the file after the agent read it.
    (root / "a.txt").write_bytes(b"zero\none\ntwo\nthree\n")
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply(DIFF, root, read_hashes={"a.txt": hash_read})
    failure = caught.value.report.first_failure[2]
    assert failure.kind == "changed_since_read"
    assert "changed since" in failure.message
    assert (root / "a.txt").read_bytes() == b"zero\none\ntwo\nthree\n"
    # The edits still match exactly: `exact` lets them through, with a note.
    report = polypatch.apply(DIFF, root, read_hashes={"a.txt": hash_read}, stale_read="exact")
    assert report.status == "applied"
    assert (root / "a.txt").read_bytes() == b"zero\none\n2\nthree\n"
    # The hash of what is there now: applied without a question.
    current = polypatch.hash((root / "b.txt").read_bytes())
    polypatch.apply(AIPATCH_B, root, read_hashes={"b.txt": current})
    assert (root / "b.txt").read_bytes() == b"BEE\n"


def test_read_hashes_in_memory():
    with pytest.raises(polypatch.ApplyError) as caught:
        polypatch.apply_to_files(DIFF, {"a.txt": "one\ntwo\nthree\n"}, read_hashes={"a.txt": polypatch.hash("old\n")})
    assert caught.value.report.first_failure[2].kind == "changed_since_read"


def test_bad_arguments_are_value_errors(root):
    with pytest.raises(ValueError, match="unknown format `yaml`; known formats: auto, ai-patch"):
        polypatch.apply(DIFF, root, format="yaml")
    with pytest.raises(ValueError, match="is not a file hash"):
        polypatch.apply(DIFF, root, read_hashes={"a.txt": "sha256:abc"})
    with pytest.raises(ValueError, match="stale_read is `refuse` or `exact`"):
        polypatch.apply(DIFF, root, stale_read="sometimes")
    with pytest.raises(FileNotFoundError):
        polypatch.apply(DIFF, root / "missing")
    with pytest.raises(TypeError):
        polypatch.hash(3)
    assert (root / "a.txt").read_bytes() == b"one\ntwo\nthree\n"


def test_a_named_format_reads_the_text_as_that_dialect(root):
    with pytest.raises(polypatch.PatchError) as caught:
        polypatch.apply(DIFF, root, format="ai-patch")
    assert caught.value.dialect == "ai-patch"
    assert polypatch.apply(DIFF, root, format="unified").status == "applied"


def test_the_json_document_is_the_cli_one(root):
    report = polypatch.apply(DIFF, root)
    doc = report.to_dict()
    assert json.loads(report.to_json()) == doc
    assert list(doc)[:2] == ["version", "status"]
    assert doc["version"] == 1
    assert doc["report"]["dialect"] == "unified"
    assert doc["report"]["files"][0]["edits"][0]["lines"] == {"start": 1, "end": 3}
    # The schema of that document is the report schema.
    assert "version" in polypatch.schema()["required"]


def test_detect_extract_convert_prompt_schema():
    assert polypatch.detect(DIFF) == "unified"
    assert polypatch.detect("hello\n") is None
    [block] = polypatch.extract("Here:\n\n```diff\n" + DIFF + "```\n")
    assert (block.dialect, block.text, block.fence, block.cut_off) == ("unified", DIFF, "diff", False)
    out = polypatch.convert(DIFF, "ai-patch", files={"a.txt": "one\ntwo\nthree\n"})
    assert out.startswith("*** Begin Patch\n*** Update File: a.txt\n")
    assert polypatch.apply_to_files(out, {"a.txt": "one\ntwo\nthree\n"})[0] == {"a.txt": "one\n2\nthree\n"}
    with pytest.raises(polypatch.PolypatchError, match="delete"):
        polypatch.convert("*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n", "ap", files={"a.txt": "x\n"})
    with pytest.raises(polypatch.ApplyError):
        polypatch.convert(DIFF, "ai-patch", files={"a.txt": "nothing alike\n"})
    assert "*** Begin Patch" in polypatch.prompt("ai-patch")
    with pytest.raises(ValueError):
        polypatch.prompt("klingon")
    assert polypatch.schema("aptix")["title"] == "AptixBundle"
    with pytest.raises(ValueError, match="no JSON Schema for `unified`"):
        polypatch.schema("unified")
    assert {"ai-patch", "unified", "ap", "applydiff", "aptix"} <= set(polypatch.formats())


def test_the_docstring_examples_run():
    results = doctest.testmod(polypatch, extraglobs={"polypatch": polypatch}, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 10
    assert results.failed == 0


CLI = os.environ.get("POLYPATCH_CLI")


@pytest.mark.skipif(not CLI, reason="POLYPATCH_CLI names the command line's binary (scripts/test-python.sh sets it)")
@pytest.mark.parametrize(
    "name, patch",
    [
        ("whole patch", DIFF),
        ("failing patch", DIFF.replace("-two", "-tw0")),
        ("malformed patch", "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n"),
        ("reply with two blocks", "Two:\n\n```diff\n" + DIFF + "```\n\n```\n" + AIPATCH_B + "```\n"),
        ("reply with a failing block", "```diff\n" + DIFF + "```\n\n```\n" + AIPATCH_B.replace("bee", "wasp") + "```\n"),
    ],
)
def test_the_json_document_is_what_the_command_line_prints(root, tmp_path_factory, name, patch):
    patch_file = tmp_path_factory.mktemp("patch") / "reply.md"
    patch_file.write_text(patch)
    cli = subprocess.run(
        [CLI, "check", "--json", "--root", str(root), str(patch_file)], capture_output=True, text=True, check=False
    )
    expected = json.loads(cli.stdout)
    try:
        got = polypatch.check(patch, root).to_dict()
    except polypatch.ApplyError as err:
        got = err.report.to_dict()
    except polypatch.PatchError as err:
        got = err.document
    assert got == expected, name


def test_results_are_read_only_records_compared_by_their_fields(root):
    report = polypatch.apply(DIFF, root, dry_run=True)
    edit = report.files[0].edits[0]
    assert edit.lines == polypatch.LineRange(1, 3) == polypatch.LineRange(start=1, end=3)
    assert hash(edit.lines) == hash(polypatch.LineRange(1, 3))
    assert {edit.lines: "found"}[polypatch.LineRange(1, 3)] == "found"
    assert repr(edit.lines) == "LineRange(start=1, end=3)"
    with pytest.raises(AttributeError, match="read-only"):
        edit.status = "applied"
    assert report.files == polypatch.check(DIFF, root).files
