"""A failure is printed as it happens: a guest that panics later (an
emulated CPU starved for 20 s trips the soft-lockup panic) still shows it."""


def pytest_runtest_logreport(report):
    if report.failed:
        print(f"\nFAILED {report.nodeid}\n{report.longreprtext}\n", flush=True)
