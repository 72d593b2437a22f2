"""`bench/pool_results.py`: two matches on disjoint deals reported as one,
with the GSPRT's LLR on request; a bad file or option is one clear line."""

import subprocess
import sys
from pathlib import Path

from xenophon.lab.tournament import MatchReport, deal_scale_llr, pentanomial_llr, play_match

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "pool_results.py"


def pool(*arguments):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_pools_disjoint_matches_and_gives_the_llr(tmp_path):
    files, reports = [tmp_path / "seed1.jsonl", tmp_path / "seed3.jsonl"], []
    for path, seed in zip(files, (1, 3)):
        reports.append(
            play_match(
                "hero",
                "greedy",
                "random",
                games=4,
                seed=seed,
                processes=1,
                progress=False,
                results=str(path),
            )
        )
    pooled = MatchReport("hero", "greedy", "random")
    for report in reports:
        for record in report.records:
            pooled.add(record)
    result = pool(*files, "--llr", 0, 20, "--logistic")
    assert result.returncode == 0, result.stderr
    *report_lines, llr_line = result.stdout.splitlines()
    report_line = "\n".join(report_lines)  # the report's table, then the LLR
    assert report_line == pooled.text() and "8 games" in report_line
    assert "Elo within a deal" in report_line or "too few games to bound the Elo" in report_line
    llr = pentanomial_llr(pooled.summary()["pentanomial"], 0, 20)
    assert llr_line.startswith(f"GSPRT LLR for Elo 0 against 20: {llr:.2f} ")
    # without --logistic, the hypotheses are within a deal
    result = pool(*files, "--llr", 0, 20)
    assert result.returncode == 0, result.stderr
    within, score0, score1 = deal_scale_llr(pooled, 0, 20)
    assert score0 == 0.5 and score1 == pooled.deal_fit().pair_score(20)
    assert result.stdout.splitlines()[-1].startswith(
        f"GSPRT LLR for Elo within a deal 0 against 20: {within:.2f} "
    )


def test_bad_files_and_options_are_one_line(tmp_path):
    (tmp_path / "text.jsonl").write_text("not json\n")
    (tmp_path / "list.jsonl").write_text("[1, 2]\n")
    for arguments, message in [
        ((tmp_path / "missing.jsonl",), "cannot read"),
        ((tmp_path / "text.jsonl",), "a line is not JSON"),
        ((tmp_path / "list.jsonl",), "not a JSON object"),
    ]:
        result = pool(*arguments)
        assert result.returncode != 0 and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    result = pool(tmp_path / "text.jsonl", "--llr", 20, 0)
    assert result.returncode == 2 and "must be below" in result.stderr
    result = pool(tmp_path / "text.jsonl", "--logistic")
    assert result.returncode == 2 and "--logistic goes with --llr" in result.stderr
