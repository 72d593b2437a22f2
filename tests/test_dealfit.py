"""The deal-effect fit (`xenophon.lab.dealfit`): it recovers known α, τ and
D from simulated matches, symmetric data give no edge, and degenerate data
give a finite fit with a note, never a crash."""

import math

import numpy as np
import pytest

from xenophon.lab.dealfit import (
    BOUND,
    ELO_PER_LOGIT,
    PROFILE_DROP,
    Outcomes,
    fit_deals,
    fit_outcomes,
    maximise,
    pair_score,
    score_factor,
)


def simulate(deals, alpha, tau, d, seed):
    """A paired match under the model: (A's score from seat 0, from seat 1) a deal."""
    rng = np.random.default_rng(seed)
    u = rng.normal(0, tau, deals)
    seat0 = rng.random(deals) < 1 / (1 + np.exp(-(alpha + u + d)))
    seat1 = rng.random(deals) >= 1 / (1 + np.exp(-(alpha + u - d)))
    return list(zip(seat0.astype(float), seat1.astype(float)))


@pytest.mark.parametrize(
    "alpha, tau, d, seed",
    [(2.1, 4.4, 0.3, 1), (0.42, 1.2, -0.2, 2), (-0.5, 0.6, 0.5, 3)],
)
def test_recovers_known_parameters(alpha, tau, d, seed):
    outcomes = Outcomes.of(simulate(3000, alpha, tau, d, seed))
    fit = fit_outcomes(outcomes)
    assert fit.deals == 3000 and fit.games == 6000 and fit.note is None
    # within 3.5 standard errors (from the observed information) of the truth
    _, _, hessian = outcomes.derivatives(fit.alpha, fit.tau, fit.d)
    errors = np.sqrt(np.diag(np.linalg.inv(-hessian)))
    assert errors.max() < 0.25  # a tight test: 3,000 deals pin each to a few tenths
    for fitted, true, error in zip((fit.alpha, fit.tau, fit.d), (alpha, tau, d), errors):
        assert abs(fitted - true) < 3.5 * error, (fitted, true, error)
    assert fit.d_low < d < fit.d_high
    assert fit.elo == pytest.approx(fit.d * 400 / math.log(10))
    # a wider spread of the deals hides more of the edge: the interval is wider
    assert 0.05 < fit.d_high - fit.d_low < 0.4


def test_the_interval_is_where_the_profile_likelihood_drops_by_1_92():
    outcomes = Outcomes.of(simulate(400, 0.4, 1.0, 0.2, 4))
    fit = fit_outcomes(outcomes)
    for end in (fit.d_low, fit.d_high):
        profile = maximise(outcomes, [fit.alpha, fit.tau, end], free=(0, 1))[1]
        assert fit.log_likelihood - profile == pytest.approx(PROFILE_DROP, abs=2e-3)
    # the maximum: no D nearby does better
    for d in (fit.d - 0.05, fit.d + 0.05):
        assert maximise(outcomes, [fit.alpha, fit.tau, d], free=(0, 1))[1] < fit.log_likelihood


def test_symmetric_data_give_no_edge():
    # as many deals won twice as lost twice: A and B alike, whatever the seats did
    deals = [(1.0, 1.0)] * 30 + [(0.0, 0.0)] * 30 + [(1.0, 0.0)] * 70 + [(0.0, 1.0)] * 20
    fit = fit_deals(deals)
    assert fit.d == pytest.approx(0, abs=1e-4)
    assert fit.d_low == pytest.approx(-fit.d_high, abs=1e-3)
    assert fit.alpha > 0.3  # the first seat won both games of 70 deals, the second of 20


def test_draws_count_half_and_a_single_game_adds_its_game():
    fit = fit_deals([(0.5, 0.5)] * 10 + [(1.0, 0.0), (0.0, 1.0)] * 5 + [(1.0, None)])
    assert fit.deals == 20 and fit.games == 41
    assert 0 < fit.d < 0.5  # one lone win, from the first seat
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        Outcomes.of([(0.3, 1.0)])


@pytest.mark.parametrize(
    "deals, note",
    [
        ([(1.0, 1.0)] * 40, "A won every game"),
        ([(0.0, 0.0)] * 40, "A lost every game"),
        ([(1.0, 0.0)] * 40, "one seat won every game"),
        ([(1.0, 0.0), (0.0, 1.0)] * 30, "τ is at its bound"),
        ([(None, 1.0)] * 3, "no deal was played from both seats"),
        ([], "no deal was played from both seats"),
    ],
)
def test_degenerate_data_give_a_finite_fit_and_say_so(deals, note):
    fit = fit_deals(deals)
    values = (fit.alpha, fit.tau, fit.d, fit.d_low, fit.d_high, fit.log_likelihood)
    assert all(math.isfinite(v) for v in values)
    assert -BOUND <= fit.d_low <= fit.d <= fit.d_high <= BOUND
    assert fit.note and note in fit.note
    assert note in fit.text()


def test_all_won_bounds_the_edge_from_below_only():
    fit = fit_deals([(1.0, 1.0)] * 40)
    assert fit.d > 3 and fit.d_low > 1 and fit.d_high == BOUND
    assert "≥ +" in fit.text()


def test_no_split_deal_means_no_deal_spread():
    fit = fit_deals([(1.0, 1.0)] * 30 + [(0.0, 0.0)] * 20)
    assert fit.tau < 0.05 and fit.alpha == pytest.approx(0, abs=1e-3)


def test_gradient_and_hessian_are_those_of_the_likelihood():
    outcomes = Outcomes.of([(1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.5, 0.0), (None, 1.0)])
    theta = np.array([0.3, 1.7, -0.2])
    _, gradient, hessian = outcomes.derivatives(*theta)
    step = 1e-5
    for i, e in enumerate(np.eye(3)):
        up, down = (
            outcomes.derivatives(*(theta + step * e)),
            outcomes.derivatives(*(theta - step * e)),
        )
        assert (up[0] - down[0]) / (2 * step) == pytest.approx(gradient[i], rel=1e-5, abs=1e-8)
        assert (up[1] - down[1]) / (2 * step) == pytest.approx(hessian[i], rel=1e-5, abs=1e-7)


def test_pair_score_and_the_score_factor():
    for alpha, tau in ((2.1, 4.4), (0.42, 1.2), (0.0, 0.0)):
        assert pair_score(alpha, tau, 0.0) == pytest.approx(0.5, abs=1e-12)
        assert pair_score(alpha, tau, 0.3) == pytest.approx(1 - pair_score(alpha, tau, -0.3))
        assert pair_score(alpha, tau, 0.3) > pair_score(alpha, tau, 0.1) > 0.5
    # without deal effects the pair score is the logistic of the edge
    assert pair_score(0.0, 0.0, 0.4) == pytest.approx(1 / (1 + math.exp(-0.4)))
    # the figures: near 50% a gain within a deal shows at 0.30x in Hero
    # (τ = 4.4, α = 2.1) and 0.76x in Anabasis (τ = 1.2, α = 0.42)
    assert score_factor(2.1, 4.4) == pytest.approx(0.30, abs=0.01)
    assert score_factor(0.42, 1.2) == pytest.approx(0.76, abs=0.01)
    assert score_factor(0.0, 0.0) == pytest.approx(1.0)
    assert ELO_PER_LOGIT == pytest.approx(173.7178, abs=1e-4)
