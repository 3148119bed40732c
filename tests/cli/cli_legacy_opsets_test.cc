// Models of opsets 1 to 6 compile and run, read as opset 7: each of legacy_opset_models.py's
// models (one old form per op: broadcast with axis, consumed_inputs, PRelu's per-channel slope,
// Reshape's shape attribute, ...) gives what numpy computes from the old definition.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli_harness.h"
#include "kiln/support/error.h"
#include "npz.h"

namespace kiln::test {
namespace {

double maxDifference(const runtime::NDArray& got, const runtime::NDArray& want) {
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double g =
        got.dtype() == runtime::DataType::float64() ? got.data<double>()[i] : got.data<float>()[i];
    double w = want.dtype() == runtime::DataType::float64() ? want.data<double>()[i]
                                                            : want.data<float>()[i];
    worst = std::max(worst, std::abs(g - w) / std::max(1.0, std::abs(w)));
  }
  return worst;
}

class LegacyOpset : public testing::TestWithParam<const char*> {};

TEST_P(LegacyOpset, RunsAsTheOldDefinitionSays) {
  static const std::string kDir = [] {
    std::string d = scratchDir();
    CommandResult r = runShell(
        strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/cli/legacy_opset_models.py ", d));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return d;
  }();
  std::string name = GetParam(), base = kDir + "/" + name;
  CommandResult r = runKiln(strCat("compile ", base, ".onnx -o ", base, ".so"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("run ", base, ".so --inputs ", base, ".in.npz --outputs ", base, ".out.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  cli::NamedArrays got = cli::readNpz(base + ".out.npz"), want = cli::readNpz(base + ".want.npz");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].second.shape(), want[i].second.shape()) << want[i].first;
    EXPECT_EQ(got[i].second.dtype(), want[i].second.dtype()) << want[i].first;
    if (got[i].second.shape() == want[i].second.shape()) {
      EXPECT_LT(maxDifference(got[i].second, want[i].second), 1e-5) << want[i].first;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, LegacyOpset,
                         testing::Values("add_axis_1", "mul_axis_0", "sub_suffix", "pow_axis_1",
                                         "relu_sigmoid_consumed", "prelu_per_channel",
                                         "batch_norm_is_test", "reshape_attribute",
                                         "concat_default_axis", "cast_type_name", "pad_paddings",
                                         "tile_axis", "split_input", "upsample_scales",
                                         "gemm_broadcast"));

TEST(LegacyOpsetErrors, AnAxisOutsideTheFirstInputIsNamed) {
  std::string dir = scratchDir();
  CommandResult r = runShell(
      strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/cli/legacy_opset_models.py ", dir));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("compile ", dir, "/bad_axis.onnx -o ", dir, "/bad.so"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("(op 'Add', opset 6): axis 1 does not place B (rank 2) inside A "
                          "(rank 2); expected 0 <= axis <= 0"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace kiln::test
