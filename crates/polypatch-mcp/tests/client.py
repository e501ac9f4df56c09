"""`polypatch mcp` driven by the official MCP Python SDK (`mcp` on PyPI) over stdio.

Usage: python client.py POLYPATCH_BINARY [--log FILE]

Initializes, lists the tools, calls each one, a failing call, a path outside the root and
a CRLF file edited through `edit_file`, and checks the files on disk after each call; then,
as a client that announces roots, works in one of its roots, is refused another folder, and
withdraws the root (`notifications/roots/list_changed`).
With --log, every request and reply is written to FILE as JSON lines (the exchange quoted
in the project's notes). Exits 1 on the first failed check.
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

LOG = []


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def call(session, name, arguments):
    result = await session.call_tool(name, arguments)
    LOG.append({"call": name, "arguments": arguments, "isError": bool(result.is_error),
                "text": text_of(result), "structuredContent": result.structured_content})
    return result


async def scenario(binary, root):
    def path(name):
        return os.path.join(root, name)

    with open(path("app.py"), "w", newline="") as f:
        f.write("def greet():\n    print('hi')\n\ndef main():\n    greet()\n")
    with open(path("win.txt"), "wb") as f:
        f.write(b"first\r\nsecond\r\nthird\r\n")
    with open(path("dup.txt"), "w") as f:
        f.write("x = 1\ny = 2\nx = 1\n")

    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            LOG.append({"initialize": {"serverInfo": init.server_info.model_dump(), "instructions": init.instructions}})
            check(init.server_info.name == "polypatch", "initialize names the server")

            tools = await session.list_tools()
            names = sorted(t.name for t in tools.tools)
            LOG.append({"tools/list": [{"name": t.name, "inputSchema": t.input_schema} for t in tools.tools]})
            check(names == ["apply_patch", "edit_file", "read_file"], f"three tools listed: {names}")
            edit = next(t for t in tools.tools if t.name == "edit_file")
            check(set(edit.input_schema["properties"]) >= {"path", "edits", "dryRun"},
                  "edit_file takes the reference server's schema")

            # read_file: numbered lines and the hash.
            read = await call(session, "read_file", {"path": "app.py"})
            check(not read.is_error, "read_file reads")
            check("1\tdef greet():" in text_of(read), "read_file numbers the lines")
            hash_ = read.structured_content["hash"]
            check(hash_.startswith("sha256:") and len(hash_) == 71, "read_file gives the hash")

            # apply_patch: a diff, written.
            diff = ("--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet():\n-    print('hi')\n"
                    "+    print('hello')\n")
            applied = await call(session, "apply_patch", {"patch": diff, "read_hashes": {"app.py": hash_}})
            check(not applied.is_error, "apply_patch applies")
            check(applied.structured_content["status"] == "applied", "the JSON report says applied")
            check(open(path("app.py")).read() == "def greet():\n    print('hello')\n\ndef main():\n    greet()\n",
                  "app.py holds the change")

            # The same hash again: the file changed since it was read.
            stale = await call(session, "apply_patch", {
                "patch": "*** Begin Patch\n*** Update File: app.py\n@@\n def main():\n-    greet()\n+    greet()\n"
                         "+    greet()\n*** End Patch\n",
                "read_hashes": {"app.py": hash_}})
            check(stale.is_error and "changed since it was read" in text_of(stale), "a stale read is refused")

            # A failing call: the text is not in the file; nothing written.
            before = open(path("app.py")).read()
            failed = await call(session, "apply_patch", {
                "patch": "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-def nothing():\n+def something():\n"})
            check(failed.is_error, "a patch that does not apply is a tool error")
            check("not found" in text_of(failed).lower() or "could not" in text_of(failed).lower(),
                  "the error says why")
            check(open(path("app.py")).read() == before, "nothing written on failure")

            # edit_file: an ambiguous oldText is refused.
            dup = await call(session, "edit_file", {"path": "dup.txt", "edits": [{"oldText": "x = 1", "newText": "x = 3"}]})
            check(dup.is_error and "dup.txt" in text_of(dup), "an ambiguous oldText is refused")
            check(open(path("dup.txt")).read() == "x = 1\ny = 2\nx = 1\n", "dup.txt untouched")

            # edit_file on a CRLF file: a dry run first, then written, CRLF kept.
            dry = await call(session, "edit_file", {"path": "win.txt", "dryRun": True,
                                                     "edits": [{"oldText": "second\n", "newText": "2nd\n"}]})
            check(not dry.is_error and "-second" in text_of(dry) and "+2nd" in text_of(dry), "a dry run shows the diff")
            check(open(path("win.txt"), "rb").read() == b"first\r\nsecond\r\nthird\r\n", "a dry run writes nothing")
            crlf = await call(session, "edit_file", {"path": "win.txt",
                                                      "edits": [{"oldText": "second\n", "newText": "2nd\n"}]})
            check(not crlf.is_error, "edit_file edits the CRLF file")
            check(open(path("win.txt"), "rb").read() == b"first\r\n2nd\r\nthird\r\n", "CRLF is kept")

            # A path outside the root.
            for name, args in [("read_file", {"path": "../outside.txt"}),
                               ("edit_file", {"path": "../outside.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
                               ("apply_patch", {"patch": "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n"
                                                         "*** End Patch\n"})]:
                outside = await call(session, name, args)
                check(outside.is_error, f"{name} refuses a path outside the root")
            check(not os.path.exists(os.path.join(os.path.dirname(root), "outside.txt")), "nothing outside the root")


async def wait_for(session, arguments, want_error, tries=50):
    """Call read_file until its error state is ``want_error`` (the server asks for the
    client's roots in the background after initialization and after a change notice)."""
    for _ in range(tries):
        result = await session.call_tool("read_file", arguments)
        if bool(result.is_error) == want_error:
            return result
        await asyncio.sleep(0.05)
    return result


async def roots_scenario(binary, root, other):
    """A client that announces roots: the server serves them besides its own."""
    with open(os.path.join(other, "lib.txt"), "w") as f:
        f.write("alpha\nbeta\n")
    announced = [other]

    async def list_roots(context):
        LOG.append({"roots/list": announced[:]})
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{p}") for p in announced])

    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            uri = f"file://{other}"
            got = await wait_for(session, {"path": "lib.txt", "root": uri}, want_error=False)
            check(not got.is_error and "1\talpha" in text_of(got), "read_file reads in a root the client announced")
            edited = await call(session, "edit_file", {"path": os.path.join(other, "lib.txt"),
                                                       "edits": [{"oldText": "beta", "newText": "gamma"}]})
            check(not edited.is_error, "edit_file takes an absolute path inside a client root")
            check(open(os.path.join(other, "lib.txt")).read() == "alpha\ngamma\n", "the client root's file is edited")
            applied = await call(session, "apply_patch", {
                "root": other,
                "patch": "--- a/lib.txt\n+++ b/lib.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n gamma\n"})
            check(not applied.is_error, "apply_patch applies in the client root named by `root`")
            check(open(os.path.join(other, "lib.txt")).read() == "ALPHA\ngamma\n", "the patch wrote the client root")
            check(not os.path.exists(os.path.join(root, "lib.txt")), "nothing written in the server's own root")
            parent = os.path.dirname(other)
            stranger = await call(session, "read_file", {"path": "lib.txt", "root": parent})
            check(stranger.is_error and "not a root this server serves" in text_of(stranger),
                  "a root neither given nor announced is refused")
            outside = await call(session, "read_file", {"path": os.path.join(parent, "x.txt")})
            check(outside.is_error and "outside the roots" in text_of(outside),
                  "an absolute path outside every root is refused")
            announced.clear()
            await session.send_roots_list_changed()
            gone = await wait_for(session, {"path": "lib.txt", "root": uri}, want_error=True)
            check(gone.is_error, "a root the client withdrew is no longer served")


def main():
    binary = sys.argv[1]
    log = sys.argv[sys.argv.index("--log") + 1] if "--log" in sys.argv else None
    with tempfile.TemporaryDirectory() as top:
        root = os.path.join(top, "root")
        os.mkdir(root)
        asyncio.run(scenario(binary, root))
        other = os.path.join(top, "other")
        os.mkdir(other)
        asyncio.run(roots_scenario(binary, root, other))
    if log:
        with open(log, "w") as f:
            for entry in LOG:
                f.write(json.dumps(entry) + "\n")
    print("all checks passed")


if __name__ == "__main__":
    main()
