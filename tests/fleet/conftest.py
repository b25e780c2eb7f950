"""Paths for the fleet tests (make fleet-test): the repository, the built
package (TAOD_DEB); the metric names taod exports."""
import os
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
DEB = os.environ.get("TAOD_DEB")
ALERTS = REPO / "config/prometheus/taod-alerts.yml"
ALERT_TESTS = REPO / "tests/fleet/taod-alerts.test.yml"
DASHBOARD = REPO / "config/grafana/taod-dashboard.json"


def exported_metrics():
    """taod's metric names: string literals in daemon/ and the rows of
    the metrics table of docs/operations.md."""
    names = set()
    for src in (REPO / "daemon").rglob("*.c"):
        names |= set(re.findall(r'"(taod_[a-z_]+)', src.read_text()))
    for line in (REPO / "docs/operations.md").read_text().splitlines():
        if line.startswith("| `taod_"):
            names |= set(re.findall(r"`(taod_[a-z_]+)`", line.split("|")[1]))
    return names
