"""The Hero board drawn as rows (issue 66 item 10): each row's units side by
side in their places, letters in place, within 80 columns."""

from test_effect_narration import hero_state
from xenophon.hero.describe import HeroNarrator


def test_each_row_is_drawn_with_its_units_side_by_side():
    state = hero_state("Fireball")
    board = HeroNarrator(state, 0).board(state).splitlines()
    assert all(len(line) <= 80 for line in board)
    fronts = [index for index, line in enumerate(board) if line == "  front:"]
    theirs, mine = (board[index + 1 : index + 4] for index in fronts)
    assert theirs[0].split() == ["op.a", "1000/1", "op.b", "3000/2"]
    assert theirs[1].split() == ["Sky", "Scout", "Great", "Bear"]
    assert theirs[2].split() == ["standby", "used"]
    assert mine[0].split()[::2] == ["a", "b", "c", "d", "e"]  # five units, letters in place
