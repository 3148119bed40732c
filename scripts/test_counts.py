#!/usr/bin/env python3
"""Counts the tests a CTest run passed, per label, against tests/expected_counts.json, so a test
that silently stopped running (a dependency missing, a test no longer registered, a skip) is seen.

    test_counts.py PRESET BUILD_DIR JUNIT_XML [--write]

PRESET names the run in the expectations (release, runtime-only, asan, tsan); BUILD_DIR is the
CTest folder and JUNIT_XML what `ctest --output-junit` wrote for the run. Prints one line per
label, `LABEL: N passed of M expected`, and a closing line. Exits 1 when any label's count differs
from its expectation (fewer: tests dropped out or were skipped; more: update the file with
--write), or when a test failed; a PRESET the file does not list yet is only reported. --write
records this run's counts as PRESET's expectations.
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                        "expected_counts.json")


def labels_of(build):
    listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True,
                             capture_output=True, text=True).stdout
    labels = {}
    for test in json.loads(listing)["tests"]:
        found = []
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                found = prop["value"]
        labels[test["name"]] = found or ["unlabelled"]
    return labels


def outcomes(junit):
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is not None or case.get("status") == "fail":
            result[case.get("name")] = "failed"
        elif case.find("skipped") is not None or case.get("status") in ("skipped", "notrun",
                                                                         "disabled"):
            result[case.get("name")] = "skipped"
        else:
            result[case.get("name")] = "passed"
    return result


def main():
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 3:
        sys.exit(__doc__)
    preset, build, junit = args
    labels, results = labels_of(build), outcomes(junit)
    passed, skipped, failed = {}, {}, {}
    for name, outcome in results.items():
        for label in labels.get(name, ["unlabelled"]):
            bucket = {"passed": passed, "skipped": skipped, "failed": failed}[outcome]
            bucket[label] = bucket.get(label, 0) + 1
    expected = json.load(open(EXPECTED)) if os.path.exists(EXPECTED) else {}
    if "--write" in sys.argv:
        expected[preset] = dict(sorted(passed.items()))
        with open(EXPECTED, "w") as f:
            json.dump(expected, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"test counts: wrote {preset}'s expectations to {os.path.normpath(EXPECTED)}")
        return 0
    if preset not in expected:
        for label in sorted(set(passed) | set(skipped) | set(failed)):
            print(f"  {label}: {passed.get(label, 0)} passed")
        print(f"test counts ({preset}): no expectations recorded for {preset} in "
              f"{os.path.normpath(EXPECTED)}; record this run's with --write")
        return 1 if failed else 0
    want = expected[preset]
    bad = []
    for label in sorted(set(want) | set(passed) | set(skipped) | set(failed)):
        got, exp = passed.get(label, 0), want.get(label, 0)
        extra = "".join(f", {n} {word}" for n, word in ((skipped.get(label, 0), "skipped"),
                                                         (failed.get(label, 0), "failed")) if n)
        mark = "" if got == exp else "   <-- expected " + str(exp)
        print(f"  {label}: {got} passed of {exp} expected{extra}{mark}")
        if got != exp:
            bad.append(label)
    total = sum(results[n] == "passed" for n in results)
    print(f"test counts ({preset}): {total} passed, "
          f"{sum(results[n] == 'failed' for n in results)} failed, "
          f"{sum(results[n] == 'skipped' for n in results)} skipped; "
          f"{'every label as expected' if not bad else 'labels off: ' + ', '.join(bad)}")
    if bad:
        print(f"test counts: update {os.path.normpath(EXPECTED)} with --write if the change is "
              "intended; otherwise a test dropped out")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
