"""The GSPRT in Elo within a deal (`DealScaleLLR`, `sprt_rule`): on matches
simulated under the deal-effect model it stops early, and its error rates
are near the nominal 5%."""

import math

import numpy as np
import pytest

from xenophon.kernel.registry import SpecError
from xenophon.lab.dealfit import ELO_PER_LOGIT, fit_deals, pair_score
from xenophon.lab.tournament import (
    DealScaleLLR,
    EarlierRunsDecide,
    pentanomial,
    pentanomial_score_llr,
    sprt_bounds,
    sprt_rule,
)

LOW, HIGH = sprt_bounds(0.05, 0.05)


def run_sprt(rng, alpha, tau, elo, elo0, elo1, cap=400):
    """An SPRT on a simulated match: (the hypothesis accepted or None, deals played)."""
    d = elo / ELO_PER_LOGIT
    test = DealScaleLLR(elo0, elo1)
    for deals in range(1, cap + 1):
        u = rng.normal(0, tau)
        seat0 = float(rng.random() < 1 / (1 + math.exp(-(alpha + u + d))))
        seat1 = float(rng.random() >= 1 / (1 + math.exp(-(alpha + u - d))))
        llr = test.add(seat0, seat1)
        if llr <= LOW:
            return 0, deals
        if llr >= HIGH:
            return 1, deals
    return None, cap


def test_error_rates_are_near_the_nominal():
    """Anabasis' deals (α = 0.42, τ = 1.2): 0 against 250 Elo within a deal,
    80 matches at each hypothesis."""
    rng = np.random.default_rng(48)
    for true, wrong in ((0.0, 1), (250.0, 0)):
        runs = [run_sprt(rng, 0.42, 1.2, true, 0, 250) for _ in range(80)]
        decisions = [decision for decision, _ in runs]
        assert None not in decisions  # every match decided, far below the cap
        assert np.mean([deals for _, deals in runs]) < 30
        # nominal 5%: 9 or more wrong decisions of 80 has odds of 2% at 5%
        assert decisions.count(wrong) < 9, (true, decisions.count(wrong))


@pytest.mark.parametrize("elo, accepted", [(300.0, 1), (-300.0, 0)])
def test_stops_early_on_a_strong_or_weak_bot_in_hero_like_deals(elo, accepted):
    """Hero's deals (α = 2.1, τ = 4.4) hide 70% of an edge from the score."""
    rng = np.random.default_rng(7)
    runs = [run_sprt(rng, 2.1, 4.4, elo, 0, 100) for _ in range(5)]
    assert all(decision == accepted for decision, _ in runs)
    assert max(deals for _, deals in runs) < 200


def test_an_edge_of_zero_is_half_the_points_whatever_the_deals():
    test = DealScaleLLR(0, 50)
    for seat0, seat1 in [(1.0, 0.0)] * 5 + [(1.0, 1.0), (0.0, 0.0)] * 3:
        test.add(seat0, seat1)
    assert test.scores[0] == 0.5 and 0.5 < test.scores[1] < 0.57


def deal_lines(seed, seat0, seat1):
    """The two game lines of a deal on which A scored `seat0` from seat 0 and `seat1` from seat 1."""
    return [
        {
            "seed": seed,
            "first_seat_of_a": seat,
            "turns": 1,
            "actions": 1,
            "returns": [1.0, -1.0] if (score == 1) == (seat == 0) else [-1.0, 1.0],
        }
        for seat, score in ((0, seat0), (1, seat1))
    ]


def test_the_rule_decides_in_elo_within_a_deal_and_says_so():
    decided = []
    stop = sprt_rule((0, 100, 0.05, 0.05), decided)  # the scale within a deal by default
    assert not stop(deal_lines(0, 1.0, 1.0)[:1])  # one game of a deal is no pair
    # most deals won by the first seat (Hero-like): the score shows little of an edge
    pattern = [(1.0, 1.0), (1.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0), (1.0, 1.0)]
    fed = 0
    while not stop(deal_lines(fed, *pattern[fed % len(pattern)])):
        fed += 1
        assert fed < 500
    assert decided[0].startswith("H1 accepted") and "Elo within a deal 0 vs 100" in decided[0]
    # the LLR is Fishtest's on the pentanomial counts, H1 translated to a mean
    # deal score at the α and τ fitted on the same deals
    deals = [pattern[k % len(pattern)] for k in range(fed + 1)]
    fit = fit_deals(deals)
    score1 = pair_score(fit.alpha, fit.tau, 100 / ELO_PER_LOGIT)
    counts = pentanomial([seat0 + seat1 for seat0, seat1 in deals])
    llr = pentanomial_score_llr(counts, 0.5, score1)
    assert llr >= HIGH and f"LLR {llr:.2f}," in decided[0] and f"vs {score1:.2%}" in decided[0]
    # the same deals on the logistic scale: Fishtest's test, as before
    logistic = []
    stop = sprt_rule((0, 100, 0.05, 0.05), logistic, "logistic")
    fed = 0
    while not stop(deal_lines(fed, *pattern[fed % len(pattern)])):
        fed += 1
    assert logistic[0].endswith("Elo 0 vs 100)")


def test_a_match_stops_on_either_scale_and_the_cap_holds():
    from xenophon.lab.tournament import play_match

    reports = {
        scale: play_match(
            "anabasis",
            "greedy",
            "random",
            games=200,
            processes=1,
            progress=False,
            sprt=(0, 400, 0.05, 0.05),
            sprt_scale=scale,
        )  # fmt: skip
        for scale in ("deal", "logistic")
    }
    assert "Elo within a deal 0 vs 400" in reports["deal"].sprt
    assert reports["logistic"].sprt.endswith("Elo 0 vs 400)")
    assert all(report.games < 200 for report in reports.values())
    capped = play_match(
        "anabasis", "random", "random", games=6, processes=1, progress=False,
        sprt=(0, 5, 0.05, 0.05),
    )  # fmt: skip
    assert capped.games == 6 and capped.sprt is None  # undecided at the cap


def test_a_test_carried_on_counts_the_earlier_deals_first():
    """A run that carries on earlier runs decides at the same deal, with the
    same LLR, as one run of all the deals would; earlier runs that decided
    already are refused."""
    pattern = [(1.0, 1.0), (1.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0), (1.0, 1.0)]
    deals = [pattern[k % len(pattern)] for k in range(500)]

    def decide(earlier):
        decided = []
        stop = sprt_rule((0, 100, 0.05, 0.05), decided, earlier=deals[:earlier])
        fed = earlier
        while not stop(deal_lines(fed, *deals[fed])):
            fed += 1
        return fed, decided[0]

    at_once, said = decide(0)
    carried, carried_said = decide(5)
    assert carried == at_once and carried_said.startswith(said[:-1])
    assert carried_said.endswith("; 5 deals of earlier runs counted first)")
    with pytest.raises(EarlierRunsDecide, match="decide the test already: H1 accepted"):
        sprt_rule((0, 100, 0.05, 0.05), [], earlier=deals[: at_once + 1])


def test_a_match_carries_on_the_results_of_an_earlier_run(tmp_path):
    from xenophon.lab.tournament import finished_match, play_match

    def match(**options):
        return play_match(
            "anabasis", "greedy", "random", processes=1, progress=False,
            sprt=(0, 400, 0.05, 0.05), **options,
        )  # fmt: skip

    first = str(tmp_path / "first.jsonl")
    assert match(games=4, seed=1, results=first).sprt is None  # undecided at its cap
    carried = match(games=200, seed=3, results=str(tmp_path / "on.jsonl"), sprt_after=[first])
    # the same deals in one run (the book's order), the bots seeded by the deal
    at_once = match(games=200, book=list(range(1, 200)))
    assert carried.games + 4 == at_once.games
    assert carried.sprt.startswith(at_once.sprt[:-1]) and "2 deals of earlier runs" in carried.sprt
    tally = finished_match(
        "anabasis", "greedy", "random", 200, 3, str(tmp_path / "on.jsonl"),
        sprt=(0, 400, 0.05, 0.05), sprt_after=[first],
    )  # fmt: skip
    assert tally.sprt == carried.sprt and tally.games == carried.games
    for options, message in [
        ({"seed": 2, "sprt_after": [first]}, "deal 2 is in the earlier runs too"),
        ({"seed": 9, "sprt_after": [str(tmp_path / "none.jsonl")]}, "cannot read"),
    ]:
        with pytest.raises(SpecError, match=message):
            match(games=10, **options)
    with pytest.raises(SpecError, match="another match"):
        play_match("anabasis", "random", "greedy", games=2, seed=9, processes=1,
                   progress=False, sprt=(0, 400, 0.05, 0.05), sprt_after=[first])  # fmt: skip
    with pytest.raises(SpecError, match="go with an SPRT"):
        play_match("anabasis", "greedy", "random", games=2, seed=9, processes=1,
                   progress=False, sprt_after=[first])  # fmt: skip
