"""Several match results files taken together (matches of the same two bots
on disjoint deals, e.g. one run with --seed 1 and one with --seed 51 of 100
games each), reported as `xenophon match` reports one match: score, the
interval from the deals, the pentanomial counts, the Elo difference, the
Elo within a deal of the deal-effect fit (`xenophon.lab.dealfit`) and how
the seats fared. With --llr, also the GSPRT log-likelihood ratio of the
pentanomial counts for two hypotheses in Elo within a deal (as `xenophon
match --sprt` tests them, at the α and τ fitted on all the deals; with
--logistic, in logistic Elo of the mean score), for a match that was played
to a fixed number of deals.

    python bench/pool_results.py A.jsonl B.jsonl ... [--llr 0 20 [--logistic]]
"""

import argparse
import sys

from xenophon.kernel.registry import SpecError
from xenophon.lab.tournament import (
    MatchReport,
    check_sprt,
    deal_scale_llr,
    pentanomial_llr,
    pooled_report,
    sprt_bounds,
)


def llr_line(report: MatchReport, elo0: float, elo1: float, logistic: bool = False) -> str:
    low, high = sprt_bounds(0.05, 0.05)
    bounds = f"(an SPRT at alpha = beta = 0.05 decides below {low:.2f} or above {high:.2f})"
    if logistic:
        llr = pentanomial_llr(report.summary()["pentanomial"], elo0, elo1)
        return f"GSPRT LLR for Elo {elo0:g} against {elo1:g}: {llr:.2f} {bounds}"
    llr, score0, score1 = deal_scale_llr(report, elo0, elo1)
    return (
        f"GSPRT LLR for Elo within a deal {elo0:g} against {elo1:g}: {llr:.2f} {bounds}; "
        f"at the fitted α and τ, mean deal scores {score0:.2%} against {score1:.2%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="results files (.jsonl) of one match")
    parser.add_argument(
        "--llr", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="Elo within a deal"
    )
    parser.add_argument(
        "--logistic", action="store_true", help="--llr in logistic Elo of the mean score"
    )
    args = parser.parse_args()
    if args.logistic and not args.llr:
        parser.error("--logistic goes with --llr")
    if args.llr:
        try:
            check_sprt(*args.llr)
        except SpecError as error:
            parser.error(str(error))
    try:
        report = pooled_report(args.files)
    except SpecError as error:
        sys.exit(str(error))
    print(report.text())
    if args.llr:
        print(llr_line(report, *args.llr, logistic=args.logistic))


if __name__ == "__main__":
    main()
