"""Several match results files taken together (matches of the same two bots
on disjoint deals, e.g. one run with --seed 1 and one with --seed 51 of 100
games each), reported as `xenophon match` reports one match: score, the
interval from the deals, the pentanomial counts and the Elo difference.

    python bench/pool_results.py A.jsonl B.jsonl ...
"""
import json
import sys

from xenophon.tournament import GameRecord, MatchReport, game_fields


def pooled_report(paths: list[str]) -> MatchReport:
    """One report of every game of the files (their deals are told apart by
    their chance seeds, so the files must not share deals)."""
    report = None
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if "config" in row:
                    config = row["config"]
                    match = (config["game"], config["bot_a"], config["bot_b"])
                    if report is None:
                        report = MatchReport(*match)
                    elif match != (report.game, report.bot_a, report.bot_b):
                        sys.exit(f"{path}: another match ({', '.join(match)})")
                elif "job" in row:
                    report.add(GameRecord(**game_fields(row)))
    return report


if __name__ == "__main__":
    print(pooled_report(sys.argv[1:]).text())
