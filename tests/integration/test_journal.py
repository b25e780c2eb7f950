"""The journal: under systemd (JOURNAL_STREAM set) taod sends each message
natively with structured fields (MESSAGE_ID per kind, TAOD_CGROUP,
TAOD_ACTION, TAOD_RESULT, TAOD_POLICY), which a fake journald catches here:
a datagram socket at /run/systemd/journal/socket in a mount namespace of
the test's own. In the foreground each stderr line starts with its time."""
import json
import re
import subprocess
import sys

from conftest import TAOCTL, TAOD, host_only

pytestmark = host_only

ACTION_ID = "6cf2f084c9f545d1adc841e77bf10482"

# Runs in its own mount namespace: a tmpfs on /run/systemd hides the
# host's, and the journal socket there is ours.
FAKE_JOURNALD = r"""
import json, os, socket, subprocess, sys, time
taod, taoctl, conf, sock = sys.argv[1:5]
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/systemd"], check=True)
os.mkdir("/run/systemd/journal")
j = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
j.bind("/run/systemd/journal/socket")
j.settimeout(0.2)
env = dict(os.environ, JOURNAL_STREAM="8:1")
p = subprocess.Popen([taod, "-c", conf], env=env, stderr=subprocess.PIPE, text=True)
for _ in range(100):
    if subprocess.run([taoctl, "--socket", sock, "status"], capture_output=True).returncode == 0:
        break
    time.sleep(0.1)
act = subprocess.run([taoctl, "--socket", sock, "--json", "act", "warn", "--cgroup", "/"],
                     capture_output=True, text=True)
time.sleep(0.5)
p.terminate()
_, err = p.communicate(timeout=20)
msgs = []
while True:
    try:
        data = j.recv(1 << 16)
    except socket.timeout:
        break
    msgs.append(dict(l.split("=", 1) for l in data.decode().split("\n") if "=" in l))
print(json.dumps({"msgs": msgs, "stderr": err, "act": act.stdout}))
"""


def test_action_records_carry_journal_fields(tmp_path):
    sock = tmp_path / "taod.sock"
    conf = tmp_path / "taod.conf"
    conf.write_text(f"[daemon]\ntick = 200ms\n[control]\nsocket = {sock}\n"
                    f"[history]\npath = {tmp_path / 'h.db'}\n"
                    f"[enforce]\nmode = observe\naudit_log =\n")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c",
                        FAKE_JOURNALD, str(TAOD), str(TAOCTL), str(conf), str(sock)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert json.loads(out["act"])["result"] == "allowlisted", out["act"]
    actions = [m for m in out["msgs"] if m.get("MESSAGE_ID") == ACTION_ID]
    assert len(actions) == 1, out["msgs"]
    a = actions[0]
    assert a["TAOD_ACTION"] == "warn" and a["TAOD_RESULT"] == "allowlisted", a
    assert a["TAOD_CGROUP"] == "/" and a["TAOD_POLICY"], a
    assert a["PRIORITY"] == "5" and a["SYSLOG_IDENTIFIER"] == "taod", a
    assert "kind=warn" in a["MESSAGE"], a
    # Every message went to the journal; none to the stream.
    assert any("listening" in m.get("MESSAGE", "") or "ready" in m.get("MESSAGE", "")
               for m in out["msgs"]) or len(out["msgs"]) > 3, out["msgs"]
    assert "kind=warn" not in out["stderr"], out["stderr"]


def test_foreground_lines_carry_a_timestamp(daemon):
    lines = [ln for ln in daemon.logtext().splitlines() if ln]
    assert lines, "taod said nothing"
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} taod: ")
    assert all(stamp.match(ln) for ln in lines), lines[:5]
