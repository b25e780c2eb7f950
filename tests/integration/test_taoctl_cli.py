"""taoctl's command line (issue 28 items 1-7): each command's --help, usage
errors found before anything is sent and named by option, errors as JSON
with --json, -c CONFIG with errors taoctl does not need, messages that say
what is true, taod's -d and config typos, and verdicts hysteresis holds."""
import json
import re
import time

from conftest import REPO, TAOD, cgroup_row, host_only, run_taod, taoctl, wait_for
from test_docs import taoctl_commands
from test_taoctl_ux import man_sections


@host_only
def test_every_command_has_help_and_the_man_page_says_so():
    """--help and -h print the command's usage on stdout, exit 0, and send
    nothing (no taod listens on this socket)."""
    commands = taoctl_commands()
    assert len(commands) >= 12
    page = man_sections("taoctl.8")["COMMANDS"].replace("\\-", "-")
    for cmd in commands:
        for flag in ("--help", "-h"):
            p = taoctl("--socket", "/nonexistent.sock", cmd, flag)
            assert p.returncode == 0, (cmd, flag, p.stderr)
            assert p.stdout.startswith(f"Usage: taoctl {cmd}"), (cmd, p.stdout)
            assert p.stderr == "", (cmd, p.stderr)
        # A one-line .TP tag, "\fBcmd\fR [options]", or a .B line.
        assert re.search(rf"^(\.B[IR]? \"?|\\fB){re.escape(cmd)}\b", page, re.M), \
            f"taoctl.8 lacks {cmd}"
    assert "COMMAND \\-\\-help" in (REPO / "man/taoctl.8").read_text()


USAGE_ERRORS = [
    (["status", "extra"], 'status: unexpected argument "extra"'),
    (["metrics", "bogus"], 'metrics: unexpected argument "bogus"'),
    (["reload", "x"], 'reload: unexpected argument "x"'),
    (["policy", "--help-me"], "policy: unknown option --help-me"),
    (["policy", "/a", "/b"], 'policy: unexpected argument "/b"'),
    (["explain"], "explain: missing CGROUP|PID"),
    (["cgroups", "--sort", "bogus"], '--sort "bogus": expected one of path, anon'),
    (["cgroups", "--sort"], "cgroups: --sort needs an argument (KEY)"),
    (["cgroups", "--frob"], "cgroups: unknown option --frob"),
    (["act"], "act: missing ACTION"),
    (["act", "frobnicate", "--cgroup", "/x"], 'act: unknown ACTION "frobnicate"'),
    (["act", "warn", "--cgroup", "/x/"], 'act: --cgroup "/x/": has an empty'),
    (["act", "warn"], "act: warn needs --cgroup PATH"),
    (["act", "shatter", "--cgroup", "/x", "--sizes", "huge"], '--sizes "huge": expected pmd'),
    (["act", "--cgroup", "/x", "warn"], "act: ACTION comes first"),
    (["top-tasks", "--cgroup", "web*"], '--cgroup "web*": no cgroup path can match it'),
    (["zones", "--apply", "--nosplit", "lots"], '--nosplit "lots": expected SIZE,ORDER'),
    (["zones", "--apply", "--nomerge", "512M,x"], '--nomerge "512M,x": expected SIZE,ORDER'),
]


@host_only
def test_usage_errors_are_found_before_anything_is_sent(daemon):
    """Exit 2, named by option (not taod's args.X), while taod would have
    answered: each is refused by taoctl itself."""
    for args, said in USAGE_ERRORS:
        rc, out, err = daemon.ctl_rc(*args)
        assert rc == 2, (args, rc, out, err)
        assert said in err, (args, err)
        assert "args." not in err, (args, err)
    assert daemon.ctl("actions") == [], "nothing reached the gate"


@host_only
def test_a_glob_without_a_leading_slash_says_no_path_can_match(daemon):
    rc, out, err = daemon.ctl_rc("cgroups", "newbie*")
    assert rc == 2 and 'GLOB "newbie*": no cgroup path can match it' in err, err
    assert '"/newbie*"' in err, err
    assert daemon.ctl_rc("cgroups", "*newbie*")[0] == 0


@host_only
def test_json_errors_are_json_on_stdout(daemon, tmp_path):
    for args, rc_want in ((["cgroups", "--sort", "bogus"], 2), (["status", "extra"], 2),
                          (["explain", "999999999"], 1)):
        rc, out, err = daemon.ctl_rc("--json", *args)
        assert rc == rc_want, (args, err)
        o = json.loads(out)
        assert o["exit"] == rc_want and o["error"], (args, o)
        assert o["error"].split("\n")[0] in err, (args, o, err)
    p = taoctl("--socket", tmp_path / "none.sock", "status", "--json")
    assert p.returncode == 3
    assert json.loads(p.stdout) == {"error": f"taod is not running (nothing listens on "
                                             f"{tmp_path}/none.sock)", "exit": 3}
    rc, out, err = daemon.ctl_rc("--json", "status")  # success: the reply alone
    assert rc == 0 and "error" not in json.loads(out)


@host_only
def test_c_config_with_errors_taoctl_does_not_need_still_reaches_taod(daemon, tmp_path):
    conf = tmp_path / "typo.conf"
    conf.write_text(f"[daemon]\ntick = never\n[deamon]\nroot = /\n"
                    f"[control]\nsocket = {daemon.socket}\nbogus = 1\n")
    for cmd in ("status", "policy"):
        p = taoctl("-c", conf, cmd)
        assert p.returncode == 0, (cmd, p.stderr)
        assert f"{conf}:2:" in p.stderr and f"{conf}:3:" in p.stderr, p.stderr
        assert "warning" in p.stderr, p.stderr
    bad = tmp_path / "bad.conf"
    bad.write_text("[control]\nsocket = relative.sock\n")
    p = taoctl("-c", bad, "status")
    assert p.returncode == 2 and f"{bad}:2: [control] socket" in p.stderr, p.stderr


@host_only
def test_taod_missing_dropin_dir_is_an_error(tmp_path):
    conf = tmp_path / "taod.conf"
    conf.write_text("[daemon]\n")
    p = run_taod("--check-config", "-c", conf, "-d", tmp_path / "absent.d")
    assert p.returncode == 2, p.stdout
    assert f"--dropin-dir {tmp_path}/absent.d: No such file or directory" in p.stderr
    (tmp_path / "here.d").mkdir()
    assert run_taod("--check-config", "-c", conf, "-d", tmp_path / "here.d").returncode == 0


@host_only
def test_config_typos_are_named_at_their_line_with_a_suggestion(tmp_path):
    conf = tmp_path / "taod.conf"
    conf.write_text("[deamon]\ntick = 1s\nroot = /\n[daemon]\ntikc = 1s\n"
                    "[policy web]\nmatch = /web/*\nwindw = 5s\n")
    p = run_taod("--check-config", "-c", conf)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [
        f"{conf}:1: unknown section [deamon] (did you mean [daemon]?)",
        f'{conf}:5: [daemon] unknown key "tikc" (did you mean tick?)',
        f'{conf}:8: [policy web] unknown key "windw" (did you mean window?)']


@host_only
def test_policy_prints_built_in_once_and_every_inherited_value(daemon):
    rc, out, err = daemon.ctl_rc("policy")
    assert rc == 0, err
    assert "((built-in))" not in out
    first = out.split("\n\n")[0] if "\n\n" in out else out
    inherited = re.search(r"from \[policy default\]: (.*)", out)
    keys = inherited.group(1).split() if inherited else \
        ["coverage_guarantee", "sizes", "act_when", "window", "ladder"]
    for key in keys:
        assert re.search(rf"^  {key} +=\s*\S", out, re.M), (key, out)
    assert re.search(r"^  sizes +=\s*pmd$", out, re.M), first


@host_only
def test_messages_say_what_is_true(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = dry-run\n"
                       f"audit_log = {tmp_path}/a.jsonl\n")
    cg = cgroups.make("true")
    rel = cgroups.rel(cg)
    rc, out, err = d.ctl_rc("act", "warn", "--cgroup", rel + "-never")
    assert rc == 1 and f"no such cgroup {rel}-never" in err and "vanished" not in out, (out, err)
    rc, out, err = d.ctl_rc("act", "warn", "--cgroup", rel, "--pid", "1")
    assert rc == 1 and f"task 1 is not in {rel}" in err, err
    assert "no longer" not in err
    rc, out, err = d.ctl_rc("act", "warn", "--cgroup", rel, "--dry-run")
    assert rc == 0 and "dry-run (asked): would warn" in out and "policy" not in out, out
    rc, out, err = d.ctl_rc("explain", "999999999")
    assert rc == 1 and "no such process 999999999" in err, err


@host_only
def test_a_cgroup_never_judged_shows_no_verdict(daemon_factory, cgroups):
    d = daemon_factory("[policy default]\nwindow = 10m\n")
    rel = cgroups.rel(cgroups.make("unjudged"))
    row = wait_for(lambda: cgroup_row(d, rel), what="the cgroup tracked")
    assert row["verdict"] is None or row["verdict"]["class"] is None, row
    rc, out, err = d.ctl_rc("cgroups", "--all", rel)  # idle: left out without --all
    line = next(ln for ln in out.splitlines() if ln.startswith(rel))
    assert " good " not in line and re.search(r"\s-\s+-\s+-\s", line), line


THP_KIB = 2048


def test_a_held_verdict_says_why_it_contradicts_the_score(daemon_factory, cgroups, tmp_path):
    """Hysteresis keeps a tenant good while its score says abuser: the
    VERDICT column says so, with the score and the streak."""
    base = cgroups.rel(cgroups.base)
    d = daemon_factory(f"[policy tests]\nmatch = {base}/taodtest-*\nwindow = 1s\n"
                       "min_allocs = 8\nescalate_after = 1000\n")
    cg = cgroups.make("held")
    rel = cgroups.rel(cg)
    p = cgroups.workload(cg, "fault", 32, "partial", 32, "hold", 60)
    v = wait_for(lambda: (r := cgroup_row(d, rel)) and r["verdict"] and
                 r["verdict"].get("held") and r["verdict"], timeout=30,
                 what="a window above the class")
    assert v["class"] == "good" and v["score"] > 1, v
    assert re.fullmatch(r"score \d+\.\d\d above [12] for \d+ of 1000 windows", v["held"]), v
    rc, out, err = d.ctl_rc("cgroups", rel)
    assert "good (held: score " in out, out
    p.kill()
