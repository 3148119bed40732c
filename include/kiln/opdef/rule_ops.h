// The ops whose rules src/opdef holds, for the tests that run every rule both ways.
#pragma once

#include <set>
#include <string>

namespace kiln::opdef {

// ONNX op types whose shape and value rules live in src/opdef (and nowhere else).
const std::set<std::string>& ruleOps();

}  // namespace kiln::opdef
