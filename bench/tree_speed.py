"""Iterations per second with transpositions against v1 on the bench positions
(best of 3 interleaved runs of 20,000 iterations each): prints the ratio.

    python bench/tree_speed.py
"""

from xenophon.lab.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot

for e in load_positions():
    st = position_state(e)
    rates = {"v1": [], "transpositions": []}
    for _ in range(3):
        for name, opts in (("v1", {}), ("transpositions", {"transpositions": True})):
            r = ISMCTSBot(iterations=20000, seed=1, **opts).analyse(st)
            rates[name].append(r.iterations_per_second)
    print(e["game"], e["stage"], round(max(rates["transpositions"]) / max(rates["v1"]), 2))
