// Several models in one library, and their kernels: each model runs under its own name, and the
// kernels two models have in common are emitted once.
#include <gtest/gtest.h>

#include <set>

#include "kiln/driver/compile.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::Device;
using runtime::Module;

std::vector<std::string> kernelSymbols(const runtime::ArtifactModel& m) {
  std::vector<std::string> symbols;
  for (const Json& k : m.metadata.at("kernels").asArray())
    symbols.push_back(k.at("symbol").asString());
  return symbols;
}

std::vector<float> runMlp(const Module& lib, const std::string& name, const Mlp& m,
                          const std::vector<float>& x) {
  Module ex = lib[name](Device::cpu()).asModule();
  ex["set_input"](0, toArray(x, {m.batch, m.in}));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

TEST(Library, SeveralModelsRunUnderTheirNamesAndShareIdenticalKernels) {
  std::string dir = scratchDir();
  // a and b have the same shapes (so the same kernels) but different weights and value names;
  // c has other shapes.
  Mlp a = randomMlp(2, 32, 48, 8, 1), b = randomMlp(2, 32, 48, 8, 11),
      c = randomMlp(3, 16, 24, 5, 21);
  auto ga = buildMlp(a, "first_"), gb = buildMlp(b, "second_"), gc = buildMlp(c, "third_");
  std::string path = dir + "/three.so";
  driver::compileGraphs({{"a", ga.get()}, {"b", gb.get()}, {"c", gc.get()}}, path, {});

  Module lib = runtime::loadModule(path);
  Json names = lib["list_models"]().asJson();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0].asString(), "a");
  EXPECT_EQ(names[1].asString(), "b");
  EXPECT_EQ(names[2].asString(), "c");
  for (const auto& [name, m] :
       {std::pair<std::string, const Mlp*>{"a", &a}, {"b", &b}, {"c", &c}}) {
    std::vector<float> x = randomVector(static_cast<size_t>(m->batch * m->in), 5);
    EXPECT_LT(relativeError(runMlp(lib, name, *m, x), referenceMlp(*m, x)), 1e-5) << name;
  }

  runtime::ArtifactFile file = runtime::readArtifactFile(path);
  std::vector<std::string> sa = kernelSymbols(file.artifact.models[0]);
  std::vector<std::string> sb = kernelSymbols(file.artifact.models[1]);
  std::vector<std::string> sc = kernelSymbols(file.artifact.models[2]);
  EXPECT_EQ(sb, sa) << "b's kernels are a's: identical code is emitted once";
  for (const std::string& s : sc) EXPECT_EQ(s.rfind("kiln_c__", 0), 0u) << s;
  runtime::SharedLibrary so(path);
  for (const std::string& s : sa) EXPECT_NE(so.findSymbol(s), nullptr) << s;
  for (const std::string& s : sa) {
    std::string own = "kiln_b__" + s.substr(std::string("kiln_a__").size());
    EXPECT_EQ(so.findSymbol(own), nullptr) << own << " should not be emitted";
  }
}

// The system loader answers a path it has loaded with the library it loaded, even after another
// artifact was exported to that path; loadModule must load the new file all the same.
TEST(Library, AnArtifactExportedAgainToALoadedPathLoadsAsTheNewOne) {
  std::string dir = scratchDir();
  Mlp m1 = randomMlp(2, 16, 24, 4, 31), m2 = randomMlp(2, 16, 24, 4, 32);
  std::vector<float> x = randomVector(static_cast<size_t>(m1.batch * m1.in), 7);
  ASSERT_GT(relativeError(referenceMlp(m1, x), referenceMlp(m2, x)), 1e-2);
  std::string path = dir + "/model.so";
  driver::compileGraph(*buildMlp(m1, ""), path, {});
  Module first = runtime::loadModule(path);
  driver::compileGraph(*buildMlp(m2, ""), path, {});
  Module second = runtime::loadModule(path);
  EXPECT_LT(relativeError(runMlp(second, "default", m2, x), referenceMlp(m2, x)), 1e-5);
  EXPECT_LT(relativeError(runMlp(first, "default", m1, x), referenceMlp(m1, x)), 1e-5);
  // A third export while both are loaded, and loading the unchanged file again, both give the
  // file the path holds now.
  driver::compileGraph(*buildMlp(m1, ""), path, {});
  EXPECT_LT(relativeError(runMlp(runtime::loadModule(path), "default", m1, x), referenceMlp(m1, x)),
            1e-5);
  EXPECT_LT(relativeError(runMlp(runtime::loadModule(path), "default", m1, x), referenceMlp(m1, x)),
            1e-5);
}

TEST(Library, ModelNamesAreCheckedBeforeCompiling) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(1, 4, 4, 2, 3);
  auto g1 = buildMlp(m, "p_"), g2 = buildMlp(m, "q_");
  auto errorOf = [&](const std::vector<driver::NamedGraph>& models) {
    try {
      driver::compileGraphs(models, dir + "/x.so", {});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(errorOf({{"same", g1.get()}, {"same", g2.get()}}).find("given to two models"),
            std::string::npos);
  EXPECT_NE(errorOf({{"bad__name", g1.get()}}).find("is not valid"), std::string::npos);
  EXPECT_NE(errorOf({}).find("no model"), std::string::npos);
  driver::CompileOptions options;
  options.executor = "vm";
  std::string msg;
  try {
    driver::compileGraphs({{"m", g1.get()}}, dir + "/x.so", options);
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("--executor 'vm'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("graph"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln::test
