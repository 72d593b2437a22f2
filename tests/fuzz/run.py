"""Fuzz driver: ``python -m tests.fuzz.run TARGET... [options]`` (docs/fuzzing.md).

Runs each target (or ``all``) on mutated seed inputs in worker processes;
prints one summary line per target and exits with 1 when anything was
found (a failure, a hang or a crash), 2 on a usage error.

    python -m tests.fuzz.run all --inputs 2000            # a quick look at every target
    python -m tests.fuzz.run record_file --seconds 3600 --jobs 2 --seed 7
    python -m tests.fuzz.run record_file --replay tests/fuzz/findings/record_file-*.bin
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .driver import DEFAULT_FINDINGS, Settings, Stats, replay, run_target


def positive(kind: type):
    def convert(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0 ({text})")
        return value

    return convert


def parser() -> argparse.ArgumentParser:
    from .targets import TARGETS

    p = argparse.ArgumentParser(
        prog="python -m tests.fuzz.run", description="Run fuzz targets (docs/fuzzing.md)."
    )
    p.add_argument(
        "targets",
        nargs="*",
        metavar="TARGET",
        help=f"'all', or any of: {', '.join(TARGETS)} (or module:function)",
    )
    p.add_argument(
        "--inputs",
        type=positive(int),
        metavar="N",
        help="stop after input number N-1 (default: no end)",
    )
    p.add_argument(
        "--seconds",
        type=positive(float),
        metavar="S",
        help="stop each target after S seconds (default: no limit)",
    )
    p.add_argument(
        "--jobs", type=positive(int), default=1, metavar="J", help="worker processes (default 1)"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="K",
        help="the run's seed: same seed, same inputs (default 0)",
    )
    p.add_argument(
        "--timeout",
        type=positive(float),
        default=10.0,
        metavar="T",
        help="seconds one input may take before it counts as a hang (default 10)",
    )
    p.add_argument(
        "--start",
        type=int,
        default=0,
        metavar="I",
        help="begin at input number I (to resume an interrupted run)",
    )
    p.add_argument(
        "--findings",
        type=Path,
        default=DEFAULT_FINDINGS,
        metavar="DIR",
        help="folder for failing inputs (default tests/fuzz/findings)",
    )
    p.add_argument(
        "--max-per-bug",
        type=int,
        default=0,
        metavar="B",
        help="save at most B failing inputs per bug (exception type and place) "
        "and worker; 0 saves every one (the default)",
    )
    p.add_argument(
        "--memory-mb",
        type=int,
        default=4096,
        metavar="M",
        help="address-space limit per worker, 0 for none (default 4096)",
    )
    p.add_argument(
        "--replay",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="run the target in this process on saved inputs instead",
    )
    p.add_argument("--list", action="store_true", help="list the targets")
    return p


class Progress:
    """A tqdm bar on a terminal; nothing when the output is piped."""

    def __init__(self, target: str, settings: Settings):
        self.bar = None
        if settings.progress:
            from tqdm import tqdm

            total = settings.inputs - settings.start if settings.inputs else None
            self.bar = tqdm(
                total=total, desc=target, unit=" inputs", dynamic_ncols=True, file=sys.stderr
            )

    def __call__(self, stats: Stats) -> None:
        if self.bar is not None:
            self.bar.n = stats.inputs
            self.bar.set_postfix(
                failures=stats.failures + stats.crashes, hangs=stats.hangs, refresh=False
            )
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def fuzz(targets: list[str], settings: Settings) -> int:
    found = 0
    for target in targets:
        progress = Progress(target, settings)
        try:
            stats = run_target(target, settings, progress)
        finally:
            progress.close()
        print(stats.summary(), flush=True)
        found += stats.found
        if stats.found:
            print(f"  findings in {settings.findings}", flush=True)
        if stats.interrupted:
            break
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    from .targets import TARGETS

    args = parser().parse_args(argv)
    if args.list:
        print("\n".join(TARGETS))
        return 0
    targets = list(TARGETS) if args.targets == ["all"] else args.targets
    if not targets:
        parser().error("name a target, or 'all' (--list shows them)")
    unknown = [t for t in targets if t not in TARGETS and ":" not in t]
    if unknown:
        parser().error(f"unknown target {unknown[0]} (--list shows them)")
    if args.replay:
        if len(targets) != 1:
            parser().error("--replay runs one target")
        return 1 if replay(targets[0], args.replay) else 0
    settings = Settings(
        inputs=args.inputs,
        seconds=args.seconds,
        jobs=args.jobs,
        seed=args.seed,
        timeout=args.timeout,
        start=args.start,
        findings=args.findings,
        memory_mb=args.memory_mb,
        max_per_bug=args.max_per_bug,
        progress=sys.stderr.isatty(),
    )
    return fuzz(targets, settings)


if __name__ == "__main__":
    sys.exit(main())
