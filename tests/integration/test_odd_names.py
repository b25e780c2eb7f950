"""Cgroup names and trees are what their owner chose: whatever they hold, taod's
JSON, metrics textfile, audit log and journal lines stay valid and one
record per line."""
import json
import os
import resource
import subprocess

from conftest import TAOCTL, wait_for

ODD = b'taodtest-odd-\xff"q\\z\ttab'  # the kernel refuses '\n' in cgroup names
ODD_NO_NL = b'taodtest-odd-\xfe"q\\z'


def utf8_ok(data: bytes):
    data.decode("utf-8")  # raises on ill-formed bytes


def test_odd_cgroup_names_leave_taod_well_formed(daemon_factory, cgroups, tmp_path):
    prom = tmp_path / "taod.prom"
    audit = tmp_path / "audit.jsonl"
    made = [os.path.join(os.fsencode(cgroups.base), n) for n in (ODD, ODD_NO_NL)]
    for m in made:
        os.mkdir(m)
    try:
        d = daemon_factory(f"[metrics]\ntextfile = {prom}\n"
                           f"[enforce]\nmode = observe\naudit_log = {audit}\n")
        root = b"/sys/fs/cgroup/memory" if cgroups.version == 1 else b"/sys/fs/cgroup"
        rel = b"/" + os.path.relpath(made[1], root)

        def listed():
            raw = subprocess.run([str(TAOCTL), "--socket", d.socket, "--json", "cgroups"],
                                 capture_output=True, timeout=30).stdout
            utf8_ok(raw)
            return [c["path"] for c in json.loads(raw) if "taodtest-odd-" in c["path"]]
        paths = wait_for(lambda: len(listed()) == 2 and listed(), what="odd cgroups listed")
        assert any("\ufffd" in p and "\t" in p for p in paths), paths

        wait_for(prom.exists, what="metrics textfile")
        text = prom.read_bytes()
        utf8_ok(text)
        for line in text.decode().splitlines():
            assert line.startswith("#") or line.startswith("taod_"), line

        rc = subprocess.run([os.fsencode(TAOCTL), b"--socket", os.fsencode(d.socket), b"act",
                             b"warn", b"--cgroup", rel], capture_output=True,
                            timeout=30).returncode
        assert rc == 0
        wait_for(audit.exists, what="audit line")
        lines = audit.read_bytes().splitlines()
        assert len(lines) == 1
        utf8_ok(lines[0])
        rec = json.loads(lines[0])
        assert rec["result"] == "dry-run" and "\ufffd" in rec["cgroup"]
        # The journal notice: the value quoted, its quote, backslash and
        # invalid byte escaped, so the name cannot forge a field.
        escaped = rel.decode("latin-1").replace("\\", "\\\\").replace('"', '\\"')
        escaped = escaped.replace("\xfe", "\\xfe")
        assert f'kind=warn cgroup="{escaped}" pid=0 ' in d.logtext(), d.logtext()
    finally:
        for m in made:
            os.rmdir(m)


def test_a_tree_deeper_than_the_soft_fd_limit_is_seen_whole(daemon_factory, cgroups):
    """The walk holds a directory fd per level: a tenant nesting cgroups
    1100 deep under systemd's soft limit of 1024 fds hid its lower ones."""
    top = cgroups.make("deep")
    leaf = top
    for _ in range(1100):
        leaf = leaf / "d"
        leaf.mkdir()
    try:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        d = daemon_factory(wrap=("prlimit", f"--nofile=1024:{hard}"))
        rel = cgroups.rel(leaf)
        wait_for(lambda: any(c["path"] == rel for c in d.ctl("cgroups", rel)),
                 what="the deepest cgroup listed")
    finally:
        while leaf != top:
            leaf.rmdir()
            leaf = leaf.parent
