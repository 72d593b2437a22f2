"""Paired figures of several match results files taken together (matches of
the same two bots on disjoint deals, e.g. one run with --seed 1 and one with
--seed 51 of 100 games each): score, the interval from the deals, the
pentanomial counts and the Elo difference, as `xenophon match` reports one.

    python bench/pool_results.py A.jsonl B.jsonl ...
"""
import json
import sys

from xenophon.tournament import pair_elo, paired_interval, pentanomial


def deal_points(paths: list[str]) -> list[float]:
    """Bot A's points on each deal played from both seats (0, 0.5, ..., 2)."""
    deals: dict[tuple[str, str], list[float]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if "job" in row:
                    score = (row["returns"][row["first_seat_of_a"]] + 1) / 2
                    deals.setdefault((path, row["job"]), []).append(score)
    return [sum(scores) for scores in deals.values() if len(scores) == 2]


def main(paths: list[str]) -> None:
    points = deal_points(paths)
    low, high = paired_interval([point / 2 for point in points])
    elo, elo_low, elo_high = pair_elo(points)
    print(f"{len(points)} deals, {2 * len(points)} games, score {sum(points) / (2 * len(points)):.1%}, "
          f"paired 95% interval [{low:.1%}, {high:.1%}], pentanomial {pentanomial(points)}, "
          f"Elo {elo:+.0f} [{elo_low:+.0f}, {elo_high:+.0f}]")


if __name__ == "__main__":
    main(sys.argv[1:])
