"""Benchmark plumbing: each benchmark records a rate; the session prints the
ratios measured in this one run (C core vs oracle, xenophon vs peers) and the
match results."""

import pytest

RATES: dict[str, float] = {}
RESULTS: list[str] = []
#: (ours, theirs) name suffixes of the rates compared at the end
PAIRS = ((" core", " oracle"), (" xenophon", " openspiel-cc"), (" xenophon", " openspiel-py"))


@pytest.fixture
def record_rate():
    def record(name: str, value: float) -> None:
        RATES[name] = value

    return record


@pytest.fixture
def record_result():
    return RESULTS.append


@pytest.fixture
def measure(benchmark):
    """measure(run, amount): runs `run(amount)` under pytest-benchmark (best of
    3 rounds) and returns (units per second, the last run's return value)."""

    def run(function, amount, rounds=3):
        done = []
        benchmark.pedantic(lambda: done.append(function(amount)), rounds=rounds, iterations=1)
        return amount / benchmark.stats.stats.min, done[-1]

    return run


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    if RATES:
        write("")
        write("rates measured in this run")
        for name, value in sorted(RATES.items()):
            write(f"  {name:<60} {value:>14,.0f} /s")
        for ours, theirs in PAIRS:
            for name in sorted(RATES):
                base = name[: -len(ours)]
                if name.endswith(ours) and RATES.get(base + theirs):
                    ratio = RATES[name] / RATES[base + theirs]
                    write(f"  ratio {base}: {ours.strip()} / {theirs.strip()} = {ratio:,.2f}x")
    for line in RESULTS:
        write(f"  {line}")
