"""The recipes of docs/architecture.md, followed in a scratch copy of the tree: a new
action kind and a new per-cgroup counter. Each recipe lists every file the
change touches (tests and docs included); the test makes the change file by
file, shows that the checks fail while a listed file is left out, that they
pass once every one is done, and that the files it had to change are the
ones the recipe lists, no more and no fewer."""
import fnmatch
import hashlib
import os
import re
import shutil
import subprocess


from conftest import REPO, host_only

pytestmark = host_only

RECIPES = "docs/architecture.md"


def scratch_tree(tmp_path):
    """The working tree without .git and the lab's images; build/ kept
    (mtimes too) so that make rebuilds only what the recipe touched."""
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns(".git", "vm", "test-times", "__pycache__", "*.deb")
    shutil.copytree(REPO, tree, symlinks=True, ignore=ignore, copy_function=shutil.copy2)
    return tree


def digests(tree):
    out = {}
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != "build"]
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                out[os.path.relpath(p, tree)] = hashlib.sha1(open(p, "rb").read()).hexdigest()
    return out


def changed(tree, before):
    after = digests(tree)
    return {p for p in after.keys() | before.keys() if after.get(p) != before.get(p)}


def edit(tree, rel, pattern, repl, count=1):
    p = tree / rel
    text, n = re.subn(pattern, repl, p.read_text(), count=count, flags=re.S)
    assert n == count, f"{rel}: the recipe's anchor {pattern!r} is gone"
    p.write_text(text)


def run_in_tree(tree, *args, timeout=900):
    # Not the calling make's: `make check` runs this under SANITIZE=... in
    # MAKEFLAGS, which would build the scratch tree into build-san.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "SANITIZE")}
    return subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True,
                          timeout=timeout)


def build(tree, *targets):
    p = run_in_tree(tree, "make", "-j2", *targets)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]


def docs_check(tree, test):
    """One test of the tree's own test_docs, run against its own build."""
    env = dict(os.environ, TAOD_BUILD=str(tree / "build"), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"tests/integration/test_docs.py::{test}"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=300)


def recipe_items(intro, end):
    """docs/architecture.md's numbered list after @intro: each item's backticked paths."""
    text = (REPO / RECIPES).read_text()
    body = text.split(intro, 1)[1].split(end, 1)[0]
    items = re.split(r"^\d+\. ", body, flags=re.M)[1:]
    return [re.findall(r"`([\w./*-]+/[\w./*-]+)`", i) for i in items]


def recipe_rows(header):
    """docs/architecture.md's table after @header: each row's first-cell paths."""
    text = (REPO / RECIPES).read_text()
    table = text.split(header, 1)[1].split("\n\n", 1)[0]
    return [re.findall(r"`([^`]+)`", line.split("|")[1])
            for line in table.splitlines()[1:] if line.startswith("| ")]


def claimed(path, patterns):
    return any(path == p or fnmatch.fnmatch(path, p) or
               (p.endswith("/") and path.startswith(p)) for p in patterns)


def assert_recipe_is_the_change(files, items, optional=()):
    """Every item of the recipe names a changed file, every changed file is
    named by an item: the recipe counts the change, no more, no fewer."""
    for item in items:
        if item and not set(item) & set(optional):
            assert any(claimed(f, item) for f in files), f"recipe item {item}: no file changed"
    for f in files:
        assert any(claimed(f, item) for item in items), f"{f} changed, the recipe omits it"


ACTION_ROW = r'(X\(RESIZE_ZONES,.*?"move memory blocks between the TAO policy zones"\))'
PROBE_TEST = """// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>

#include "act/act_backend.h"
#include "common/action_kinds.h"

Test(backend_stock, probe_is_a_kind_the_stock_backend_carries)
{
	cr_assert_eq(action_kind_by_name("probe"), ACTION_PROBE);
	cr_assert_not_null(backend_stock_ops.op[ACTION_PROBE]);
}
"""


def test_recipe_for_a_new_action_kind_lists_every_file_it_touches(tmp_path):
    items = recipe_items("A new action kind touches:", "A function large enough")
    assert len(items) >= 5, items
    tree = scratch_tree(tmp_path)
    before = digests(tree)
    # 1. The row: the build takes it, the docs' lists do not yet.
    edit(tree, "daemon/common/action_kinds.h", ACTION_ROW,
         r'\1 \\\n\tX(PROBE, "probe", false, false, false, false, false, "a recipe test\'s kind")')
    build(tree, "all")
    test = "test_docs_list_every_action_kind_as_the_table_has_them"
    assert docs_check(tree, test).returncode != 0, "the docs' lists ignore a new kind"
    # 2. The backend's function and op[ACTION_PROBE].
    edit(tree, "daemon/act/stock/backend_stock.c",
         r"(const struct act_backend_ops backend_stock_ops = \{)",
         "static void stock_probe(const struct act_ctx *c, const struct action_request *req,\n"
         "\t\t\tuint64_t budget, struct act_outcome *o)\n{\n\t(void)c;\n\t(void)req;\n"
         "\t(void)budget;\n\tact_outcome_set(o, RESULT_DONE, 0, \"probed\");\n}\n\n\\1")
    edit(tree, "daemon/act/stock/backend_stock.c", r"(\.op =\s*\{)",
         r"\1\n\t    [ACTION_PROBE] = stock_probe,")
    # 3. policies.md's table under "Acting"; 4. taoctl.8's list.
    edit(tree, "docs/policies.md", r"(\n\| resize-zones \|[^\n]*\n)",
         r"\1| probe | unsupported | logged as probed |\n")
    p = docs_check(tree, test)
    assert p.returncode != 0 and "taoctl.8" in p.stdout, p.stdout[-2000:]
    edit(tree, "man/taoctl.8", r"(Send one request \([a-z, -]*?resize-zones)\)", r"\1, probe)")
    # 5. Its test beside the backend's; 6. the kinds' words the unit test expects.
    (tree / "tests/unit/act/stock/test_probe.c").write_text(PROBE_TEST)
    p = run_in_tree(tree, "make", "-j2", "unit-test")
    assert p.returncode != 0 and "action_kind_words" in p.stdout + p.stderr, p.stdout[-2000:]
    edit(tree, "tests/unit/common/test_action_kinds.c", r'(shatter, collapse, resize-zones)"',
         r'\1, probe"')
    build(tree, "all", "unit-test")
    p = docs_check(tree, test)
    assert p.returncode == 0, p.stdout[-3000:]
    assert_recipe_is_the_change(changed(tree, before), items)


def test_recipe_for_a_new_counter_lists_every_file_it_touches(tmp_path):
    rows = recipe_rows("| file | what to add |")
    assert len(rows) >= 5, rows
    migration = [p for row in rows for p in row if "history" in p]
    tree = scratch_tree(tmp_path)
    before = digests(tree)
    edit(tree, "include/taod/thp_observe.h",
         r'(X\(split_exact, "split_exact", 0, "", ""\))',
         r'\1 \\\n\tX(recipe_probe, "recipe_probe", 0, "", "")')
    edit(tree, "bpf/thp_observe/thp_paths.bpf.c", r"(c->thp_fault_fallback\+\+;)",
         r"c->recipe_probe++, \1")  # one statement: it may stand under an if
    build(tree, "all")
    test = "test_protocol_doc_lists_a_cgroups_row_in_reply_order"
    p = docs_check(tree, test)
    assert p.returncode != 0 and "cgroups row" in p.stdout, p.stdout[-2000:]
    for doc in ("docs/protocol.md", "docs/operations.md"):
        edit(tree, doc, r"(`cgroups`: [^\n]*?\bsplit_exact`?,)", r"\1 recipe_probe,")
    edit(tree, "docs/protocol.md", r"recipe_probe,", "`recipe_probe`,")
    p = docs_check(tree, test)
    assert p.returncode == 0, p.stdout[-3000:]
    assert_recipe_is_the_change(changed(tree, before), rows, optional=migration)
