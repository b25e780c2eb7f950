"""Shared fixtures: the built binaries, test cgroups under our own memory
cgroup, and a running taod with its own socket and config."""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

BUILD = Path(os.environ.get("TAOD_BUILD", Path(__file__).resolve().parents[2] / "build"))
REPO = Path(__file__).resolve().parents[2]
TAOD = BUILD / "taod"
TAOCTL = BUILD / "taoctl"
WORKLOAD = BUILD / "thp_workload"
KVCACHE = BUILD / "tenants" / "kvcache"  # a cache server's heap (tests/tenants/kvcache.c)
# The kernel lab's guests run under emulation (TCG), several times slower:
# waits for something to happen are stretched by this factor there.
TIME_SCALE = float(os.environ.get("TAOD_TEST_TIME_SCALE", "1"))


def own_memory_cgroup():
    """Our memory cgroup as taod shows it (from the hierarchy root) and the
    cgroup version: v1 (memory controller) or v2."""
    v1 = v2 = None
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        hid, ctrls, path = line.split(":", 2)
        if "memory" in ctrls.split(","):
            v1 = path
        elif hid == "0" and ctrls == "":
            v2 = path
    if v1 is not None and Path("/sys/fs/cgroup/memory").is_dir():
        return v1, 1
    return v2, 2


def exact_splits(d):
    """Whether daemon @d counts splits with fentry on the split functions."""
    return d.ctl("status")["observation_mode"] in ("fentry+tracepoint", "fentry (exact splits)",
                                                   "fentry (THP paths)")


def memory_cgroup_dir():
    """Where test cgroups are made, and the cgroup version."""
    path, version = own_memory_cgroup()
    if version == 1:
        return Path("/sys/fs/cgroup/memory" + path.rstrip("/")), 1
    own = Path("/sys/fs/cgroup" + path.rstrip("/"))
    # v2 has no internal processes: a cgroup with tasks cannot give its
    # children controllers, so test cgroups are made beside ours, under our
    # parent, whose subtree_control must enable memory.
    base = own.parent if (own / "cgroup.procs").read_text().strip() else own
    return base, 2


class CgroupSet:
    """Children of our memory cgroup, made for one test and removed after."""

    def __init__(self):
        self.base, self.version = memory_cgroup_dir()
        self.made = []
        self.procs = []

    def make(self, name):
        path = self.base / f"taodtest-{os.getpid()}-{uuid.uuid4().hex[:6]}-{name}"
        path.mkdir()
        self.made.append(path)
        return path

    def rel(self, path):
        """Path as taod shows it: relative to the hierarchy root."""
        root = Path("/sys/fs/cgroup/memory" if self.version == 1 else "/sys/fs/cgroup")
        return "/" + str(path.relative_to(root))

    def spawn(self, cgroup, *args, **kw):
        """Starts a process that joins @cgroup before it execs."""
        procs = cgroup / "cgroup.procs"

        def join():
            procs.write_text(str(os.getpid()))

        p = subprocess.Popen([str(a) for a in args], preexec_fn=join,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
        self.procs.append(p)
        return p

    def workload(self, cgroup, *steps):
        return self.spawn(cgroup, WORKLOAD, *steps)

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        for path in reversed(self.made):
            rmdir_retry(path)


def rmdir_retry(path, tries=50, pause=0.1):
    """Removes cgroup @path once the kernel lets go of it (a task just
    moved out or killed leaves it busy for a moment); False if it never did."""
    for _ in range(tries):
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(pause)
    return False


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "host_only: what it proves does not depend on the kernel, its cgroup "
        "version or taod's attach mode (config, protocol, report formats, sinks, hostile "
        "input, docs): it runs once on the host (make check), not in the lab's guests")
    config.addinivalue_line(
        "markers", "any_mode: what it proves depends on the kernel but not on taod's attach "
        "mode (actions through taoctl, cgroup walks, coverage from memory.stat): in the lab "
        "it runs once per kernel, in the attach = auto guest")
    config.addinivalue_line(
        "markers", "one_kernel: what it proves depends on cgroup v2's own files (memory.high, "
        "directory ownership) but neither on the kernel's THP code nor on taod's attach "
        "mode: in the lab it runs in one guest (tests/vm/vmtest picks it), not per kernel")


# Markers for a test, or for a whole module as its pytestmark.
host_only = pytest.mark.host_only
any_mode = pytest.mark.any_mode
one_kernel = pytest.mark.one_kernel


@pytest.fixture
def cgroups():
    cs = CgroupSet()
    yield cs
    cs.cleanup()


def finish(p, timeout=60):
    out, err = p.communicate(timeout=timeout * TIME_SCALE)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def attach_conf():
    """What the kernel lab asks for, first in every test daemon's config so a
    test's own [kernel] keys still win: the attach mode (TAOD_TEST_ATTACH)
    and a wider unmap pair window under emulation (TAOD_TEST_PAIR_WINDOW)."""
    keys = {"attach": os.environ.get("TAOD_TEST_ATTACH"),
            "unmap_pair_window": os.environ.get("TAOD_TEST_PAIR_WINDOW")}
    lines = "".join(f"{k} = {v}\n" for k, v in keys.items() if v)
    return f"[kernel]\n{lines}" if lines else ""


def kernel_has_memcg_tracepoints():
    """memcg:count_memcg_events and mod_memcg_lruvec_state (6.13+), from BTF."""
    return b"btf_trace_count_memcg_events" in Path("/sys/kernel/btf/vmlinux").read_bytes()


def debugfs_split_writable():
    """Whether debugfs split_huge_pages takes writes (lockdown refuses the open)."""
    try:
        with open("/sys/kernel/debug/split_huge_pages", "w"):
            return True
    except OSError:
        return False


def merged_conf(*texts):
    """The INI @texts as one file, a later key replacing an earlier one in
    place: taod refuses a section or a key given twice in one file."""
    sections = {}
    cur = sections.setdefault("", {})
    for text in texts:
        for line in text.splitlines():
            s = line.strip()
            if not s or s[0] in "#;":
                continue
            if s.startswith("["):
                cur = sections.setdefault(s, {})
            else:
                cur[s.split("=", 1)[0].strip()] = line
    return "".join(head + "\n" * bool(head) + "".join(f"{v}\n" for v in keys.values())
                   for head, keys in sections.items())


class Daemon:
    def __init__(self, tmp_path, extra_conf="", env=None, socket_dir=None, wrap=()):
        """@wrap: a command taod runs under, e.g. prlimit with its options."""
        self.dir = tmp_path
        self.socket = str(Path(socket_dir or tmp_path) / "taod.sock")
        self.conf = tmp_path / "taod.conf"
        self.conf.write_text(merged_conf(
            attach_conf() + "[daemon]\ntick = 200ms\nlog_level = debug\n"
            f"[control]\nsocket = {self.socket}\n"
            # Each test's own history: never the machine's /var/lib/taod.
            f"[history]\npath = {tmp_path / 'history.db'}\n", extra_conf,
            # The tests of the ladder predate act_when: they climb as they did
            # (test_act_need.py holds act_when = need to what it does).
            "" if "act_when" in extra_conf else "[policy default]\nact_when = always\n"))
        self.log = open(tmp_path / "taod.log", "w+")
        self.proc = subprocess.Popen([*wrap, str(TAOD), "-c", str(self.conf)], stdout=self.log,
                                     stderr=subprocess.STDOUT, env=env)
        self.wait_ready()

    def wait_ready(self, timeout=20):
        deadline = time.time() + timeout * TIME_SCALE
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("taod exited early:\n" + self.logtext())
            if os.path.exists(self.socket) and self.ctl_rc("status")[0] == 0:
                return
            time.sleep(0.1)
        raise AssertionError("taod did not come up:\n" + self.logtext())

    def logtext(self):
        self.log.flush()
        return Path(self.log.name).read_text()

    def ctl_rc(self, *args, user=None):
        kw = {}
        if user is not None:
            kw["user"] = user
        p = subprocess.run([str(TAOCTL), "--socket", self.socket, *args], capture_output=True,
                           text=True, timeout=30, **kw)
        return p.returncode, p.stdout, p.stderr

    def ctl(self, *args):
        rc, out, err = self.ctl_rc("--json", *args)
        assert rc == 0, err
        return json.loads(out)

    def act(self, *args):
        """`taoctl act` as a script sees it: the record, checked against the
        exit status, which is 0 only for an action done or a dry run asked
        for, and 1 for anything the gate refused or the kernel failed."""
        rc, out, err = self.ctl_rc("--json", "act", *args)
        assert rc in (0, 1) and out, (rc, err)
        rec = json.loads(out)
        asked = "--dry-run" in args and rec["result"] == "dry-run"
        assert rc == (0 if rec["result"] == "done" or asked else 1), (rc, rec, err)
        return rec

    def request(self, raw: bytes, timeout=10):
        """Sends raw bytes on the control socket and returns the raw reply."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.socket)
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            chunks = []
            while True:
                b = s.recv(65536)
                if not b:
                    break
                chunks.append(b)
        return b"".join(chunks)

    def wait_ticks(self, n=3):
        start = self.ctl("status")["ticks"]
        deadline = time.time() + 30 * TIME_SCALE
        while self.ctl("status")["ticks"] < start + n:
            assert time.time() < deadline, "daemon stopped ticking"
            time.sleep(0.1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=20)
        text = self.logtext()
        assert "ERROR: AddressSanitizer" not in text, text
        assert "runtime error:" not in text, text
        assert self.proc.returncode == 0, text
        return text


@pytest.fixture
def public_dir():
    """A directory other users can traverse (pytest's tmp_path is 0700)."""
    d = Path(tempfile.mkdtemp(prefix="taodtest-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def daemon_factory(tmp_path):
    started = []

    def start(extra_conf="", **kw):
        d = Daemon(tmp_path, extra_conf, **kw)
        started.append(d)
        return d

    yield start
    for d in started:
        d.stop()


@pytest.fixture
def daemon(daemon_factory):
    return daemon_factory()


def cgroup_row(d, rel):
    for row in d.ctl("cgroups"):
        if row["path"] == rel:
            return row
    return None


def judged(d, rel):
    """@rel's row of `abusers --all`: how decide classed it; None if it has not."""
    return next((r for r in d.ctl("abusers", "--all") if r["cgroup"] == rel), None)


def enable_memory_below(cgroup, version):
    """On cgroup v2 a child has the memory controller only if its parent's
    subtree_control enables it: enables it below @cgroup, a path or an open
    directory's fd (for a cgroup too deep for a path). v1 has no such file:
    every cgroup has the controller."""
    if version != 2:
        return
    fd = (os.open("cgroup.subtree_control", os.O_WRONLY, dir_fd=cgroup) if isinstance(cgroup, int)
          else os.open(Path(cgroup) / "cgroup.subtree_control", os.O_WRONLY))
    try:
        os.write(fd, b"+memory")
    finally:
        os.close(fd)


def vmstat():
    """/proc/vmstat: counter -> value."""
    lines = Path("/proc/vmstat").read_text().splitlines()
    return {k: int(v) for k, v in (ln.split() for ln in lines)}


def audit(tmp_path):
    """The records of the audit log in @tmp_path, taod's own for a test
    daemon with audit_log = @tmp_path/audit.jsonl; none before it is made."""
    p = tmp_path / "audit.jsonl"
    return [json.loads(ln) for ln in p.read_text().splitlines()] if p.exists() else []


def run_taod(*args, timeout=20):
    """taod run to its end (a config check, a refusal to start)."""
    return subprocess.run([str(TAOD), *args], capture_output=True, text=True, timeout=timeout)


def taoctl(*args, timeout=30, **kw):
    """taoctl as a user runs it, without a test daemon's socket."""
    return subprocess.run([str(TAOCTL), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout * TIME_SCALE, **kw)


def ctl_status(sock):
    """`taoctl --json status` of the taod serving @sock."""
    return json.loads(subprocess.run([str(TAOCTL), "--socket", sock, "--json", "status"],
                                     capture_output=True, text=True, check=True).stdout)


def report(db, *args):
    """`taoctl report` of history @db over the last hour, as text."""
    p = subprocess.run([str(TAOCTL), "report", "--db", str(db), "--since", "1h", *args],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def wait_for(pred, timeout=20, what="condition"):
    deadline = time.time() + timeout * TIME_SCALE
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    v = pred()  # once more: a late wake-up or a clock jump ends the loop unasked
    if v:
        return v
    raise AssertionError(f"timed out waiting for {what}")


def rollup_kib(pid, key):
    """One kB field of /proc/PID/smaps_rollup."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {key} in smaps_rollup")


def anon_huge_kib(pid):
    """A task's PMD-mapped THP memory."""
    return rollup_kib(pid, "AnonHugePages")


def anon_mappings(pid):
    """(start, end) of a task's anonymous writable mappings that may hold
    THPs: not MADV_NOHUGEPAGE (ASan's terabytes of shadow are)."""
    out, cur = [], None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        f = line.split()
        if "-" in f[0] and len(f) >= 5:
            cur = None
            if len(f) == 5 and "w" in f[1]:
                cur = tuple(int(x, 16) for x in f[0].split("-"))
        elif cur and f[0] == "VmFlags:" and "nh" not in f[1:]:
            out.append(cur)
    return out


def thp_chunks(pid):
    """2 MiB chunks of a task's anonymous mappings that map any page of a
    THP, PMD- or PTE-mapped (a partly unmapped THP too), from the task's
    pagemap and /proc/kpageflags."""
    chunks = set()
    with open(f"/proc/{pid}/pagemap", "rb") as pm, open("/proc/kpageflags", "rb") as kf:
        for start, end in anon_mappings(pid):
            pm.seek(start // 4096 * 8)
            entries = pm.read((end - start) // 4096 * 8)
            for i in range(0, len(entries), 8):
                e = int.from_bytes(entries[i:i + 8], "little")
                if not e >> 63 or not e & ((1 << 55) - 1):
                    continue
                kf.seek((e & ((1 << 55) - 1)) * 8)
                if int.from_bytes(kf.read(8), "little") >> 22 & 1:
                    chunks.add((start + i // 8 * 4096) >> 21)
    return len(chunks)


def thp_enabled_mode():
    text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    return text.split("[", 1)[1].split("]", 1)[0]


# `smallfault` relies on THP "enabled" = madvise to get base pages.
needs_thp_madvise = pytest.mark.skipif(thp_enabled_mode() != "madvise",
                                       reason="THP enabled mode is not madvise")


# A kernel made of files, for taod's [daemon] root: test_tao_fixture.py
# (the extended TAO interface) and test_tao_boot_fixture.py (the boot-zone
# profile) each build one.
FIXTURE_CG = "sys/fs/cgroup"
FIXTURE_BLOCKS = "sys/devices/system/memory"


def put(root, rel, text):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def snapshot(root):
    """Every file under @root with its bytes: a before/after picture."""
    return {str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def build_fixture(root, zoneinfo, vmstat, block_size, blocks, cgroups):
    """The files every fixture kernel has: @zoneinfo and @vmstat (text), a
    cgroup2 mount with taod in /taod.service, memory blocks of @block_size
    bytes as [(n, state, valid_zones)], and @cgroups {path: {file: text}}
    under the mount."""
    put(root, "proc/zoneinfo", zoneinfo)
    put(root, "proc/vmstat", vmstat)
    put(root, "proc/self/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev 0 0\n")
    put(root, "proc/self/cgroup", "0::/taod.service\n")
    put(root, f"{FIXTURE_BLOCKS}/block_size_bytes", f"{block_size:x}\n")
    for n, state, zones in blocks:
        put(root, f"{FIXTURE_BLOCKS}/memory{n}/state", state + "\n")
        put(root, f"{FIXTURE_BLOCKS}/memory{n}/valid_zones", zones + "\n")
    for cg, files in cgroups.items():
        for name, text in files.items():
            put(root, f"{FIXTURE_CG}{cg}/{name}", text)


def fixture_daemon(daemon_factory, tmp_path, root, enforce, conf="", **kw):
    """taod on the fixture kernel at @root, its [enforce] @enforce (lines)
    with room for every action, /system.slice/* allowlisted, the tenants
    under /guaranteed/* guaranteed 50 % coverage; @conf: the test's own
    config after that (a section named again adds to it)."""
    return daemon_factory(
        f"[daemon]\nroot = {root}\n"
        f"[enforce]\n{enforce}\nactions_per_minute = 100\nshatter_bytes_per_minute = 1G\n"
        f"allowlist = /system.slice/*\nzone_headroom = 256M\nfree_floor = 64M\n"
        f"audit_log = {tmp_path}/audit.jsonl\n"
        "[policy guaranteed]\nmatch = /guaranteed/*\ncoverage_guarantee = 50\nwindow = 10m\n"
        + conf, **kw)


def collapse_all(pid, max_bytes=None):
    """MADV_COLLAPSE of every anonymous read-write mapping of @pid of 2 MiB
    or more (of its first @max_bytes each, if given), through
    process_madvise: what khugepaged does for a server under THP "always",
    here where the mode is madvise (a per-thread glibc heap is never
    advised). THPs it holds after (0 if it exited meanwhile)."""
    libc = ctypes.CDLL(None, use_errno=True)

    class IoVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    fd = libc.syscall(434, pid, 0)  # pidfd_open
    assert fd >= 0, os.strerror(ctypes.get_errno())
    try:
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            start, end = (int(x, 16) for x in f[0].split("-"))
            if f[1].startswith("rw") and len(f) < 6 and end - start >= 2 << 20:
                io = IoVec(start, min(end - start, max_bytes or end - start))
                libc.syscall(440, fd, ctypes.byref(io), 1, 25, 0)  # MADV_COLLAPSE
    finally:
        os.close(fd)
    try:
        return anon_huge_kib(pid) // 2048
    except (ProcessLookupError, FileNotFoundError):
        return 0  # it exited meanwhile: none it holds
