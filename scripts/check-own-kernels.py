#!/usr/bin/env python3
"""Summarises gpuprof results.json files as one table: per variant and size
the compiler and kernel symbol, the verification outcome (with the reason
when not verified), the median time, and the kernel name ncu profiled.
Exits 1 when a variant of tests/gpu/own-kernels does not end as designed:
every variant profiled, the poisoned accumulate "not verified" because it
reads its output, its read-write twin and the copies verified, and the
two-pass reduction verified with both of its launches profiled."""
import json
import statistics
import sys

EXPECTED = {
    "naive-copy": "not-checked",  # the baseline: nothing to compare with
    "tiled-copy": "passed",
    "scaled-copy": "passed",
    "accumulate-poisoned": "not-checked",
    "accumulate-read-write": "passed",
    "reduce-two-pass": "passed",
}


def main(paths):
    failures = []
    print(f"{'suite':<12} {'variant':<22} {'compiler':<6} {'check':<12} {'median ms':>10}  ncu kernel")
    for path in paths:
        results = json.load(open(path))
        suite = results["suite"]["name"]
        for variant in results["variants"]:
            build = variant["build"]
            for run in variant["runs"]:
                check = (run.get("check") or {}).get("status", "none")
                if run.get("failure"):
                    check = "failed:" + run["failure"]["stage"]
                samples = run.get("samples_ms") or []
                median = f"{statistics.median(samples):.4f}" if samples else "-"
                profile = run.get("profile") or {}
                print(f"{suite:<12} {variant['name']:<22} {str(build.get('compiler')):<6} {check:<12} {median:>10}  {profile.get('kernel_name', '-')}")
                if suite == "own-kernels":
                    want = EXPECTED.get(variant["name"])
                    if want and check != want:
                        failures.append(f"{variant['name']}: {check}, expected {want}")
                    if not profile:
                        failures.append(f"{variant['name']}: not profiled")
                    if variant["name"] == "accumulate-poisoned":
                        reason = run["check"].get("reason", "")
                        print(f"    reason: {reason}")
                        if "reads `out` before writing it" not in reason:
                            failures.append("accumulate-poisoned: the reason does not name the read before the write")
                    if variant["name"] == "reduce-two-pass":
                        steps = run.get("steps") or []
                        for number, step in enumerate(steps, 1):
                            duration = step["metrics"].get("gpu__time_duration.sum", 0) / 1e3
                            print(f"    step {number}: {step['kernel_name']} {duration:.2f} us")
                        if len(steps) != 2:
                            failures.append(f"reduce-two-pass: {len(steps)} profiled steps, expected 2")
    for failure in failures:
        print("FAIL", failure)
    print("own-kernels:", "as designed" if not failures else f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
