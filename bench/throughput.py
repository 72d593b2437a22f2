"""Games per second of the job runner (`xenophon.lab.jobs`) on 1 and 2 local
processes and on a local Ray cluster of 2 worker processes, for docs/cluster.md.

    python bench/throughput.py [--games 60] [--out bench/throughput-results.json]

Each setting plays the same match (so the same games); the clock runs from
the first job submitted to the last result, the pool or cluster already up.
"""

import argparse
import json
import os
import platform
import time

from xenophon.lab.jobs import LocalBackend, RayBackend, run_jobs
from xenophon.lab.tournament import match_jobs

MATCHES = {
    "hero": ("ismcts:iterations=500", "ismcts:iterations=500"),
    "anabasis": ("ismcts:iterations=500", "ismcts:iterations=500"),
}


def measure(game, bots, games, backend):
    jobs = match_jobs(game, *bots, games, 1)
    start = time.perf_counter()
    run = run_jobs(jobs, None, command="throughput", config={}, backend=backend, progress=False)
    seconds = time.perf_counter() - start
    played = sum(len(g) for g in run.results.values())
    return {
        "games": played,
        "seconds": round(seconds, 2),
        "games_per_second": round(played / seconds, 3),
        "outcomes": [g["returns"][0] for games_ in run.results.values() for g in games_],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--out", default="bench/throughput-results.json")
    args = parser.parse_args()
    import ray

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,  # 2 worker processes
        log_to_driver=False,
    )
    settings = {
        "1 local process": LocalBackend(1),
        "2 local processes": LocalBackend(2),
        "Ray, local cluster of 2 workers": RayBackend(),
    }
    rows = []
    for game, bots in MATCHES.items():
        for label, backend in settings.items():
            row = {
                "game": game,
                "bots": list(bots),
                "setting": label,
                **measure(game, bots, args.games, backend),
            }
            rows.append(row)
            print(
                f"{game:9} {label:32} {row['games']} games in {row['seconds']:7.2f} s: "
                f"{row['games_per_second']:.2f} games/s",
                flush=True,
            )
        same = {json.dumps(r["outcomes"]) for r in rows if r["game"] == game}
        print(f"{game}: the same outcomes in every setting: {len(same) == 1}")
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(
            {
                "command": f"python bench/throughput.py --games {args.games}",
                "machine": machine,
                "rows": rows,
            },
            handle,
            indent=1,
        )
        handle.write("\n")


if __name__ == "__main__":
    main()
