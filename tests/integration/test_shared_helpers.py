"""A test helper has one home (issue 29): a function defined at the top of
two Python files under tests/ is a copy waiting to drift (enable_memory_below's
two copies did), so it belongs in tests/integration/conftest.py, imported
where it is used. The check itself catches a copy."""
import ast
from collections import defaultdict

from conftest import REPO, host_only

pytestmark = host_only

# Names more than one file may define, each with why it is not a copy.
ALLOWED = {
    # Every script's entry point (check_layering.py, test_times.py, the
    # benchmarks, the tenants): each is its own program.
    "main": "a script's entry point",
    # The systemd suite drives the installed service through its own taoctl
    # in an emulated guest: its wait_for rides out a reply taod gave too late
    # (TaodBusy) and scales by that suite's SCALE; the integration suite's
    # knows neither.
    "wait_for": "the systemd suite's own, retrying a busy taod",
}


def top_level_functions(tests):
    """{name: [file relative to @tests, ...]} of the functions defined at the
    top of each Python file under @tests (pytest's hooks are per suite)."""
    found = defaultdict(list)
    for f in sorted(tests.rglob("*.py")):
        for node in ast.parse(f.read_text(), str(f)).body:
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not node.name.startswith(("test_", "pytest_"))):
                found[node.name].append(str(f.relative_to(tests)))
    return found


def copies(tests, allowed=ALLOWED):
    return {name: files for name, files in top_level_functions(tests).items()
            if len(files) > 1 and name not in allowed}


def test_no_helper_is_defined_twice():
    dup = copies(REPO / "tests")
    assert not dup, "helpers defined in more than one file (move each to " \
        "tests/integration/conftest.py and import it): " + \
        "; ".join(f"{name}: {', '.join(files)}" for name, files in sorted(dup.items()))


def test_a_copy_is_caught(tmp_path):
    (tmp_path / "integration").mkdir()
    (tmp_path / "integration/test_a.py").write_text(
        "def judged(d, rel):\n    pass\n\ndef test_x():\n    pass\n\ndef main():\n    pass\n")
    (tmp_path / "integration/test_b.py").write_text(
        "def judged(d, rel):\n    pass\n\ndef test_x():\n    pass\n\ndef main():\n    pass\n"
        "def outer():\n    def judged():\n        pass\n")
    (tmp_path / "tao").mkdir()
    (tmp_path / "tao/conftest.py").write_text("def pytest_configure(config):\n    pass\n"
                                              "def other():\n    pass\n")
    (tmp_path / "integration/conftest.py").write_text("def pytest_configure(config):\n    pass\n")
    # A test's own name, a hook, main, a nested helper: none is a copy.
    assert copies(tmp_path) == {"judged": ["integration/test_a.py", "integration/test_b.py"]}
