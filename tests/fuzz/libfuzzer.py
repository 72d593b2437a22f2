"""One target under atheris (libFuzzer, guided by the Python code's coverage):
``python -m tests.fuzz.libfuzzer TARGET [libFuzzer options]``.

Optional (``pip install '.[fuzz]'``); the driver (`tests.fuzz.run`) needs
nothing beyond the project. The corpus, seeded with the target's seeds,
grows in ``tests/fuzz/corpus/TARGET`` and is kept between runs; libFuzzer
stops at the first finding and writes it as ``tests/fuzz/findings/TARGET-crash-*``
(or ``-timeout-*``); replay it with ``python -m tests.fuzz.run TARGET --replay FILE``.

    python -m tests.fuzz.libfuzzer hero_cards -max_total_time=3600 -timeout=10
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULTS = ("-timeout=10", "-rss_limit_mb=4096", "-max_len=65536")


def corpus(target: str, seeds: list[bytes]) -> Path:
    folder = HERE / "corpus" / target.replace(":", ".")
    folder.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        path = folder / hashlib.sha1(seed).hexdigest()
        if not path.exists():
            path.write_bytes(seed)
    return folder


def main(argv: list[str]) -> None:
    if not argv or argv[0].startswith("-"):
        sys.exit("usage: python -m tests.fuzz.libfuzzer TARGET [libFuzzer options]")
    try:
        import atheris
    except ImportError:
        sys.exit(
            "atheris is not installed (pip install '.[fuzz]'); "
            "python -m tests.fuzz.run needs nothing more"
        )
    target, options = argv[0], argv[1:]
    with atheris.instrument_imports(include=["xenophon", __package__]):
        from .targets import resolve

        fn, seeds = resolve(target)
    findings = HERE / "findings"
    findings.mkdir(exist_ok=True)
    prefix = f"-artifact_prefix={findings}/{target.replace(':', '.')}-"
    atheris.Setup([sys.argv[0], *DEFAULTS, prefix, *options, str(corpus(target, seeds()))], fn)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv[1:])
