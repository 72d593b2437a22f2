"""The search gives exactly the results it gave before the renovation (issue
45): every case of tests/search_fingerprints.py, recomputed on this build,
equals its fingerprint recorded on the build before (the per-move visits and
win probabilities to the bit, the principal lines, the node counts)."""

import json

import pytest

from search_fingerprints import DATA, fingerprints

RECORDED = json.loads(DATA.read_text())


@pytest.fixture(scope="module")
def computed():
    return fingerprints()


def test_every_position_is_fingerprinted(computed):
    assert sorted(computed) == sorted(RECORDED)


@pytest.mark.parametrize("position", sorted(RECORDED))
def test_searches_are_unchanged(computed, position):
    assert sorted(computed[position]) == sorted(RECORDED[position])
    for case, recorded in RECORDED[position].items():
        assert computed[position][case] == recorded, case
