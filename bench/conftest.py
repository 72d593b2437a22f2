"""Benchmark plumbing: each benchmark records a rate; the session prints the
ratios measured in this one run (C core vs oracle, xenophon vs peers)."""
import pytest

RATES: dict[str, float] = {}


@pytest.fixture
def record_rate():
    def record(name: str, value: float) -> None:
        RATES[name] = value
    return record


def pytest_terminal_summary(terminalreporter):
    if not RATES:
        return
    write = terminalreporter.write_line
    write("")
    write("rates measured in this run")
    for name, value in sorted(RATES.items()):
        write(f"  {name:<50} {value:>14,.0f} /s")
    for name in sorted(RATES):
        if name.endswith(" core"):
            base = name[: -len(" core")]
            oracle = RATES.get(base + " oracle")
            if oracle:
                write(f"  ratio {base}: core / oracle = {RATES[name] / oracle:,.0f}x")
