// compareWithReference: the compiled model's node outputs against the reference, value by value.
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "kiln/driver/compare.h"
#include "kiln/driver/context.h"
#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/reference.h"
#include "kiln/ir/reference_eval.h"
#include "kiln/support/error.h"

namespace kiln::driver {
namespace {

using ir::reference::Dims;
using ir::reference::fromNDArray;
using ir::reference::HostTensor;
using runtime::NDArray;

// The model value convert-layout's blocked tensor NAME holds: it names them "<value>_b" (or
// "<value>_b_<n>" when that name was taken). Empty when NAME is not of that form.
std::string blockedBase(const std::string& name) {
  size_t end = name.size();
  size_t digits = end;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  if (digits < end && digits > 0 && name[digits - 1] == '_') end = digits - 1;
  if (end >= 2 && name.compare(end - 2, 2, "_b") == 0) return name.substr(0, end - 2);
  return "";
}

// Element I (row-major over REF's shape) of the compiled tensor GOT, which is REF's shape, or
// REF's shape in NC[S..]c blocks ([N, ceil(C/b), S..., b]).
class KilnView {
 public:
  KilnView(HostTensor got, const runtime::Shape& ref, bool blocked)
      : got_(std::move(got)), ref_(ref), blocked_(blocked) {}
  double at(int64_t i) const {
    if (!blocked_) return got_.at(i);
    Dims idx = ir::reference::unravel(i, ref_);
    int64_t block = got_.shape.back(), c = idx[1];
    idx[1] = c / block;
    idx.push_back(c % block);
    return got_.at(ir::reference::ravel(idx, got_.shape));
  }

 private:
  HostTensor got_;
  runtime::Shape ref_;
  bool blocked_;
};

// GOT is REF's shape in channel blocks: [N, ceil(C/b), S..., b] for REF [N, C, S...].
bool isBlockedForm(const runtime::Shape& got, const runtime::Shape& ref) {
  if (ref.size() < 3 || got.size() != ref.size() + 1 || got.back() <= 0) return false;
  int64_t b = got.back();
  if (got[0] != ref[0] || got[1] != (ref[1] + b - 1) / b) return false;
  return std::equal(ref.begin() + 2, ref.end(), got.begin() + 2);
}

void measure(ValueComparison& cmp, const KilnView& kiln, const HostTensor& ref,
             const CompareOptions& options) {
  bool exact = !ref.dtype.isFloat() && ref.dtype.code != kDLBfloat;
  int64_t worst = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    double r = ref.at(i), k = kiln.at(i);
    if (std::isfinite(r)) cmp.scale = std::max(cmp.scale, std::fabs(r));
    double err;
    if (std::isnan(r) || std::isnan(k)) {
      err = std::isnan(r) && std::isnan(k) ? 0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(r) || std::isinf(k)) {
      err = r == k ? 0 : std::numeric_limits<double>::infinity();
    } else {
      err = std::fabs(k - r);
    }
    if (err > cmp.maxError || i == 0) {
      cmp.maxError = err;
      worst = i;
    }
  }
  cmp.tolerance = exact ? 0 : options.atol + options.rtol * cmp.scale;
  if (ref.numel() > 0) {
    cmp.worstIndex = ir::reference::unravel(worst, ref.shape);
    cmp.kilnValue = kiln.at(worst);
    cmp.referenceValue = ref.at(worst);
  }
}

std::string joinOps(const Json& ops) {
  std::string s;
  for (const Json& op : ops.asArray()) s += (s.empty() ? "" : "+") + op.asString();
  return s;
}

}  // namespace

std::unique_ptr<ir::Graph> importModel(const std::string& onnxPath, const CompileOptions& options) {
  frontend::onnx::ImportOptions importOptions;
  importOptions.inputShapes = options.inputShapes;
  importOptions.dimBounds = options.dimBounds;
  importOptions.ops = contextOf(options).ops();
  return frontend::onnx::importOnnx(onnxPath, importOptions);
}

const ValueComparison* CompareReport::firstDivergence() const {
  for (const ValueComparison& v : values) {
    if (!v.agrees()) return &v;
  }
  return nullptr;
}

CompareReport compareWithReference(const ir::Graph& model, const std::vector<NDArray>& inputs,
                                   const runtime::Module& executor, const CompareOptions& options) {
  std::map<std::string, NDArray> reference;
  for (size_t i = 0; i < inputs.size() && i < model.inputs().size(); ++i) {
    reference[model.inputs()[i]->name] = inputs[i];
  }
  ir::reference::evaluateGraph(model, inputs,
                               [&](const ir::Node& node, const std::vector<NDArray>& outs) {
                                 for (size_t j = 0; j < outs.size(); ++j) {
                                   reference[node.outputs[j]->name] = outs[j];
                                 }
                               });
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    executor["set_input"](model.inputs()[i]->name, inputs[i]);
  }
  Json rows = executor["profile"](int64_t{1}).asJson();
  CompareReport report;
  report.kernels = rows.size();
  for (size_t k = 0; k < rows.size(); ++k) {
    const Json& outputs = rows[k].at("outputs");
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (outputs[j].contains("count")) continue;  // a sequence or optional: never compared
      std::string name = outputs[j].at("name").asString();
      NDArray got =
          executor["get_node_output"](static_cast<int64_t>(k), static_cast<int64_t>(j)).asNDArray();
      auto it = reference.find(name);
      bool blocked = false;
      if (it == reference.end() || it->second.shape() != got.shape()) {
        auto base = reference.find(blockedBase(name));
        blocked = base != reference.end() && isBlockedForm(got.shape(), base->second.shape());
        it = blocked ? base : reference.end();
      }
      if (it == reference.end() || it->second.dtype() != got.dtype()) {
        report.unmatched.push_back(strCat(rows[k].at("name").asString(), ":", name));
        continue;
      }
      ValueComparison cmp;
      cmp.kernel = k;
      cmp.node = rows[k].at("name").asString();
      cmp.ops = joinOps(rows[k].at("ops"));
      cmp.value = it->first;
      cmp.type = ir::TensorType{got.dtype(), it->second.shape()}.str();
      cmp.unblocked = blocked;
      HostTensor ref = fromNDArray(it->second);
      measure(cmp, KilnView(fromNDArray(got), ref.shape, blocked), ref, options);
      report.values.push_back(std::move(cmp));
    }
  }
  return report;
}

}  // namespace kiln::driver
