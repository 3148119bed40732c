// One ONNX backend node test through kiln: compile its model.onnx, run every test_data_set_* and
// compare the outputs with numpy's assert_allclose tolerances (rtol 1e-3, atol 1e-7), integers
// and booleans exactly.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kiln::conformance {

// kRejected: compiling stopped with a kiln::Error (an op, type or form kiln does not support);
// kWrong: an output differs; kFailed: running stopped with a kiln::Error (a value kiln refuses);
// kInternal: an internal error, any other exception, a crash or a signal (a kiln bug).
enum class Outcome { kPass, kWrong, kRejected, kFailed, kInternal };
inline constexpr int kOutcomes = 5;
const char* outcomeName(Outcome o);  // "pass", "wrong", "rejected", "failed", "internal"

struct Result {
  Outcome outcome = Outcome::kPass;
  std::string detail;  // the error, or the first mismatch and the largest error
};

// Runs the test in DIR, compiling into WORK.
Result runTest(const std::filesystem::path& dir, const std::filesystem::path& work);

// The same test with test_data_set_0's inputs bound as constants, so that every node's shapes
// are inferred, and the node folded or compiled, at compile time: for a model with an op whose
// rules src/opdef holds (opdef::ruleOps()) it shows the rule gives at compile time what runTest
// shows it gives at run time. nullopt for a model without such an op or with non-tensor inputs.
std::optional<Result> runTestWithConstantInputs(const std::filesystem::path& dir,
                                                const std::filesystem::path& work);

// The same through the command line KILN: `kiln compile model.onnx -o m.so`, then per data set
// `kiln run m.so --inputs test_data_set_N --outputs DIR`, comparing DIR's output_K.pb. The exit
// status says the outcome (docs/cli.md): a compile that exits 3 is kRejected, a run that exits 4
// kFailed, and exit 5, any other status or a signal kInternal; the detail is the command's error.
Result runTestCli(const std::filesystem::path& dir, const std::filesystem::path& work,
                  const std::string& kiln);

}  // namespace kiln::conformance
