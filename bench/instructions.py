"""Instructions per random action and per apply+undo pair of the C cores,
counted by callgrind (repeatable on a loaded machine, unlike times).

Runs each core's speed loop under `valgrind --tool=callgrind`, collecting
only inside the loop's C function, from the benchmark positions' openings:

    python bench/instructions.py [--python PYTHON] [--actions N]

PYTHON is an interpreter with xenophon installed (default: this one), so two
builds can be compared in one run; prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = r"""
import sys
from xenophon.benchmarks import load_positions, position_state
game, loop, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
entry = next(e for e in load_positions() if e["game"] == game and e["stage"] == "opening")
getattr(position_state(entry).backend, loop)(n, 1)
"""

LOOPS = {("anabasis", "random_actions"): "ana_random_actions",
         ("anabasis", "apply_undo_pairs"): "ana_apply_undo_pairs",
         ("hero", "random_actions"): "hero_random_actions",
         ("hero", "apply_undo_pairs"): "hero_apply_undo_pairs"}


def instructions(python: str, game: str, loop: str, n: int) -> int:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        f"--toggle-collect={LOOPS[game, loop]}", python, "-c", PROBE, game, loop,
                        str(n)], check=True, capture_output=True)
        summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
        return int(summary.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--actions", type=int, default=200_000)
    args = parser.parse_args(argv)
    result = {f"{game} {loop}": instructions(args.python, game, loop, args.actions) / args.actions
              for game, loop in LOOPS}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
