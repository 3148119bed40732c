// Runs the ONNX backend node tests (model.onnx + test_data_set_*/input_*.pb, output_*.pb) through
// kiln's compiler and runtime, and reports which pass, fail, or are rejected at compile time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>

#include "kiln/driver/compile.h"
#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"

namespace fs = std::filesystem;
using kiln::runtime::NDArray;

namespace {

// kRejected: compilation stopped with a kiln::Error (an unsupported op, a dynamic shape kiln
// cannot make static, ...); kFail: wrong outputs or an error after compiling; kInternal: an
// internal error (a kiln bug) anywhere.
enum class Outcome { kPass, kFail, kRejected, kInternal };

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  float mag;
  if (exp == 0)
    mag = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    mag = mant ? NAN : INFINITY;
  else
    mag = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -mag : mag;
}

float bfloatToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// numpy.testing.assert_allclose semantics, as the ONNX backend tests use (rtol 1e-3, atol 1e-7).
std::string compare(const NDArray& got, NDArray want) {
  // The test data stores bfloat16 expectations as their uint16 bit patterns.
  if (got.dtype() == kiln::runtime::DataType{kDLBfloat, 16, 1} &&
      want.dtype() == kiln::runtime::DataType{kDLUInt, 16, 1}) {
    want = want.view(want.shape(), got.dtype());
  }
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    return kiln::strCat("expected ", want.dtype().str(), kiln::runtime::shapeStr(want.shape()),
                        ", got ", got.dtype().str(), kiln::runtime::shapeStr(got.shape()));
  }
  auto value = [](const NDArray& a, int64_t i) -> double {
    kiln::runtime::DataType t = a.dtype();
    if (t == kiln::runtime::DataType::float32()) return a.data<float>()[i];
    if (t == kiln::runtime::DataType::float64()) return a.data<double>()[i];
    if (t == kiln::runtime::DataType::float16()) return halfToFloat(a.data<uint16_t>()[i]);
    if (t.code == kDLBfloat) return bfloatToFloat(a.data<uint16_t>()[i]);
    if (t == kiln::runtime::DataType::int64()) return static_cast<double>(a.data<int64_t>()[i]);
    if (t == kiln::runtime::DataType::int32()) return a.data<int32_t>()[i];
    if (t == kiln::runtime::DataType{kDLInt, 16, 1}) return a.data<int16_t>()[i];
    if (t == kiln::runtime::DataType{kDLUInt, 16, 1}) return a.data<uint16_t>()[i];
    if (t == kiln::runtime::DataType{kDLUInt, 32, 1}) return a.data<uint32_t>()[i];
    if (t == kiln::runtime::DataType{kDLUInt, 64, 1}) {
      return static_cast<double>(a.data<uint64_t>()[i]);
    }
    if (t.bits == 8 && t.isInt()) return a.data<int8_t>()[i];
    if (t.bits == 8) return a.data<uint8_t>()[i];
    throw kiln::Error("output type " + t.str() + " is not compared");
  };
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = value(got, i), w = value(want, i);
    bool ok = g == w || (std::isnan(g) && std::isnan(w)) ||
              std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w);
    if (!ok) return kiln::strCat("element ", i, ": expected ", w, ", got ", g);
  }
  return "";
}

std::string runDataSet(kiln::runtime::Module& ex, const fs::path& dataSet) {
  kiln::Json info = ex["get_input_info"]().asJson();
  for (int i = 0;; ++i) {
    fs::path in = dataSet / kiln::strCat("input_", i, ".pb");
    if (!fs::exists(in)) break;
    NDArray value = kiln::frontend::onnx::loadTensorProto(in.string());
    if (static_cast<size_t>(i) < info.size()) {
      auto want =
          kiln::runtime::DataType::parse(info[static_cast<size_t>(i)].at("dtype").asString());
      value = kiln::frontend::onnx::asInputType(value, want);
    }
    ex["set_input"](static_cast<int64_t>(i), value);
  }
  ex["run"]();
  for (int i = 0;; ++i) {
    fs::path out = dataSet / kiln::strCat("output_", i, ".pb");
    if (!fs::exists(out)) break;
    NDArray want = kiln::frontend::onnx::loadTensorProto(out.string());
    std::string diff = compare(ex["get_output"](static_cast<int64_t>(i)).asNDArray(), want);
    if (!diff.empty()) return kiln::strCat(dataSet.filename().string(), " output ", i, ": ", diff);
  }
  return "";
}

Outcome runTest(const fs::path& dir, const fs::path& work, std::string& detail) {
  fs::path so = work / (dir.filename().string() + ".so");
  try {
    kiln::driver::compileOnnxFile((dir / "model.onnx").string(), so.string(), {});
  } catch (const kiln::Error& e) {
    detail = e.what();
    return Outcome::kRejected;
  } catch (const std::exception& e) {
    detail = e.what();
    return Outcome::kInternal;
  }
  try {
    kiln::runtime::Module lib = kiln::runtime::loadModule(so.string());
    kiln::runtime::Module ex = lib["default"](kiln::runtime::Device::cpu()).asModule();
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
      detail = runDataSet(ex, entry.path());
      if (!detail.empty()) return Outcome::kFail;
    }
  } catch (const kiln::Error& e) {
    detail = e.what();
    return Outcome::kFail;
  } catch (const std::exception& e) {
    detail = e.what();
    return Outcome::kInternal;
  }
  fs::remove(so);
  return Outcome::kPass;
}

std::set<std::string> readList(const std::string& path) {
  std::set<std::string> names;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "/usr/share/libonnx-testdata/data/node", filter = ".*", expect, report;
  fs::path work = fs::temp_directory_path() / "kiln_conformance";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i], value = argv[i + 1];
    if (key == "--data")
      data = value;
    else if (key == "--filter")
      filter = value;
    else if (key == "--expect")
      expect = value;
    else if (key == "--work")
      work = value;
    else if (key == "--report")
      report = value;
  }
  fs::create_directories(work);
  std::vector<fs::path> tests;
  for (const auto& e : fs::directory_iterator(data)) {
    if (std::regex_search(e.path().filename().string(), std::regex(filter)))
      tests.push_back(e.path());
  }
  std::sort(tests.begin(), tests.end());
  std::set<std::string> expected = expect.empty() ? std::set<std::string>{} : readList(expect);
  int counts[4] = {0, 0, 0, 0}, regressions = 0;
  std::ofstream passList(report.empty() ? "/dev/null" : report);
  for (const fs::path& dir : tests) {
    std::string name = dir.filename().string(), detail;
    Outcome o = runTest(dir, work, detail);
    counts[static_cast<int>(o)]++;
    if (o == Outcome::kPass) passList << name << "\n";
    static const char* kLabel[] = {"PASS", "FAIL", "REJECTED", "INTERNAL"};
    if (o != Outcome::kPass)
      std::cout << kLabel[static_cast<int>(o)] << " " << name << ": " << detail << "\n";
    if (o != Outcome::kPass && expected.count(name)) {
      std::cout << "REGRESSION " << name << " (listed in " << expect << ")\n";
      regressions++;
    }
  }
  std::cout << "ONNX backend node tests: " << counts[0] << " passed, " << counts[1]
            << " wrong or failed at run time, " << counts[2] << " rejected at compile time, "
            << counts[3] << " internal errors, of " << tests.size() << "\n";
  if (!expect.empty()) std::cout << regressions << " regressions against " << expect << "\n";
  return regressions == 0 ? 0 : 1;
}
