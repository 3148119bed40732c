// The rewrite of each op whose definition changed before opset 7, in one table: ONNX's schema
// registry says which ops changed between the model's opset and 7, and an op that changed with no
// rule here is refused by name rather than read in the wrong form.
#include "legacy_opsets.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "kiln/support/error.h"

namespace kiln::frontend::onnx {
namespace {

using ::onnx::AttributeProto;
using ::onnx::NodeProto;

const AttributeProto* findAttr(const NodeProto& node, const std::string& name) {
  for (const AttributeProto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

void removeAttr(NodeProto& node, const std::string& name) {
  auto* attrs = node.mutable_attribute();
  attrs->erase(std::remove_if(attrs->begin(), attrs->end(),
                              [&](const AttributeProto& a) { return a.name() == name; }),
               attrs->end());
}

AttributeProto& setAttr(NodeProto& node, const std::string& name, AttributeProto::AttributeType t) {
  removeAttr(node, name);
  AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(t);
  return *a;
}

void setInts(NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  AttributeProto& a = setAttr(node, name, AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
}

// One node being rewritten: the node in its new form and the nodes that must come before it.
struct Rewrite {
  NodeProto node;
  std::vector<NodeProto> before;
  const LegacyContext& context;

  const ir::Value& input(int i) const {
    const ir::Value* v =
        node.input_size() > i && !node.input(i).empty() ? context.value(node.input(i)) : nullptr;
    if (v == nullptr) {
      throw Error(strCat(context.label, " has no input ", i, ", which its opset-", context.opset,
                         " form needs"));
    }
    return *v;
  }

  int64_t rankOf(int i) const {
    const ir::TensorType& t = input(i).type;
    if (!t.isTensor() || t.unranked) {
      throw Error(strCat(context.label, ": input ", i, " is ", t.str(), "; expected a tensor"));
    }
    return static_cast<int64_t>(t.shape.size());
  }

  // Input I's constant value as integers; refuses a value known only at run time.
  std::vector<int64_t> constantInts(int i, const char* what) const {
    const ir::Value& v = input(i);
    if (!v.isConstant()) {
      throw Error(strCat(context.label, ": ", what, " (input ", i, " '", v.name,
                         "') is computed at run time; kiln reads the opset-", context.opset,
                         " form of '", node.op_type(), "' with a constant ", what, " only"));
    }
    std::vector<int64_t> out;
    const runtime::NDArray& a = *v.constant;
    for (int64_t k = 0; k < a.numel(); ++k) {
      out.push_back(a.dtype() == runtime::DataType::int32() ? a.data<int32_t>()[k]
                                                            : a.data<int64_t>()[k]);
    }
    return out;
  }

  // Makes input I have AXES added (Unsqueeze, opset 1's attribute form).
  void unsqueezeInput(int i, const std::vector<int64_t>& axes) {
    NodeProto u;
    u.set_op_type("Unsqueeze");
    u.set_name(context.freshName(strCat(node.input(i), "_unsqueezed")));
    u.add_input(node.input(i));
    u.add_output(u.name());
    setInts(u, "axes", axes);
    node.set_input(i, u.name());
    before.push_back(std::move(u));
  }

  // Makes input I (appended when I is past the last) a constant int64 tensor of VALUES.
  void constantInput(int i, const std::vector<int64_t>& values) {
    NodeProto c;
    c.set_op_type("Constant");
    c.set_name(context.freshName(strCat(node.name().empty() ? node.op_type() : node.name(), "_",
                                        i == 1 ? "shape" : "input")));
    c.add_output(c.name());
    AttributeProto& a = setAttr(c, "value", AttributeProto::TENSOR);
    ::onnx::TensorProto* t = a.mutable_t();
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    while (node.input_size() <= i) node.add_input("");
    node.set_input(i, c.name());
    before.push_back(std::move(c));
  }
};

// Add, Mul, ... with `broadcast`=1 and `axis`: B's dims line up with A's from AXIS on, which numpy
// broadcasting (opset 7) gives once B has ones appended up to A's rank.
void binaryBroadcast(Rewrite& r) {
  const AttributeProto* broadcast = findAttr(r.node, "broadcast");
  const AttributeProto* axis = findAttr(r.node, "axis");
  bool aligned = broadcast != nullptr && broadcast->i() == 1 && axis != nullptr;
  const int64_t given = aligned ? axis->i() : 0;
  removeAttr(r.node, "broadcast");  // BROADCAST and AXIS point into the node: read them first
  removeAttr(r.node, "axis");
  if (!aligned) return;
  int64_t rankA = r.rankOf(0), rankB = r.rankOf(1);
  int64_t at = given < 0 ? given + rankA : given;
  if (at < 0 || at + rankB > rankA) {
    throw Error(strCat(r.context.label, ": axis ", given, " does not place B (rank ", rankB,
                       ") inside A (rank ", rankA, "); expected 0 <= axis <= ", rankA - rankB));
  }
  std::vector<int64_t> trailing;
  for (int64_t d = rankB; d < rankA - at; ++d) trailing.push_back(d);
  if (!trailing.empty()) r.unsqueezeInput(1, trailing);
}

// Before opset 7 a 1-D slope of C values applies per channel (dim 1) of an N-D input.
void preluSlope(Rewrite& r) {
  int64_t rankX = r.rankOf(0);
  const ir::TensorType& slope = r.input(1).type;
  const ir::TensorType& x = r.input(0).type;
  if (rankX < 3 || slope.shape.size() != 1 || slope.shape[0] <= 1 || x.shape[1] != slope.shape[0]) {
    return;
  }
  std::vector<int64_t> axes;
  for (int64_t d = 1; d < rankX - 1; ++d) axes.push_back(d);
  r.unsqueezeInput(1, axes);
}

void reshapeShapeAttribute(Rewrite& r) {
  const AttributeProto* shape = findAttr(r.node, "shape");
  if (shape == nullptr) return;  // the shape already comes as input 1
  std::vector<int64_t> dims(shape->ints().begin(), shape->ints().end());
  removeAttr(r.node, "shape");
  r.constantInput(1, dims);
}

void concatDefaultAxis(Rewrite& r) {
  if (findAttr(r.node, "axis") == nullptr) setAttr(r.node, "axis", AttributeProto::INT).set_i(1);
}

void castTypeName(Rewrite& r) {
  const AttributeProto* to = findAttr(r.node, "to");
  if (to == nullptr || to->type() != AttributeProto::STRING) return;
  ::onnx::TensorProto::DataType type{};
  std::string name = to->s();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (!::onnx::TensorProto::DataType_Parse(name, &type)) {
    throw Error(strCat(r.context.label, ": 'to' is \"", to->s(),
                       "\"; expected an ONNX data type name such as \"FLOAT\" or \"INT64\""));
  }
  setAttr(r.node, "to", AttributeProto::INT).set_i(type);
}

void padPaddings(Rewrite& r) {
  const AttributeProto* paddings = findAttr(r.node, "paddings");
  if (paddings == nullptr) return;
  std::vector<int64_t> pads(paddings->ints().begin(), paddings->ints().end());
  removeAttr(r.node, "paddings");
  setInts(r.node, "pads", pads);
}

void splitInput(Rewrite& r) {
  if (r.node.input_size() < 2 || r.node.input(1).empty()) return;
  std::vector<int64_t> split = r.constantInts(1, "split");
  r.node.mutable_input()->RemoveLast();
  setInts(r.node, "split", split);
}

// Tile-1 repeats its input TILES times along AXIS; Tile-6 takes a repeat count per dim.
void tileAxis(Rewrite& r) {
  if (r.node.input_size() != 3) return;
  int64_t tiles = r.constantInts(1, "tiles").at(0);
  int64_t axis = r.constantInts(2, "axis").at(0);
  int64_t rank = r.rankOf(0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    throw Error(strCat(r.context.label, ": axis ", axis, " is outside the input's rank ", rank));
  }
  std::vector<int64_t> repeats(static_cast<size_t>(rank), 1);
  repeats[static_cast<size_t>(axis)] = tiles;
  r.node.mutable_input()->RemoveLast();
  r.constantInput(1, repeats);
}

// Upsample-1 scales the last two dims by height_scale and width_scale.
void upsampleScales(Rewrite& r) {
  const AttributeProto* h = findAttr(r.node, "height_scale");
  const AttributeProto* w = findAttr(r.node, "width_scale");
  if (h == nullptr || w == nullptr) {
    throw Error(strCat(r.context.label, " needs height_scale and width_scale (opset ",
                       r.context.opset, "'s Upsample)"));
  }
  AttributeProto scales;
  scales.set_name("scales");
  scales.set_type(AttributeProto::FLOATS);
  for (float s : {1.0F, 1.0F, h->f(), w->f()}) scales.add_floats(s);
  removeAttr(r.node, "height_scale");
  removeAttr(r.node, "width_scale");
  *r.node.add_attribute() = scales;
  const AttributeProto* mode = findAttr(r.node, "mode");
  if (mode != nullptr && mode->s() == "bilinear") {
    setAttr(r.node, "mode", AttributeProto::STRING).set_s("linear");
  }
}

void lpPoolIntegerP(Rewrite& r) {
  const AttributeProto* p = findAttr(r.node, "p");
  if (p == nullptr || p->type() != AttributeProto::FLOAT) return;
  auto value = static_cast<int64_t>(p->f());  // P points into the node: read it first
  setAttr(r.node, "p", AttributeProto::INT).set_i(value);
}

void dropAttr(Rewrite& r, const char* name) { removeAttr(r.node, name); }

// Every op whose definition changed before opset 7, with what turns its old form into the new.
// Every rewrite also drops `consumed_inputs`, an in-place hint with no effect on results.
const std::map<std::string, void (*)(Rewrite&)>& rules() {
  static const std::map<std::string, void (*)(Rewrite&)> kRules = [] {
    std::map<std::string, void (*)(Rewrite&)> m;
    for (const char* op :
         {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"}) {
      m[op] = binaryBroadcast;
    }
    // Only consumed_inputs went (opset 6); AveragePool gained count_include_pad, default 0.
    for (const char* op : {"Abs",       "Ceil",       "Clip",        "Elu",
                           "Exp",       "Floor",      "HardSigmoid", "InstanceNormalization",
                           "LeakyRelu", "Log",        "Max",         "Mean",
                           "Min",       "Neg",        "Reciprocal",  "Relu",
                           "Selu",      "Sigmoid",    "Sqrt",        "Sum",
                           "Tanh",      "AveragePool"}) {
      m[op] = [](Rewrite&) {};
    }
    m["Gemm"] = [](Rewrite& r) { dropAttr(r, "broadcast"); };  // C broadcasts either way
    m["BatchNormalization"] = [](Rewrite& r) { dropAttr(r, "is_test"); };
    m["Dropout"] = [](Rewrite& r) { dropAttr(r, "is_test"); };
    for (const char* op : {"LSTM", "GRU", "RNN"}) {
      m[op] = [](Rewrite& r) { dropAttr(r, "output_sequence"); };
    }
    m["PRelu"] = preluSlope;
    m["Reshape"] = reshapeShapeAttribute;
    m["Concat"] = concatDefaultAxis;
    m["Cast"] = castTypeName;
    m["Pad"] = padPaddings;
    m["Split"] = splitInput;
    m["Tile"] = tileAxis;
    m["Upsample"] = upsampleScales;
    m["LpPool"] = lpPoolIntegerP;
    m["GlobalLpPool"] = lpPoolIntegerP;
    return m;
  }();
  return kRules;
}

// Whether OP's definition at OPSET differs from its opset-7 one.
bool changedBefore7(const std::string& op, int64_t opset) {
  const ::onnx::OpSchema* old = ::onnx::OpSchemaRegistry::Schema(op, static_cast<int>(opset));
  const ::onnx::OpSchema* now =
      ::onnx::OpSchemaRegistry::Schema(op, static_cast<int>(kLegacyTargetOpset));
  return old != nullptr && (now == nullptr || old->since_version() != now->since_version());
}

std::string ruleList() {
  std::string out;
  for (const auto& [op, rule] : rules()) out += strCat(out.empty() ? "" : ", ", op);
  return out;
}

}  // namespace

std::optional<std::vector<NodeProto>> upgradeLegacyNode(const NodeProto& node,
                                                        const LegacyContext& context) {
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  if (!defaultDomain || !changedBefore7(node.op_type(), context.opset)) return std::nullopt;
  auto rule = rules().find(node.op_type());
  if (rule == rules().end()) {
    throw Error(strCat(context.label, " is defined differently before opset ", kLegacyTargetOpset,
                       ", and kiln has no rule to read its opset-", context.opset,
                       " form; the ops kiln reads in their forms before opset ", kLegacyTargetOpset,
                       " are ", ruleList()));
  }
  Rewrite r{node, {}, context};
  removeAttr(r.node, "consumed_inputs");
  rule->second(r);
  r.before.push_back(std::move(r.node));
  return std::move(r.before);
}

}  // namespace kiln::frontend::onnx
