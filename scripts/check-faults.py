"""Checks the fault suite's results.json (tests/gpu/faults): every failure
is reported as what it is and the correct variants still ran and verified.
Prints a table; exits 1 on any surprise.

usage: check-faults.py RESULTS_JSON
"""
import json
import sys

results = json.load(open(sys.argv[1]))
run = {v["name"]: v["runs"][0] for v in results["variants"]}
build = {v["name"]: v["build"] for v in results["variants"]}


def status(name):
    r = run[name]
    if r["failure"]:
        return f"failed at {r['failure']['stage']}: {r['failure']['message'][:70]}"
    check = r["check"] or {}
    return f"{check.get('status')} (first mismatch {check.get('first_mismatch_index')})"


expectations = {
    "good": lambda r: (r["check"] or {}).get("status") == "not-checked" and len(r["samples_ms"]) >= 20,
    "wrong": lambda r: (r["check"] or {}).get("status") == "failed" and r["check"]["first_mismatch_index"] == 1000,
    "partial": lambda r: (r["check"] or {}).get("status") == "failed" and r["check"]["first_mismatch_index"] == 1048575,
    "broken": lambda r: r["failure"] and r["failure"]["stage"] == "compile" and "identifier \"j\" is undefined" in build["broken"]["error"],
    "checked-by-fault": lambda r: (r["check"] or {}).get("status") == "not-checked"
    and "the reference `fault` could not run" in r["check"].get("reason", "")
    and len(r["samples_ms"]) >= 20,
    "fault": lambda r: r["failure"] and "ILLEGAL_ADDRESS" in r["failure"]["message"],
    "after-fault": lambda r: (r["check"] or {}).get("status") == "passed" and len(r["samples_ms"]) >= 20,
    "by-value": lambda r: r["failure"] and "parameter 1 of `copy_span` is 16 bytes wide" in r["failure"]["message"],
    "hang": lambda r: r["failure"] and "did not finish" in r["failure"]["message"],
    "after": lambda r: (r["check"] or {}).get("status") == "passed" and len(r["samples_ms"]) >= 20,
}
failures = 0
for name, expected in expectations.items():
    ok = bool(expected(run[name]))
    failures += not ok
    print(f"{'ok ' if ok else 'BAD'} {name:<8} {status(name)}")
sys.exit(1 if failures else 0)
