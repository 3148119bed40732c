// Targets name what machine code is generated for; parsing validates them against LLVM's own tables
// so a typo fails at the command line, not deep inside code generation.
#include "kiln/codegen/llvm/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "kiln/support/error.h"
#include "llvm_targets.h"

namespace kiln::codegen {
namespace {

constexpr const char* kSyntax =
    "expected 'llvm' followed by any of -mtriple=TRIPLE, -mcpu=CPU, -mattr=+feature,-feature, "
    "-vector-bits=128|256|512";

std::unique_ptr<llvm::MCSubtargetInfo> subtargetInfo(const std::string& triple,
                                                     const std::string& cpu,
                                                     const std::string& features) {
  const llvm::Target& target = lookupLlvmTarget(triple);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target.createMCSubtargetInfo(triple, cpu, features));
  KILN_CHECK(sti != nullptr, "LLVM has no subtarget info for ", triple);
  return sti;
}

std::vector<std::string> splitList(const std::string& text, char sep) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// "avx2,-fma" -> "+avx2,-fma": LLVM wants an explicit sign on each feature.
std::string normalizeFeatures(const std::string& text) {
  std::string out;
  for (const std::string& f : splitList(text, ',')) {
    out += out.empty() ? "" : ",";
    if (f[0] != '+' && f[0] != '-') out += '+';
    out += f;
  }
  return out;
}

void validateCpu(const std::string& triple, const std::string& cpu) {
  if (cpu == "generic") return;
  auto sti = subtargetInfo(triple, "generic", "");
  if (sti->isCPUStringValid(cpu)) return;
  std::string known;
  for (const auto& kv : sti->getAllProcessorDescriptions()) {
    known += known.empty() ? "" : ", ";
    known += kv.Key;
  }
  throw Error(strCat("unknown CPU '", cpu, "' for target triple '", triple,
                     "'; expected one of: generic, ", known));
}

void validateFeatures(const std::string& triple, const std::string& features) {
  auto sti = subtargetInfo(triple, "generic", "");
  auto table = sti->getAllProcessorFeatures();
  for (const std::string& f : splitList(features, ',')) {
    std::string name = f.substr(1);
    bool known = std::any_of(table.begin(), table.end(),
                             [&](const llvm::SubtargetFeatureKV& kv) { return name == kv.Key; });
    if (!known) {
      throw Error(strCat("unknown CPU feature '", name, "' in -mattr for target triple '", triple,
                         "'; run `llc-19 -mtriple=", triple,
                         " -mattr=help` to list the accepted features"));
    }
  }
}

struct ParsedOptions {
  std::optional<std::string> triple, cpu, attr, vectorBits;
};

ParsedOptions parseOptions(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty() || words[0] != "llvm") {
    throw Error(strCat("invalid target '", text, "': ", kSyntax));
  }
  ParsedOptions opts;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    size_t eq = w.find('=');
    std::string key = w.substr(0, eq);
    std::optional<std::string>* slot = key == "-mtriple"       ? &opts.triple
                                       : key == "-mcpu"        ? &opts.cpu
                                       : key == "-mattr"       ? &opts.attr
                                       : key == "-vector-bits" ? &opts.vectorBits
                                                               : nullptr;
    if (slot == nullptr || eq == std::string::npos) {
      throw Error(strCat("invalid target option '", w, "' in '", text, "': ", kSyntax));
    }
    if (slot->has_value()) {
      throw Error(strCat("target option ", key, " given twice in '", text, "'"));
    }
    *slot = w.substr(eq + 1);
    if ((*slot)->empty() && key != "-mattr") {
      throw Error(strCat("target option ", key, " has an empty value in '", text, "'"));
    }
  }
  return opts;
}

}  // namespace

Target Target::host() {
  static const Target kHost = [] {
    initializeLlvmTargets();
    Target t;
    t.triple = llvm::Triple::normalize(llvm::sys::getDefaultTargetTriple());
    t.cpu = llvm::sys::getHostCPUName().str();
    std::vector<std::string> features;
    for (const auto& kv : llvm::sys::getHostCPUFeatures()) {
      std::string feature = kv.getValue() ? "+" : "-";
      features.push_back(feature += kv.getKey().str());
    }
    std::sort(features.begin(), features.end(),
              [](const std::string& a, const std::string& b) { return a.substr(1) < b.substr(1); });
    for (const std::string& f : features) {
      t.features += t.features.empty() ? "" : ",";
      t.features += f;
    }
    return t;
  }();
  return kHost;
}

Target Target::parse(const std::string& text) {
  ParsedOptions opts = parseOptions(text);
  const Target host = Target::host();
  Target t;
  t.triple = opts.triple ? llvm::Triple::normalize(*opts.triple) : host.triple;
  lookupLlvmTarget(t.triple);
  bool onHost = isHostTriple(t.triple);
  std::string attr = normalizeFeatures(opts.attr.value_or(""));
  if (opts.cpu) {
    t.cpu = *opts.cpu;
    t.features = attr;
  } else if (onHost) {
    // The host CPU with its detected features; explicit -mattr entries come last and so win.
    t.cpu = host.cpu;
    t.features = host.features + (attr.empty() || host.features.empty() ? "" : ",") + attr;
  } else {
    t.cpu = "generic";
    t.features = attr;
  }
  validateCpu(t.triple, t.cpu);
  validateFeatures(t.triple, attr);
  if (opts.vectorBits) {
    const std::string& v = *opts.vectorBits;
    int bits = v == "128" ? 128 : v == "256" ? 256 : v == "512" ? 512 : 0;
    if (bits == 0) {
      throw Error(strCat("invalid -vector-bits=", v, " in '", text, "'; expected 128, 256 or 512"));
    }
    int widest = t.vectorLanes() * 32;
    if (bits > widest) {
      throw Error(strCat("-vector-bits=", bits, " in '", text, "' is wider than the ", widest,
                         "-bit vectors the target's features allow"));
    }
    t.vectorBits = bits;
  }
  return t;
}

namespace {

// fp32 lanes of the widest vectors TRIPLE/CPU/FEATURES enable.
int widestLanes(const std::string& triple, const std::string& cpu, const std::string& features) {
  llvm::Triple tt(triple);
  auto sti = subtargetInfo(triple, cpu, features);
  if (tt.isX86()) {
    if (sti->checkFeatures("+avx512f")) return 16;
    if (sti->checkFeatures("+avx")) return 8;
    if (sti->checkFeatures("+sse")) return 4;
    // x86-64 always has SSE2 even when the subtarget tables do not say so.
    return tt.isArch64Bit() ? 4 : 1;
  }
  if (tt.isAArch64() || tt.isARM()) {
    return sti->checkFeatures("+neon") ? 4 : 1;
  }
  return 1;
}

}  // namespace

int Target::vectorLanes() const {
  int widest = widestLanes(triple, cpu, features);
  return vectorBits > 0 ? std::min(widest, vectorBits / 32) : widest;
}

std::string Target::isaName() const {
  llvm::Triple tt(triple);
  int lanes = vectorLanes();
  if (tt.isX86()) {
    if (lanes == 16) return "avx512";
    // 256-bit vectors with AVX-512's 32 registers (AVX-512VL).
    if (lanes == 8 && widestLanes(triple, cpu, features) == 16) return "avx512vl";
    if (lanes == 8) {
      return subtargetInfo(triple, cpu, features)->checkFeatures("+avx2") ? "avx2" : "avx";
    }
    return lanes == 4 ? "sse" : "scalar";
  }
  if ((tt.isAArch64() || tt.isARM()) && lanes == 4) return "neon";
  return "scalar";
}

int Target::vectorRegisters() const {
  llvm::Triple tt(triple);
  if (tt.isAArch64()) return 32;
  if (tt.isX86() && tt.isArch64Bit()) return widestLanes(triple, cpu, features) == 16 ? 32 : 16;
  if (tt.isX86()) return 8;
  return 16;
}

std::string Target::str() const {
  std::string s = strCat("llvm -mtriple=", triple, " -mcpu=", cpu);
  if (!features.empty()) s += " -mattr=" + features;
  if (vectorBits > 0) s += strCat(" -vector-bits=", vectorBits);
  return s;
}

Json Target::toJson() const {
  return Json(Json::Object{{"kind", Json("llvm")},
                           {"triple", Json(triple)},
                           {"cpu", Json(cpu)},
                           {"features", Json(features)},
                           {"vector_lanes", Json(vectorLanes())},
                           {"vector_bits", Json(vectorLanes() * 32)}});
}

}  // namespace kiln::codegen
