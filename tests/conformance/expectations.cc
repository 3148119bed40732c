// Reading, writing and judging the conformance expectations.
#include "expectations.h"

#include <algorithm>
#include <fstream>

#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::conformance {
namespace {

// A rejection's reason as the file keeps it: the message's first line up to the list of
// supported ops, cut after 240 bytes.
std::string shortReason(const std::string& detail) {
  std::string r = detail.substr(0, std::min(detail.find("; supported ops:"), detail.find('\n')));
  return r.size() > 240 ? r.substr(0, 240) + "..." : r;
}

// Whether a refusal's DETAIL is the one the expectations file records as REASON: the message
// holds it (the command line may say more around the library's message).
bool sameReason(const std::string& detail, const std::string& reason) {
  std::string core = reason;
  if (core.size() > 3 && core.compare(core.size() - 3, 3, "...") == 0) core.resize(core.size() - 3);
  return !core.empty() && detail.find(core) != std::string::npos;
}

}  // namespace

std::map<std::string, Expectation> readExpectations(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw Error(strCat("the expectations file '", path,
                       "' is missing; write one with conformance_runner --write-expect"));
  }
  std::map<std::string, Expectation> out;
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.find(' ');
    std::string name = line.substr(0, space);
    std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    Expectation e;
    size_t colon = rest.find(':');
    e.status = rest.substr(0, colon);
    if (colon != std::string::npos) {
      e.reason = rest.substr(colon + 1);
      e.reason.erase(0, e.reason.find_first_not_of(' '));
    }
    bool ok = (e.status == "pass" && colon == std::string::npos) ||
              ((e.status == "rejected" || e.status == "bad-data") && !e.reason.empty());
    if (!ok || !out.emplace(name, e).second) {
      throw Error(strCat(path, ":", lineNo, ": '", line,
                         "' is not 'NAME pass', 'NAME rejected: REASON' or 'NAME bad-data: "
                         "REASON', or names a test twice"));
    }
  }
  return out;
}

void writeExpectations(const std::string& path, const std::map<std::string, Result>& results,
                       const std::map<std::string, Expectation>& old) {
  std::string text =
      "# kiln's expected result for every ONNX backend test of one folder of Debian's\n"
      "# libonnx-testdata (node/ in expected.txt, the others in expected_<folder>.txt).\n"
      "# NAME pass | NAME rejected: REASON | NAME bad-data: REASON (the test's data contradict\n"
      "# its model or the operator's definition, so kiln's correct result differs from them).\n"
      "# Checked by conformance_runner in CI; rewrite with its --write-expect and review.\n";
  for (const auto& [name, r] : results) {
    text += name;
    if (r.outcome == Outcome::kPass) {
      text += " pass\n";
    } else if (r.outcome == Outcome::kRejected ||
               (r.outcome == Outcome::kFailed && old.count(name) != 0 &&
                old.at(name).status == "rejected")) {
      text += " rejected: " + shortReason(r.detail) + "\n";
    } else {
      auto it = old.find(name);
      bool kept = it != old.end() && it->second.status == "bad-data";
      text += " bad-data: " + (kept ? it->second.reason : "REVIEW " + shortReason(r.detail)) + "\n";
    }
  }
  writeFileAtomic(path, text);
}

void judge(const std::map<std::string, Result>& results,
           const std::map<std::string, Expectation>& expected, std::vector<std::string>& failures,
           std::vector<std::string>& improvements) {
  if (results.size() != expected.size()) {
    failures.push_back(
        strCat(results.size(), " tests found; the expectations list ", expected.size()));
  }
  for (const auto& [name, r] : results) {
    auto it = expected.find(name);
    std::string got = strCat(outcomeName(r.outcome), ": ", r.detail);
    if (it == expected.end()) {
      failures.push_back(strCat(name, " is not in the expectations (", got, ")"));
      continue;
    }
    const std::string& want = it->second.status;
    bool refused = r.outcome == Outcome::kRejected || r.outcome == Outcome::kFailed;
    if (r.outcome == Outcome::kInternal) {
      failures.push_back(strCat(name, ": internal error: ", r.detail));
    } else if (want == "pass" && r.outcome != Outcome::kPass) {
      failures.push_back(strCat(name, " no longer passes (", got, ")"));
    } else if (want == "rejected" && refused && !sameReason(r.detail, it->second.reason)) {
      failures.push_back(strCat(name, " is refused for another reason than recorded (got '",
                                shortReason(r.detail), "', recorded '", it->second.reason, "')"));
    } else if (want == "rejected" && r.outcome == Outcome::kWrong) {
      failures.push_back(strCat(name, " computes a wrong value (", r.detail, ")"));
    } else if (want == "bad-data" && r.outcome == Outcome::kRejected) {
      failures.push_back(strCat(name, " is now rejected (", r.detail, ")"));
    } else if (want != "pass" && r.outcome == Outcome::kPass) {
      improvements.push_back(strCat(name, " now passes (expected ", want, ")"));
    }
  }
}

}  // namespace kiln::conformance
