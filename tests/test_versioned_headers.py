"""The one check of a versioned file's header (xenophon.kernel.files.check_header)
and the three readers that use it: a network file, a deal book and a jobs'
results file each refuse another format and another version in one line of
their own error type, naming the file."""

import json

import pytest

from test_network import HERO, random_network, written
from xenophon.kernel.evaluation import WeightsError, read_network
from xenophon.kernel.files import check_header
from xenophon.lab.dealbook import BookError, DealBook, read_book
from xenophon.lab.jobs import RunError, results_config, results_header


class MadeUpError(Exception):
    pass


@pytest.mark.parametrize(
    "data, says",
    [
        ([1, 2], "f.json: not a thing (format None, expected 'fmt')"),
        ({"format": "other", "v": 1}, "f.json: not a thing (format 'other', expected 'fmt')"),
        (
            {"format": "fmt"},
            "f.json: a thing of format version None; this xenophon reads version 2",
        ),
        ({"format": "fmt", "v": 3}, "a thing of format version 3; this xenophon reads version 2"),
        ({"format": "fmt", "v": True}, "a thing of format version True"),
        ({"format": "fmt", "v": "2"}, "a thing of format version '2'"),
    ],
)
def test_a_wrong_format_or_version_raises_the_callers_error_in_one_line(data, says):
    with pytest.raises(MadeUpError) as raised:
        check_header(data, "f.json", "thing", "fmt", 2, MadeUpError, "v")
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_right_header_passes():
    check_header({"format": "fmt", "version": 2, "more": 1}, "f", "thing", "fmt", 2, MadeUpError)


def _network(tmp_path, key, value):
    network = random_network(HERO(1))
    network.meta[key] = value
    path = written(tmp_path, network)
    return lambda: read_network(path, "hero"), WeightsError


def _book(tmp_path, key, value):
    path = tmp_path / "book.json"
    DealBook("hero", [7, 3], {"bot": "greedy"}).write(str(path))
    data = json.loads(path.read_text())
    data[{"version": "format_version"}.get(key, key)] = value
    path.write_text(json.dumps(data))
    return lambda: read_book(str(path), "hero"), BookError


def _results(tmp_path, key, value):
    path = tmp_path / "results.jsonl"
    header = results_header("match", {"games": 2})
    header[{"version": "format_version"}.get(key, key)] = value
    path.write_text(json.dumps(header) + "\n")
    return lambda: results_config(path, "match"), RunError


@pytest.mark.parametrize("reader", [_network, _book, _results])
@pytest.mark.parametrize(
    "key, value, says",
    [
        ("format", "xenophon-other", "(format 'xenophon-other', expected"),
        ("version", 99, "version 99"),
    ],
)
def test_each_reader_refuses_another_format_or_version_in_one_line(
    tmp_path, reader, key, value, says
):
    read, error = reader(tmp_path, key, value)
    with pytest.raises(error) as raised:
        read()
    message = str(raised.value)
    assert says in message and "\n" not in message
    assert str(tmp_path) in message


@pytest.mark.parametrize("reader", [_network, _book, _results])
def test_each_reader_reads_its_own_header(tmp_path, reader):
    read, _ = reader(tmp_path, "unused", 0)
    assert read() is not None
