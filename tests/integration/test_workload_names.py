"""Workload names beside cgroup paths, on real cgroups named as docker, a
kubelet (systemd driver) and containerd name theirs, made under the test's
own memory cgroup: taoctl cgroups and abusers (table and JSON), the
taod_cgroup_workload_info metric, and taoctl report (table, JSON, CSV, HTML)."""
import csv
import io
import json
import subprocess

from conftest import TAOCTL, cgroup_row, wait_for

DOCKER_ID = "3f2a9c0d1e4b5a6978877665544332211009f8e7d6c5b4a39281706f5e4d3c2b"
CTR_ID = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d"
POD_UID = "0b2c5f7e-1d3a-4c8e-9f00-6a7b8c9d0e1f"


def child(cgroups, parent, name):
    """@parent/@name, with the memory controller (v2: the parent's
    subtree_control must enable it), removed by the fixture."""
    if cgroups.version == 2:
        (parent / "cgroup.subtree_control").write_text("+memory")
    path = parent / name
    path.mkdir()
    cgroups.made.append(path)
    return path


def test_workload_names_in_taoctl_metrics_and_report(daemon_factory, cgroups, tmp_path):
    top = cgroups.make("wl")
    docker = child(cgroups, top, f"docker-{DOCKER_ID}.scope")
    pod = child(cgroups, top, f"kubepods-burstable-pod{POD_UID.replace('-', '_')}.slice")
    ctr = child(cgroups, pod, f"cri-containerd-{CTR_ID}.scope")
    # Docker's cgroupfs driver: /docker/ID.
    plain = child(cgroups, child(cgroups, top, "docker"), CTR_ID)
    prom = tmp_path / "taod.prom"
    # Each child of the top cgroup is a tenant of its own (the policy wins
    # them, not their parent), so abusers --all lists them.
    d = daemon_factory(f"[metrics]\ntextfile = {prom}\n[history]\nevery = 1\n"
                       f"[policy wl]\nmatch = {cgroups.rel(top)}/*\nwindow = 1s\n")
    for c in (docker, pod, ctr, plain):
        wait_for(lambda c=c: cgroup_row(d, cgroups.rel(c)), what=f"{c.name} tracked")

    rows = {r["path"]: r for r in d.ctl("cgroups")}
    r = rows[cgroups.rel(docker)]
    assert (r["unit"], r["container"], r["pod"]) == (docker.name, DOCKER_ID, None)
    # The pod slice's unit is the innermost service or scope above it (the
    # test's own, if it runs in one), else the slice: not asserted here.
    r = rows[cgroups.rel(pod)]
    assert (r["container"], r["pod"]) == (None, POD_UID)
    r = rows[cgroups.rel(ctr)]
    assert (r["unit"], r["container"], r["pod"]) == (ctr.name, CTR_ID, POD_UID)
    assert rows[cgroups.rel(plain)]["container"] == CTR_ID

    rc, out, err = d.ctl_rc("cgroups", "--all")  # idle ones are left out otherwise
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split()[-1] == "WORKLOAD"
    by_path = {line.split()[0]: line for line in lines[1:]}
    assert by_path[cgroups.rel(docker)].endswith(f"ctr={DOCKER_ID[:12]}")
    assert by_path[cgroups.rel(pod)].endswith(f"pod={POD_UID}")
    assert by_path[cgroups.rel(ctr)].endswith(f"pod={POD_UID} ctr={CTR_ID[:12]}")

    def tenants():
        listed = {a["cgroup"]: a for a in d.ctl("abusers", "--all")
                  if a["cgroup"] in (cgroups.rel(docker), cgroups.rel(pod))}
        return len(listed) == 2 and listed
    judged = wait_for(tenants, what="both tenants listed")
    assert judged[cgroups.rel(docker)]["container"] == DOCKER_ID
    assert judged[cgroups.rel(pod)]["pod"] == POD_UID
    rc, out, err = d.ctl_rc("abusers", "--all")
    assert rc == 0 and f"  workload: ctr={DOCKER_ID[:12]}\n" in out, out + err
    assert f"  workload: pod={POD_UID}\n" in out, out

    wait_for(lambda: prom.exists() and "taod_cgroup_workload_info" in prom.read_text(),
             what="the info metric")
    text = prom.read_text()
    assert (f'taod_cgroup_workload_info{{cgroup="{cgroups.rel(ctr)}",unit="{ctr.name}",'
            f'container="{CTR_ID}",pod="{POD_UID}"}} 1\n') in text, text

    db = tmp_path / "history.db"
    d.wait_ticks(3)
    d.stop()
    rep = subprocess.run([str(TAOCTL), "report", "--db", str(db), "--format", "json"],
                         capture_output=True, text=True, timeout=60)
    assert rep.returncode == 0, rep.stderr
    cg = {c["path"]: c for c in json.loads(rep.stdout)["cgroups"]}
    c = cg[cgroups.rel(ctr)]
    assert (c["unit"], c["container"], c["pod"]) == (ctr.name, CTR_ID, POD_UID)
    assert cg[cgroups.rel(docker)]["container"] == DOCKER_ID
    table = subprocess.run([str(TAOCTL), "report", "--db", str(db), "--all"],
                           capture_output=True, text=True, timeout=60)
    assert table.returncode == 0, table.stderr
    assert "WORKLOAD" in table.stdout
    line = next(x for x in table.stdout.splitlines() if x.startswith(cgroups.rel(ctr)))
    assert line.endswith(f"pod={POD_UID} ctr={CTR_ID[:12]}"), line

    def report(fmt):
        r = subprocess.run([str(TAOCTL), "report", "--db", str(db), "--all", "--format", fmt],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout
    rows = {r["cgroup"]: r for r in csv.DictReader(io.StringIO(report("csv")))}
    r = rows[cgroups.rel(ctr)]
    assert (r["unit"], r["container"], r["pod"]) == (ctr.name, CTR_ID, POD_UID)
    assert (rows[cgroups.rel(docker)]["container"], rows[cgroups.rel(docker)]["pod"]) == \
        (DOCKER_ID, "")
    html = report("html")
    assert "<th>workload</th>" in html
    assert f'<td class="workload">pod={POD_UID} ctr={CTR_ID[:12]}</td>' in html
