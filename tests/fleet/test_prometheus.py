"""The shipped Prometheus alerting rules: promtool accepts them, their unit
tests pass, and each alert's test has teeth (an alert that never fires
fails its test)."""
import re
import shutil
import subprocess

from conftest import ALERT_TESTS, ALERTS, exported_metrics

ALERT_NAMES = re.findall(r"^\s+- alert: (\w+)$", ALERTS.read_text(), re.M)


def promtool(*args, cwd=None):
    return subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def test_rules_check():
    p = promtool("check", "rules", str(ALERTS))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"SUCCESS: {len(ALERT_NAMES)} rules found" in p.stdout


def test_rules_unit_tests_pass():
    p = promtool("test", "rules", str(ALERT_TESTS))
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_alerts_asked_for_are_there():
    assert {"TaodDown", "TaodMetricsStale", "TaodMetricsAbsent", "TaodSinkFailing",
            "TaodRecordsLost", "TaodAbuserPresent", "TaodGuaranteeMissed",
            "TaodActionsFailing", "TaodAbuserReturns"} <= set(ALERT_NAMES)


def test_every_alert_is_tested_firing_and_quiet():
    tests = ALERT_TESTS.read_text()
    for name in ALERT_NAMES:
        fires = re.search(rf"alertname: {name}\n\s+exp_alerts:\n\s+- exp_labels", tests)
        quiet = re.search(rf"alertname: {name}, exp_alerts: \[\]", tests)
        assert fires and quiet, f"{name}: a test that fires and one that stays quiet"


def test_an_alert_that_never_fires_fails_its_test(tmp_path):
    """Each alert in turn is made to never fire: its unit test must fail
    (and the unbroken copy passes, so the failure is the alert's)."""
    rules = ALERTS.read_text()
    # The test file names ../../config/prometheus/taod-alerts.yml.
    (tmp_path / "tests/fleet").mkdir(parents=True)
    (tmp_path / "config/prometheus").mkdir(parents=True)
    shutil.copy(ALERT_TESTS, tmp_path / "tests/fleet/t.yml")
    copy = tmp_path / "config/prometheus/taod-alerts.yml"
    copy.write_text(rules)
    p = promtool("test", "rules", str(tmp_path / "tests/fleet/t.yml"))
    assert p.returncode == 0, p.stdout + p.stderr
    for name in ALERT_NAMES:
        broken = re.sub(rf"(- alert: {name}\n\s+expr: )(>-\n(\s+).*\n(?:\3.*\n)*|.*\n)",
                        r"\1vector(1) < 0\n", rules)
        assert broken != rules, name
        copy.write_text(broken)
        p = promtool("test", "rules", str(tmp_path / "tests/fleet/t.yml"))
        assert p.returncode != 0, name
        assert f"alertname: {name}," in p.stdout + p.stderr, name


def test_every_metric_is_exported():
    named = set(re.findall(r"\b(taod_[a-z_]+)", ALERTS.read_text()))
    assert not named - exported_metrics(), sorted(named - exported_metrics())
