#!/usr/bin/python3
"""Where the test suite's time goes: each stage's wall time and the slowest
tests, printed at the end of `make check` and of each lab target, so a suite
creeping towards CI's limit is seen before it fails CI.

    test_times.py reset SUITE
    test_times.py stage SUITE NAME -- COMMAND...   run COMMAND, record its time
    test_times.py stage SUITE NAME SECONDS         record a stage timed elsewhere
                                                   (a lab guest)
    test_times.py run SUITE NAME SECONDS           record one test-like run
                                                   (a lab scenario's guest)
    test_times.py guests SUITE WALL LOG...         a lab's guests: each LOG's
                                                   stage from LOG.rc ("EXIT
                                                   SECONDS"), then the report
    test_times.py report SUITE [--wall SECONDS] [LOG...]
                                                   stages, then the 10 slowest
                                                   tests; --wall: the suite's
                                                   own time, when its stages
                                                   ran side by side

A suite's records live in build/test-times/SUITE/: stages.tsv (stage rows),
runs.tsv (run rows) and pytest JUnit files (*.xml, whose testcase times are
setup + call + teardown). LOG arguments are pytest outputs with --durations
(the lab guests' consoles), their phases summed per test and labelled with
the log's name.
"""
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TIMES = REPO / "build" / "test-times"
SLOWEST = 10
# pytest's --durations lines: "12.34s call     tests/x.py::test_y[param]"
DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)s (setup|call|teardown)\s+(\S.*?)\s*$")


def suite_dir(suite):
    d = TIMES / suite
    d.mkdir(parents=True, exist_ok=True)
    return d


def append(suite, table, *fields):
    with open(suite_dir(suite) / table, "a") as f:
        f.write("\t".join(str(x) for x in fields) + "\n")


def read_rows(path):
    if not path.exists():
        return []
    return [line.rstrip("\n").split("\t") for line in path.read_text().splitlines() if line]


def junit_tests(path):
    """(name, seconds) of each testcase of a pytest JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return []
    return [(f'{c.get("classname", "")}::{c.get("name", "")}', float(c.get("time") or 0))
            for c in root.iter("testcase")]


def log_tests(path):
    """(label: test, seconds) from pytest --durations lines in a log, the
    phases of one test added up."""
    total = defaultdict(float)
    text = Path(path).read_text(errors="replace") if Path(path).exists() else ""
    for line in text.splitlines():
        m = DURATION.match(line)
        if m:
            total[m.group(3)] += float(m.group(1))
    label = Path(path).name.removesuffix(".log")
    return [(f"{label}: {name}", secs) for name, secs in total.items()]


def cmd_stage(suite, name, command):
    t0 = time.monotonic()
    rc = subprocess.call(command)
    append(suite, "stages.tsv", name, f"{time.monotonic() - t0:.1f}", rc)
    return rc


def cmd_report(suite, logs, wall=None):
    d = suite_dir(suite)
    stages = read_rows(d / "stages.tsv")
    tests = [(name, float(secs)) for name, secs in read_rows(d / "runs.tsv")]
    for xml in sorted(d.glob("*.xml")):
        tests += [(f"{xml.stem}: {n}", s) for n, s in junit_tests(xml)]
    for log in logs:
        tests += log_tests(log)
    total = sum(float(s) for _, s, _ in stages)
    if wall is None:
        print(f"\ntest time, {suite}: {total:.0f} s in {len(stages)} stage(s)")
    else:
        print(f"\ntest time, {suite}: {wall:.0f} s; its {len(stages)} stage(s), side by side, "
              f"add up to {total:.0f} s")
    for name, secs, rc in stages:
        share = 100 * float(secs) / total if total else 0
        note = "" if rc == "0" else f"  (exit {rc})"
        print(f"  {float(secs):7.0f} s {share:4.0f}%  {name}{note}")
    if tests:
        print(f"the {min(SLOWEST, len(tests))} slowest of {len(tests)} tests:")
        for name, secs in sorted(tests, key=lambda t: -t[1])[:SLOWEST]:
            print(f"  {secs:7.1f} s  {name}")
    return 0


def cmd_guests(suite, wall, logs):
    """Stages from the guests' LOG.rc files, then the report with --wall."""
    for f in suite_dir(suite).iterdir():
        f.unlink()
    for log in logs:
        rc_file = Path(log + ".rc")
        words = rc_file.read_text().split() if rc_file.exists() else []
        rc, secs = (words + ["?", "0"])[:2]
        append(suite, "stages.tsv", f"guest {Path(log).stem} (exit {rc})", secs, 0)
    return cmd_report(suite, logs, wall)


def main(argv):
    if len(argv) >= 2 and argv[0] == "reset":
        for f in suite_dir(argv[1]).iterdir():
            f.unlink()
        return 0
    if len(argv) >= 4 and argv[0] == "stage" and argv[3] == "--":
        return cmd_stage(argv[1], argv[2], argv[4:])
    if len(argv) == 4 and argv[0] == "stage":
        append(argv[1], "stages.tsv", argv[2], f"{float(argv[3]):.1f}", 0)
        return 0
    if len(argv) == 4 and argv[0] == "run":
        append(argv[1], "runs.tsv", argv[2], f"{float(argv[3]):.1f}")
        return 0
    if len(argv) >= 3 and argv[0] == "guests":
        return cmd_guests(argv[1], float(argv[2]), argv[3:])
    if len(argv) >= 4 and argv[0] == "report" and argv[2] == "--wall":
        return cmd_report(argv[1], argv[4:], float(argv[3]))
    if len(argv) >= 2 and argv[0] == "report":
        return cmd_report(argv[1], argv[2:])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
