"""Scores networks and the learned evaluation on a learning log (the loop
itself is `xenophon train`, xenophon.lab.learnloop; docs/learning.md):

    python bench/learn.py score hero --folder LOG --networks A.npz B.npz [--out FILE]

gives each model's figures on the log's roots and leaves (root log-loss,
spread, the split of the correction, leaf log-loss and sibling concordance:
xenophon.lab.network.log_report), the Hero diagnosis of docs/learning.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import read_network, read_weights, shipped_weights_file
from xenophon.kernel.files import write_atomic
from xenophon.lab.learnloop import LEARNED, index_rows, joined_log
from xenophon.lab.network import log_report, new_params


def run_score(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    rows = index_rows(folder)
    linear = read_weights(shipped_weights_file(args.game), args.game)
    log = joined_log([(folder, rows)], args.max_games)
    width = (log["own"].shape[1], log["features"].shape[1])
    models = {LEARNED: new_params(*width, 1, 1, linear, 0)}
    for path in args.networks:
        arrays = read_network(path, args.game).arrays
        models[path] = {key: value.astype("float64") for key, value in arrays.items()}
    report = {
        "games": len(rows[: args.max_games]),
        **log_report(log, linear.taper_turns, models, LEARNED),
    }
    text = json.dumps(report, indent=1) + "\n"
    if args.out:
        write_atomic(args.out, text)
    print(text, end="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    score = sub.add_parser(
        "score", help="score networks and the learned evaluation on a log's roots and leaves"
    )
    score.add_argument("game")
    score.add_argument("--folder", required=True)
    score.add_argument("--networks", nargs="*", default=[])
    score.add_argument("--max-games", type=int, default=None, help="the first N games only")
    score.add_argument("--out", default=None, help="also write the report (JSON) here")
    args = parser.parse_args()
    run_score(args)


if __name__ == "__main__":
    try:
        main()
    except XenophonError as error:
        sys.exit(f"learn: {error}")
    except KeyboardInterrupt:
        sys.exit(130)
