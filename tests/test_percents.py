"""Win probabilities shown as percentages (xenophon.cli.common)."""

from xenophon.cli.common import percents_apart


def test_percents_tied_at_whole_numbers_are_told_apart():
    """Issue 66 item 5: 'hint' ties read with decimals."""
    assert percents_apart([0.274, 0.271, 0.269]) == ["27.4%", "27.1%", "26.9%"]
    assert percents_apart([0.5, 0.3]) == ["50%", "30%"]
    assert percents_apart([0.27401, 0.27399]) == ["27.40%", "27.40%"]  # at most two decimals
