"""The include graph has no edge from an earlier pipeline stage to a later
one, each header beside the code declares only its own folder's functions,
and include/taod/ holds only contracts (tests/check_layering.py); the
checks themselves catch each."""
import re
import subprocess
import sys

import pytest

from conftest import REPO, host_only

pytestmark = host_only

sys.path.insert(0, str(REPO / "tests"))
import check_layering  # noqa: E402


def test_repo_has_no_back_edges():
    p = subprocess.run([sys.executable, str(REPO / "tests/check_layering.py"), str(REPO)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


def tree(tmp_path, files):
    for rel, text in files.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return tmp_path


CASES = {
    "source includes a later stage": ({
        "daemon/decide/decide.c": '#include "decide.h"\n#include "report/metrics.h"\n',
        "daemon/report/metrics.c": '#include "metrics.h"\n#include "decide/decide.h"\n',
        "daemon/decide/decide.h": "",
        "daemon/report/metrics.h": "",
    }, [("daemon/decide/decide.c", "decide", "report/metrics.h", "report")]),
    "header includes a later stage": ({
        "daemon/config/config.c": "",
        "daemon/act/act_settings.c": "",
        "daemon/config/config.h": '#include "act/act_settings.h"\n',
        "daemon/act/act_settings.h": "",
    }, [("daemon/config/config.h", "config", "act/act_settings.h", "act")]),
    "contract ranks as the earliest stage it names": ({
        "daemon/observe/x.c": '#include "taod/action.h"\n',
        "include/taod/action.h": "/*\n * Contract: decide -> act.\n */\n",
    }, [("daemon/observe/x.c", "observe", "taod/action.h", "decide")]),
    "contract of no stage": ({
        "daemon/observe/x.c": '#include "taod/mystery.h"\n',
        "include/taod/mystery.h": "/* shared by someone */\n",
    }, [("daemon/observe/x.c", "observe", "taod/mystery.h",
         'no stage: a contract needs a "Contract:" line'),
        ("include/taod/mystery.h", None, None, 'no stage: a contract needs a "Contract:" line')]),
}


@pytest.mark.parametrize("case", CASES)
def test_check_finds(tmp_path, case):
    files, expected = CASES[case]
    assert check_layering.back_edges(tree(tmp_path, files)) == expected


def test_a_function_defined_outside_its_headers_folder_is_reported(tmp_path):
    repo = tree(tmp_path, {
        "daemon/report/metrics.c": "int metrics_write(void)\n{\n\treturn 0;\n}\n",
        "daemon/report/stage.c": "void report_stage_tick(void)\n{\n}\n",
        "daemon/pipeline.c": "static int helper(void)\n{\n\treturn 0;\n}\n",
        "daemon/report/metrics.h": "int metrics_write(void);\n",
        "daemon/pipeline.h": "int pipeline_tick(void);\nvoid report_stage_tick(void);\n"
                             "static inline int f(void) { return 0; }\n",
    })
    assert check_layering.misplaced_functions(repo) == [
        ("pipeline.h", "pipeline", "pipeline_tick", []),
        ("pipeline.h", "pipeline", "report_stage_tick", ["report"])]


def test_calls_that_go_round_inside_a_folder_are_reported(tmp_path):
    """a.c calls b.c and b.c calls a.c: one unit in two files. A chain
    through a third file that calls no one back is fine."""
    repo = tree(tmp_path, {
        "daemon/report/a.c": "int a_one(void)\n{\n\treturn b_one();\n}\n",
        "daemon/report/b.c": "int b_one(void)\n{\n\treturn a_one() + c_one();\n}\n",
        "daemon/report/c.c": "/* a_one() in a comment is no call */\n"
                             "int c_one(void)\n{\n\treturn 0;\n}\n",
    })
    assert check_layering.folder_cycles(repo) == [("report", ["a.c", "b.c"])]
    (repo / "daemon/report/b.c").write_text("int b_one(void)\n{\n\treturn c_one();\n}\n")
    assert check_layering.folder_cycles(repo) == []


def test_include_taod_holds_only_contracts():
    """A header that is not a contract lives beside its code: each file
    left in include/taod/ names the boundary it crosses."""
    for h in sorted(REPO.glob("include/taod/*.h")):
        assert check_layering.contract_stage(h), f"{h.name} has no Contract: line"


def test_json_is_built_one_way():
    """Objects are filled by the json_add_* adders and serialized by
    json_to_text (valid UTF-8); only a request keeps its bytes as given."""
    raw = {"json_object_object_add(": set(),
           "json_object_to_json_string": {"daemon/common/json_text.c", "daemon/control/protocol.c"},
           '"{\\"': set()}
    for f in sorted(REPO.glob("daemon/**/*.c")):
        text, rel = f.read_text(errors="replace"), str(f.relative_to(REPO))
        for needle, allowed in raw.items():
            assert needle not in text or rel in allowed, f"{rel} uses {needle}"


def test_tests_use_public_headers_only():
    """Unit and fuzz tests reach the daemon through its folders' headers and
    the contracts, never a folder's private header (daemon/*/..._internal.h)."""
    tests = (REPO / "tests").resolve()
    files = sorted(list(REPO.glob("tests/unit/**/*.[ch]")) + list(REPO.glob("tests/fuzz/*.[ch]")))
    assert any(f.parent.name == "support" for f in files), "the glob finds the unit tests"
    for f in files:
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read_text(), re.M):
            here = (f.parent / inc).resolve()
            daemon = REPO / "daemon" / inc
            public = daemon.exists() and not inc.endswith("_internal.h")
            assert inc.startswith("taod/") or public or \
                here.exists() and here.is_relative_to(tests), f"{f.relative_to(REPO)} includes {inc}"


def test_calls_through_an_inline_function_tie_files(tmp_path):
    """b.c calls a.c, and a.c calls b.h's inline function: the two go
    round though no .c file calls the other's. Across a stage's rooms too."""
    repo = tree(tmp_path, {
        "daemon/account/a.c": "int a_one(void)\n{\n\treturn b_find(0);\n}\n",
        "daemon/account/b.h": "static inline int b_find(int x)\n{\n\treturn x;\n}\n",
        "daemon/account/b.c": "int b_one(void)\n{\n\treturn a_one();\n}\n",
        "daemon/act/gate/g.c": "int g_one(void)\n{\n\treturn t_one();\n}\n",
        "daemon/act/tao/t.c": "int t_one(void)\n{\n\treturn g_two();\n}\n",
        "daemon/act/gate/g2.c": "int g_two(void)\n{\n\treturn g_one();\n}\n",
    })
    assert check_layering.stage_cycles(repo) == [
        ("account", ["a.c", "b.c"]), ("act", ["gate/g.c", "gate/g2.c", "tao/t.c"])]
    (repo / "daemon/account/a.c").write_text("int a_one(void)\n{\n\treturn 1;\n}\n")
    assert check_layering.stage_cycles(repo)[:1] == [("act", ["gate/g.c", "gate/g2.c", "tao/t.c"])]


def test_a_prototype_inside_a_source_file_is_reported(tmp_path):
    """A .c file that declares another file's function hides the tie from
    the headers; a static forward declaration and a call are fine."""
    repo = tree(tmp_path, {
        "daemon/decide/judge.c": "int judge_add(int id)\n{\n\treturn id;\n}\n",
        "daemon/decide/decide.c": "#include \"decide.h\"\n\nint judge_add(int id);\n"
                                  "extern void judge_gone(void);\n"
                                  "static int helper(void);\n\n"
                                  "int decide_pass(void)\n{\n\treturn judge_add(1) + helper();\n}\n"
                                  "static int helper(void)\n{\n\treturn 0;\n}\n",
    })
    assert check_layering.prototypes_in_sources(repo) == [
        ("daemon/decide/decide.c", 3, "judge_add", "daemon/decide/judge.c"),
        ("daemon/decide/decide.c", 4, "judge_gone", "")]
