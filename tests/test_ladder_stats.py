"""The match statistics: pentanomial counts, Fishtest's GSPRT on them, Elo
from the pairs (known answers worked out by hand)."""

import math

import pytest

from xenophon.lab.tournament import (
    GameRecord,
    MatchReport,
    logistic_elo,
    logistic_score,
    pair_elo,
    pentanomial,
    pentanomial_llr,
    sprt_bounds,
    sprt_rule,
)


def two_point_llr(low_count, high_count, low, high, s0, s1):
    """The LLR when only two pair outcomes occur (values `low` < `high`): the
    most likely distribution of mean s on them is p(high) = (s - low) / (high - low)."""

    def likelihood(s):
        p_high = (s - low) / (high - low)
        return low_count * math.log(1 - p_high) + high_count * math.log(p_high)

    return likelihood(s1) - likelihood(s0)


def test_logistic_elo_and_score_are_inverse():
    assert logistic_score(0) == 0.5
    assert logistic_score(400) == pytest.approx(10 / 11)
    for elo in (-300, -35.5, 0, 12, 250):
        assert logistic_elo(logistic_score(elo)) == pytest.approx(elo)


def test_pentanomial_counts_each_deal_by_its_points():
    assert pentanomial([0, 2, 1, 1, 1.5, 0.5, 2, 1]) == [1, 1, 3, 1, 2]
    assert pentanomial([]) == [0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    "counts, low, high", [([30, 0, 0, 0, 70], 0.0, 1.0), ([0, 45, 0, 55, 0], 0.25, 0.75)]
)
def test_llr_matches_the_hand_computed_two_point_case(counts, low, high):
    s0, s1 = logistic_score(0), logistic_score(20)
    low_count, high_count = (c for c in counts if c)
    expected = two_point_llr(low_count, high_count, low, high, s0, s1)
    # the empty outcomes count 0.001 each (as Fishtest regularises): a small shift
    assert pentanomial_llr(counts, 0, 20) == pytest.approx(expected, rel=2e-3, abs=2e-3)


def test_llr_of_a_five_outcome_result_is_close_to_its_normal_approximation():
    counts = [20, 60, 110, 70, 40]
    n = sum(counts)
    values = [i / 4 for i in range(5)]
    mean = sum(c * v for c, v in zip(counts, values)) / n
    variance = sum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / n
    s0, s1 = logistic_score(0), logistic_score(10)
    approximate = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert pentanomial_llr(counts, 0, 10) == pytest.approx(approximate, rel=0.02)
    # symmetric results favour neither side of a symmetric test
    assert pentanomial_llr([10, 20, 40, 20, 10], -10, 10) == pytest.approx(0, abs=1e-9)
    assert pentanomial_llr([0, 0, 0, 0, 0], 0, 10) == 0


def test_sprt_bounds_are_walds():
    low, high = sprt_bounds(0.05, 0.05)
    assert low == pytest.approx(-2.944, abs=1e-3) and high == pytest.approx(2.944, abs=1e-3)


def games_of_deal(seed, points):
    """The two game lines of one deal on which bot A scored `points` (0, 1 or 2 wins)."""
    wins = [points >= 1, points >= 2]
    return [
        {
            "seed": seed,
            "first_seat_of_a": seat,
            "turns": 1,
            "actions": 1,
            "returns": [1.0, -1.0] if wins[seat] == (seat == 0) else [-1.0, 1.0],
        }
        for seat in (0, 1)
    ]


def test_sprt_rule_decides_on_pairs_and_says_so():
    decided = []
    stop = sprt_rule((0, 100, 0.05, 0.05), decided, "logistic")
    assert not stop(games_of_deal(1, 2)[:1])  # one game of a deal is no pair
    fed = 0
    while not stop(games_of_deal(fed, 2 if fed % 3 else 1)):
        fed += 1
    assert decided and decided[0].startswith("H1 accepted")
    counts = [0, 0, (fed + 3) // 3, 0, fed + 1 - (fed + 3) // 3]
    assert pentanomial_llr(counts, 0, 100) >= sprt_bounds(0.05, 0.05)[1]


def test_report_gives_pentanomial_and_pair_elo():
    report = MatchReport("anabasis", "a", "b")
    for seed, points in enumerate([2, 1, 1, 0, 2, 2, 1]):
        for line in games_of_deal(seed, points):
            report.add(GameRecord(**line))
    report.add(GameRecord(**games_of_deal(99, 2)[0]))  # a deal from one seat only
    summary = report.summary()
    assert summary["pentanomial"] == [1, 0, 3, 0, 3]
    points = [2, 1, 1, 0, 2, 2, 1]
    elo, low, high = pair_elo(points)
    mean = sum(points) / 14
    assert elo == pytest.approx(logistic_elo(mean))
    se = math.sqrt(sum((p / 2 - mean) ** 2 for p in points) / 6 / 7)
    assert low == pytest.approx(logistic_elo(mean - 1.96 * se))
    assert high == pytest.approx(logistic_elo(mean + 1.96 * se))
    assert summary["pair_elo"] == round(elo, 1)
    assert "pentanomial [1, 0, 3, 0, 3]" in report.text()


def test_report_counts_the_deals_the_seat_decided():
    report = MatchReport("hero", "a", "b")
    second_seat_both = [dict(line, returns=[-1.0, 1.0]) for line in games_of_deal(3, 1)]
    for line in [
        *games_of_deal(1, 1),
        *games_of_deal(2, 1),
        *second_seat_both,
        *games_of_deal(4, 2),
        *games_of_deal(5, 0),
        games_of_deal(6, 1)[0],
    ]:
        report.add(GameRecord(**line))  # deals 1 and 2: the first seat won both
    summary = report.summary()  # deal 6: one seat only, no pair
    assert summary["seat_split_deals"] == [2, 1]
    assert summary["first_seat_score"] == round(7 / 11, 4)
    assert "won both games of 2 deals to the second seat's 1" in report.text()
    assert MatchReport("hero", "a", "b").summary()["seat_split_deals"] == [0, 0]


def test_finished_match_reports_what_a_results_file_holds(tmp_path):
    from xenophon.lab.tournament import finished_match, play_match

    results = str(tmp_path / "r.jsonl")
    played = play_match(
        "hero", "greedy", "random", games=4, processes=1, progress=False, results=results
    )
    tallied = finished_match("hero", "greedy", "random", 4, 1, results)
    assert tallied.summary() == played.summary()
    with open(results) as handle:  # the last deal cut off: left out
        lines = handle.readlines()
    (tmp_path / "cut.jsonl").write_text("".join(lines[:-1]))
    partial = finished_match("hero", "greedy", "random", 4, 1, str(tmp_path / "cut.jsonl"))
    assert partial.games == 2 and sum(partial.summary()["pentanomial"]) == 1


def test_constrained_distribution_has_the_mean_and_beats_its_neighbours():
    """The most likely distribution of a given mean: a distribution, of that
    mean, and no small move that keeps the mean makes the data more likely."""
    from xenophon.lab.tournament import _mean_constrained

    frequencies = [0.1, 0.2, 0.35, 0.25, 0.1]
    values = [0, 0.25, 0.5, 0.75, 1]
    for mean in (0.3, 0.5, 0.62):
        p = _mean_constrained(frequencies, values, mean)
        assert sum(p) == pytest.approx(1) and min(p) > 0
        assert sum(q * v for q, v in zip(p, values)) == pytest.approx(mean)
        best = sum(f * math.log(q) for f, q in zip(frequencies, p))
        # moving mass along (1, -2, 1) at three consecutive values keeps sum and mean
        for i in range(3):
            for step in (1e-3, -1e-3):
                moved = list(p)
                moved[i] += step
                moved[i + 1] -= 2 * step
                moved[i + 2] += step
                assert sum(f * math.log(q) for f, q in zip(frequencies, moved)) <= best + 1e-12


def test_the_report_is_a_short_table_and_a_one_sided_result_is_said_in_words():
    """Issue 66 item 6: one row each for the score, the pentanomial, the Elo
    within a deal and the verdict; 6-0 says the Elo cannot be bounded
    rather than printing -1600 [-1600, -1600]."""
    report = MatchReport("anabasis", "a", "b")
    for seed, points in enumerate([2, 1, 1, 0, 2, 2, 1]):
        for line in games_of_deal(seed, points):
            report.add(GameRecord(**line))
    lines = report.text().splitlines()
    assert lines[0] == "a vs b (anabasis): 14 games"
    labels = [line.split()[0] for line in lines[1:]]
    assert labels[:3] == ["score", "deals", "strength"] and labels[-1] == "verdict"
    assert all(len(line) <= 160 for line in lines)
    swept = MatchReport("anabasis", "a", "b")
    for seed in range(3):
        for line in games_of_deal(seed, 0):
            swept.add(GameRecord(**line))
    text = swept.text()
    assert "0-6: too few games to bound the Elo" in text
    assert "-1600" not in text and "[0.0%, 0.0%]" not in text
    assert "b won every game" in text
