#!/usr/bin/env python3
"""Measures a refinement: two builds of one Google Benchmark binary, side by
side in one run.

    benchmarks/compare_binaries.py BEFORE AFTER [--filter REGEX] [--rounds N]
        [--ratio NUMERATOR:DENOMINATOR ...]

BEFORE and AFTER are copies of one benchmark binary (e.g. build/bin/
weakref-core-bench) built against the series without and with a patch. They
run in alternating order (ABBA...), each round one process per binary, so that
both see the same state of a noisy host. Printed per benchmark: the median
real time over the rounds for each binary, and AFTER/BEFORE; the median of
each `--ratio` (one benchmark's time over another's, taken within a round of
one binary, e.g. referenced over unreferenced), and of every user counter
(e.g. `scaling`).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(binary, bench_filter, min_time):
    out = subprocess.run(
        [binary, f"--benchmark_filter={bench_filter}", "--benchmark_format=json",
         f"--benchmark_min_time={min_time}"],
        check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        counters = {k: v for k, v in b.items()
                    if isinstance(v, (int, float)) and k not in STANDARD_FIELDS}
        results[b["name"]] = (b["real_time"], counters)
    return results


STANDARD_FIELDS = {"family_index", "per_family_instance_index", "repetitions",
                   "repetition_index", "threads", "iterations", "real_time",
                   "cpu_time", "items_per_second", "bytes_per_second"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--filter", default=".")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--min-time", default="0.2")
    parser.add_argument("--ratio", action="append", default=[],
                        metavar="NUMERATOR:DENOMINATOR")
    args = parser.parse_args()
    ratios = [r.split(":") for r in args.ratio]
    if any(len(r) != 2 for r in ratios):
        sys.exit("compare_binaries.py: error: --ratio takes NUMERATOR:DENOMINATOR")
    binaries = {"before": args.before, "after": args.after}
    for which, path in binaries.items():
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"compare_binaries.py: error: {which} binary '{path}' "
                     "is not an executable file")
    rounds = {"before": [], "after": []}
    for i in range(args.rounds):
        order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
        for which in order:
            rounds[which].append(run(binaries[which], args.filter, args.min_time))
    names = list(rounds["before"][0])
    for name in names:
        med = {w: statistics.median(r[name][0] for r in rounds[w]) for w in rounds}
        print(f"{name}: before {med['before']:.4g}, after {med['after']:.4g}, "
              f"after/before {med['after'] / med['before']:.3f}")
        for counter in rounds["before"][0][name][1]:
            c = {w: statistics.median(r[name][1][counter] for r in rounds[w])
                 for w in rounds}
            print(f"  {counter}: before {c['before']:.4g}, after {c['after']:.4g}")
    for num, den in ratios:
        for name in (num, den):
            if name not in names:
                sys.exit(f"compare_binaries.py: error: no benchmark named '{name}' "
                         f"(have: {', '.join(names)})")
        r = {w: statistics.median(x[num][0] / x[den][0] for x in rounds[w])
             for w in rounds}
        print(f"{num} / {den}: before {r['before']:.3f}x, after {r['after']:.3f}x "
              f"(median of {args.rounds} rounds each)")


if __name__ == "__main__":
    main()
