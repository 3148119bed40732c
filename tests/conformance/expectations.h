// The conformance gate's expectations: one line per ONNX backend node test, "NAME pass",
// "NAME rejected: REASON" or "NAME bad-data: REASON" (the test's data contradict its own model or
// the operator's definition in this ONNX release, so kiln's correct result differs from them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "run_test.h"

namespace kiln::conformance {

struct Expectation {
  std::string status;  // "pass", "rejected" or "bad-data"
  std::string reason;
};

// Throws kiln::Error naming PATH and the line for a missing file or a malformed line.
std::map<std::string, Expectation> readExpectations(const std::string& path);

// Writes an expectations file for RESULTS; OLD's bad-data reasons are kept for tests that still
// fail, and every other failure is written as bad-data with its detail, to be reviewed.
void writeExpectations(const std::string& path, const std::map<std::string, Result>& results,
                       const std::map<std::string, Expectation>& old);

// The gate: every way RESULTS break EXPECTED (a test that no longer passes, a wrong value or an
// internal error not expected, a changed test count, a test missing from the file) in FAILURES;
// tests that now do better than expected in IMPROVEMENTS.
void judge(const std::map<std::string, Result>& results,
           const std::map<std::string, Expectation>& expected, std::vector<std::string>& failures,
           std::vector<std::string>& improvements);

}  // namespace kiln::conformance
