"""The lab's kernels as the Python labs (tests/vm/coverage, tests/vm/tenants)
name them: a Debian kernel package resolved by tests/vm/kernel-package, and
the TAO kernel's directory."""
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def package(kernel):
    """The package run-guest boots for a kernel name (6.1, 6.12, newest)."""
    return subprocess.run([str(HERE / "kernel-package"), kernel], check=True,
                          capture_output=True, text=True).stdout.strip()


def tao_kernel_dir():
    """TAO_KERNEL (default ../shared/tao-kernel beside the repository) when it
    holds a vmlinuz; None otherwise, or when TAO_KERNEL is empty."""
    d = os.environ.get("TAO_KERNEL", str(REPO.parent / "shared" / "tao-kernel"))
    return Path(d) if d and (Path(d) / "vmlinuz").exists() else None
