// Weights: read in place from the loaded library (loading copies none of them), or kept in a
// separate params file that is loaded on request and refused when it belongs to another model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kiln/driver/compile.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::Device;
using runtime::Module;

std::vector<float> run(const Module& factory, const Mlp& m, const std::vector<float>& x) {
  Module ex = factory["create"](Device::cpu()).asModule();
  ex["set_input"](0, toArray(x, {m.batch, m.in}));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

TEST(Weights, LoadingALibraryCopiesNoWeights) {
  std::string dir = scratchDir();
  // 48 MiB of weights: far more than anything else loading touches.
  Mlp m = randomMlp(1, 2048, 4096, 512, 7);
  auto g = buildMlp(m, "");
  std::string path = dir + "/big.so";
  driver::compileGraph(*g, path, {});
  g.reset();
  int64_t weights = static_cast<int64_t>(m.w1.size() + m.w2.size() + m.b1.size()) * 4;
  int64_t before = residentBytes();
  Module lib = runtime::loadModule(path, {.verifyChecksum = false, .extensions = {}});
  Module factory = lib["get_factory"]("default").asModule();
  Module ex = factory["create"](Device::cpu()).asModule();
  int64_t loaded = residentBytes() - before;
  EXPECT_LT(loaded, weights / 8) << "loading grew resident memory by " << loaded << " bytes for "
                                 << weights << " bytes of weights";
  std::vector<float> x = randomVector(static_cast<size_t>(m.in), 2);
  EXPECT_LT(relativeError(run(factory, m, x), referenceMlp(m, x)), 1e-4);

  // Executors of one factory share its weights: four more, each run once, cost their working
  // memory (a few KiB here), not copies of the 40 MiB of weights.
  int64_t before4 = anonymousBytes();
  std::vector<Module> more;
  for (int i = 0; i < 4; ++i) {
    more.push_back(factory["create"](Device::cpu()).asModule());
    more.back()["set_input"](0, toArray(x, {1, m.in}));
    more.back()["run"]();
  }
  int64_t grew = anonymousBytes() - before4;
  EXPECT_LT(grew, weights / 8) << "four executors grew heap memory by " << grew << " bytes";
}

TEST(Weights, ExternalParamsLoadFromTheirFileAndGiveTheSameOutputs) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(2, 24, 40, 6, 3);
  auto g1 = buildMlp(m, ""), g2 = buildMlp(m, "");
  driver::compileGraph(*g1, dir + "/embedded.so", {});
  driver::CompileOptions external;
  external.params = "external";
  driver::compileGraph(*g2, dir + "/external.so", external);
  ASSERT_TRUE(std::filesystem::exists(dir + "/external.so.params"));
  EXPECT_LT(std::filesystem::file_size(dir + "/external.so"),
            std::filesystem::file_size(dir + "/embedded.so"));

  std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), 9);
  Module embedded = runtime::loadModule(dir + "/embedded.so")["get_factory"]("default").asModule();
  Module bare = runtime::loadModule(dir + "/external.so")["get_factory"]("default").asModule();
  std::string msg = errorOf([&] { run(bare, m, x); });
  EXPECT_NE(msg.find("parameters not loaded"), std::string::npos) << msg;
  Module loaded = bare["load_params_file"](dir + "/external.so.params").asModule();
  EXPECT_EQ(run(loaded, m, x), run(embedded, m, x));
  // get_params of the embedded factory is the same weights, loadable by bytes too.
  Module fromBytes = bare["load_params"](embedded["get_params"]()).asModule();
  EXPECT_EQ(run(fromBytes, m, x), run(embedded, m, x));
  // remove_params gives a factory without weights; the original keeps its own.
  msg = errorOf([&] { run(embedded["remove_params"]().asModule(), m, x); });
  EXPECT_NE(msg.find("parameters not loaded"), std::string::npos) << msg;
  EXPECT_LT(relativeError(run(embedded, m, x), referenceMlp(m, x)), 1e-5);
}

TEST(Weights, AParamsFileOfAnotherModelIsRefusedSayingWhy) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(1, 8, 16, 4, 3), same = randomMlp(1, 8, 16, 4, 99),
      other = randomMlp(1, 8, 12, 4, 3);
  driver::CompileOptions external;
  external.params = "external";
  auto compile = [&](const Mlp& mlp, const std::string& name) {
    auto g = buildMlp(mlp, "");
    driver::compileGraph(*g, dir + "/" + name + ".so", external);
    return dir + "/" + name + ".so.params";
  };
  std::string mine = compile(m, "mine"), sameShapes = compile(same, "same"),
              otherShapes = compile(other, "other");
  Module bare = runtime::loadModule(dir + "/mine.so")["get_factory"]("default").asModule();
  // Same names and shapes, other values: the checksum the library recorded tells them apart.
  std::string msg = errorOf([&] { bare["load_params_file"](sameShapes); });
  EXPECT_NE(msg.find("does not belong to model 'default'"), std::string::npos) << msg;
  msg = errorOf([&] {
    bare["load_params"](runtime::Bytes{[&] {
      std::ifstream in(otherShapes, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }()});
  });
  EXPECT_NE(msg.find("but the model expects"), std::string::npos) << msg;
  // A damaged copy of the right file.
  std::string damaged = dir + "/damaged.params";
  std::filesystem::copy_file(mine, damaged);
  {
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x55');
  }
  msg = errorOf([&] { bare["load_params_file"](damaged); });
  EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
  msg = errorOf([&] { bare["load_params_file"](dir + "/absent.params"); });
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_NO_THROW(bare["load_params_file"](mine));
}

}  // namespace
}  // namespace kiln::test
