// How `kiln compare` prints its report: text for people, JSON for scripts.
#pragma once

#include <string>

#include "kiln/driver/compare.h"
#include "kiln/support/json.h"

namespace kiln::cli {

// The summary, the first divergence (or the closest call when all agree) and, with ALL, a table
// of every compared output.
std::string formatCompare(const driver::CompareReport& report,
                          const driver::CompareOptions& options, bool all);
// {"kernels", "compared", "unmatched", "rtol", "atol", "agree", "first_divergence" (an entry or
// null), "values": [{"kernel", "node", "ops", "value", "type", "unblocked", "max_error", "scale",
// "tolerance", "worst_index", "kiln", "reference", "agrees"}]}.
Json compareJson(const driver::CompareReport& report, const driver::CompareOptions& options);

}  // namespace kiln::cli
