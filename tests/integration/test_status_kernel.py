"""What `taoctl status` says about the kernel: its THP settings as sysfs
selects them (enabled, defrag, khugepaged's defrag and max_ptes_none, each
multi-size THP size's enabled), and on a stock kernel one line for TAO;
`taoctl zones` there says the zones do not apply, and a dry run of
`zones --apply` is refused, not audited as an unsupported action."""
import re
from pathlib import Path

import pytest

from conftest import any_mode

pytestmark = any_mode

THP = Path("/sys/kernel/mm/transparent_hugepage")


def selected(path):
    text = path.read_text().strip()
    m = re.search(r"\[(\w+)\]", text)
    return m.group(1) if m else text


def test_status_shows_the_thp_settings(daemon):
    thp = daemon.ctl("status")["thp"]
    assert thp["enabled"] == selected(THP / "enabled")
    assert thp["defrag"] == selected(THP / "defrag")
    assert thp["khugepaged_defrag"] == selected(THP / "khugepaged/defrag")
    assert thp["max_ptes_none"] == selected(THP / "khugepaged/max_ptes_none")
    sizes = sorted((int(re.search(r"\d+", d.name).group()), selected(d / "enabled"))
                   for d in THP.glob("hugepages-*kB") if (d / "enabled").exists())
    assert [(s["size_kb"], s["enabled"]) for s in thp["sizes"]] == sizes
    rc, out, err = daemon.ctl_rc("status")
    assert rc == 0, err
    assert f"thp:         enabled {thp['enabled']}, defrag {thp['defrag']}" in out, out
    for size_kb, mode in sizes:
        assert f"{size_kb}kB {mode}" in out, out


@pytest.fixture
def stock(daemon):
    if daemon.ctl("status")["kernel"]["kind"] != "stock":
        pytest.skip("a TAO kernel: the stock kernel's lines do not show")
    return daemon


def test_stock_kernel_has_one_tao_line(stock):
    rc, out, err = stock.ctl_rc("status")
    assert rc == 0, err
    assert out.count("not a TAO kernel") == 1, out
    for feature in ["boot_zones", "hotplug_zones", "memcg_thp_zones", "memcg_thp_shatter"]:
        assert feature not in out, out


def test_stock_kernel_zones_do_not_apply(stock):
    rc, out, err = stock.ctl_rc("zones")
    assert rc == 0, err
    assert out.startswith("zones:       do not apply to this kernel ("), out
    rc, out, err = stock.ctl_rc("zones", "--apply", "--dry-run")
    assert rc != 0 and "zones do not apply to this kernel" in err, (rc, out, err)
    assert not [a for a in stock.ctl("actions") if a["action"] == "resize-zones"]
