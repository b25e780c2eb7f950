"""The shipped Grafana dashboard: it loads as JSON, its panels have targets
on the datasource variable, every PromQL expression parses (promtool checks
each as a recording rule) and every taod metric it names is one taod
exports (a string literal in daemon/ or a row of docs/operations.md's metrics table)."""
import json
import re
import subprocess

from conftest import DASHBOARD, exported_metrics

# Grafana's own variables, replaced by what they stand for at query time.
GRAFANA_VARS = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h"}


def dashboard():
    return json.loads(DASHBOARD.read_text())


def data_panels(d):
    return [p for p in d["panels"] if p["type"] != "row"]


def exprs(d):
    return [t["expr"] for p in data_panels(d) for t in p["targets"]]


def test_structure():
    d = dashboard()
    assert d["title"] and d["uid"]
    variables = {v["name"]: v for v in d["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    panels = data_panels(d)
    assert len(panels) >= 10
    ids = [p["id"] for p in d["panels"]]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    for p in panels:
        assert p["title"] and p["targets"], p.get("title")
        assert p["datasource"]["uid"] == "${datasource}", p["title"]
        for t in p["targets"]:
            assert t["expr"].strip() and t["refId"], p["title"]
            assert t["datasource"]["uid"] == "${datasource}", p["title"]
        g = p["gridPos"]
        assert g["w"] > 0 and g["h"] > 0 and g["x"] + g["w"] <= 24, p["title"]


def test_shows_what_an_operator_asked_for():
    text = " ".join(exprs(dashboard()))
    for metric in ["taod_cgroup_thp_coverage_ratio", "taod_cgroup_guarantee_ratio",
                   "taod_cgroup_class", "taod_cgroup_score", "taod_actions_total",
                   "taod_zone_free_bytes", "taod_sink_up", "taod_tick_duration_seconds",
                   "taod_cgroup_workload_info"]:
        assert metric in text, metric


def test_every_expression_parses(tmp_path):
    queries = exprs(dashboard())
    queries += [v["definition"] for v in dashboard()["templating"]["list"]
                if v["type"] == "query"]
    rules = []
    for i, q in enumerate(queries):
        for var, value in GRAFANA_VARS.items():
            q = q.replace(var, value)
        # label_values(SELECTOR, LABEL) is Grafana's: its selector is PromQL.
        m = re.fullmatch(r"label_values\((.*),\s*\w+\)", q)
        rules.append({"record": f"dashboard:q{i}", "expr": m.group(1) if m else q})
    f = tmp_path / "dashboard-rules.yml"
    f.write_text(json.dumps({"groups": [{"name": "dashboard", "rules": rules}]}))
    p = subprocess.run(["promtool", "check", "rules", str(f)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"SUCCESS: {len(rules)} rules found" in p.stdout


def test_a_broken_expression_is_caught(tmp_path):
    f = tmp_path / "r.yml"
    f.write_text(json.dumps({"groups": [{"name": "x", "rules": [
        {"record": "x:q", "expr": "sum by (cgroup (taod_up)"}]}]}))
    p = subprocess.run(["promtool", "check", "rules", str(f)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0


def test_every_metric_is_exported():
    exported = exported_metrics()
    assert "taod_up" in exported and "taod_cgroup_thp_coverage_ratio" in exported
    named = set()
    for q in exprs(dashboard()):
        named |= set(re.findall(r"\b(taod_[a-z_]+)", q))
    assert named, "the dashboard names taod metrics"
    assert not named - exported, f"not exported by taod: {sorted(named - exported)}"


def test_per_cgroup_panels_are_bounded_by_topk():
    """A host runs thousands of cgroups: a panel drawing one series per
    cgroup draws only the top few (topk), never all of them."""
    for p in data_panels(dashboard()):
        for t in p["targets"]:
            by = re.match(r"\w+ by \(([^)]*)\)", t["expr"])
            if by and "cgroup" not in by.group(1):
                continue  # aggregated away: one series per instance
            if re.search(r"\btaod_cgroup_\w+\{", t["expr"]):
                assert "topk(" in t["expr"], (p["title"], t["expr"])
