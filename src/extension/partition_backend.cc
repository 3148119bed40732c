// A loaded backend as the partition pass drives it: its predicates and its compile function are
// called through the C ABI, and read the matched nodes through KilnGraphApi, implemented here
// over kiln's graph.
#include <algorithm>
#include <deque>
#include <variant>

#include "kiln/extension/extensions.h"
#include "kiln/support/error.h"

namespace kiln::extension {
namespace {

// What one predicate or compile call may ask of kiln; KilnMatch::host points here.
struct CallState {
  const AttrValues* attrs = nullptr;
  const std::string* triple = nullptr;
  std::deque<std::string> strings;  // keeps returned text alive until the call ends
  transform::CompiledChain compiled;
  bool hasCode = false;
  std::string error;
};

// A KilnNode is an ir::Node.
const ir::Node& nodeOf(const KilnNode* n) { return *reinterpret_cast<const ir::Node*>(n); }
CallState& stateOf(const KilnMatch* m) { return *static_cast<CallState*>(m->host); }

// The CallState of the match being served, for the accessors that get a node only.
thread_local CallState* tCurrent = nullptr;

const char* keep(std::string text) {
  tCurrent->strings.push_back(std::move(text));
  return tCurrent->strings.back().c_str();
}

int32_t tensorInfo(const ir::Value* v, KilnTensorInfo* out) {
  out->dtype = keep(v->type.dtype.str());
  out->rank = v->type.rank();
  out->shape = v->type.shape.data();
  out->data = v->isConstant() ? v->constant->data() : nullptr;
  return 0;
}

int32_t input(const KilnNode* n, int32_t k, KilnTensorInfo* out) {
  const ir::Node& node = nodeOf(n);
  if (k < 0 || static_cast<size_t>(k) >= node.inputs.size()) return -1;
  const ir::Value* v = node.inputs[static_cast<size_t>(k)];
  return v == nullptr ? 1 : tensorInfo(v, out);
}

int32_t output(const KilnNode* n, int32_t k, KilnTensorInfo* out) {
  const ir::Node& node = nodeOf(n);
  if (k < 0 || static_cast<size_t>(k) >= node.outputs.size()) return -1;
  return tensorInfo(node.outputs[static_cast<size_t>(k)], out);
}

// 1 when absent, -1 when not a T, else 0 with *OUT pointing at the value.
template <typename T>
int32_t attrOf(const KilnNode* n, const char* name, const T** out) {
  const auto& all = nodeOf(n).attrs.all();
  auto it = all.find(name != nullptr ? name : "");
  if (it == all.end()) return 1;
  *out = std::get_if<T>(&it->second);
  return *out == nullptr ? -1 : 0;
}

int32_t attrInt(const KilnNode* n, const char* name, int64_t* out) {
  const int64_t* v = nullptr;
  int32_t status = attrOf(n, name, &v);
  if (status == 0) *out = *v;
  return status;
}

int32_t attrFloat(const KilnNode* n, const char* name, double* out) {
  const double* v = nullptr;
  int32_t status = attrOf(n, name, &v);
  if (status == 0) *out = *v;
  return status;
}

int32_t attrInts(const KilnNode* n, const char* name, const int64_t** values, int32_t* count) {
  const std::vector<int64_t>* v = nullptr;
  int32_t status = attrOf(n, name, &v);
  if (status == 0) {
    *values = v->data();
    *count = static_cast<int32_t>(v->size());
  }
  return status;
}

int32_t attrString(const KilnNode* n, const char* name, const char** out) {
  const std::string* v = nullptr;
  int32_t status = attrOf(n, name, &v);
  if (status == 0) *out = v->c_str();
  return status;
}

const char* targetAttr(const KilnMatch* m, const char* name) {
  const AttrValues& values = *stateOf(m).attrs;
  auto it = values.find(name != nullptr ? name : "");
  return it == values.end() ? nullptr : it->second.c_str();
}

void setPayload(const KilnMatch* m, const void* data, uint64_t size) {
  CallState& s = stateOf(m);
  s.compiled = {std::string(static_cast<const char*>(data), size), ""};
  s.hasCode = true;
}

void setObject(const KilnMatch* m, const void* object, uint64_t size, const char* entry) {
  CallState& s = stateOf(m);
  s.compiled = {std::string(static_cast<const char*>(object), size), entry != nullptr ? entry : ""};
  s.hasCode = true;
  if (s.compiled.entry.empty()) s.error = "set_object was given no entry function name";
}

void setError(const KilnMatch* m, const char* message) {
  stateOf(m).error = message != nullptr ? message : "(no message)";
}

const KilnGraphApi kGraphApi = {
    [](const KilnNode* n) { return nodeOf(n).op.c_str(); },
    [](const KilnNode* n) { return nodeOf(n).name.c_str(); },
    [](const KilnNode* n) { return static_cast<int32_t>(nodeOf(n).inputs.size()); },
    [](const KilnNode* n) { return static_cast<int32_t>(nodeOf(n).outputs.size()); },
    input,
    output,
    attrInt,
    attrFloat,
    attrInts,
    attrString,
    targetAttr,
    setPayload,
    setError,
    setObject,
    [](const KilnMatch* m) { return stateOf(m).triple->c_str(); },
};

// Calls FN with MATCH in its C form; the state of the call is STATE.
template <typename Fn>
int32_t callWith(const transform::ChainMatch& match, CallState& state, Fn fn) {
  std::vector<const KilnNode*> nodes;
  nodes.reserve(match.nodes.size());
  for (const ir::Node* n : match.nodes) nodes.push_back(reinterpret_cast<const KilnNode*>(n));
  KilnMatch m{&kGraphApi,
              nodes.data(),
              static_cast<uint32_t>(nodes.size()),
              match.pattern.c_str(),
              match.argIndex.data(),
              static_cast<uint32_t>(match.args.size()),
              &state};
  CallState* outer = tCurrent;
  tCurrent = &state;
  int32_t status = fn(&m);
  tCurrent = outer;
  return status;
}

AttrValues resolveAttrs(const Backend& backend, const AttrValues& given) {
  AttrValues out;
  for (const TargetAttr& a : backend.attrs) out[a.name] = a.defaultValue;
  for (const auto& entry : given) {
    const std::string& name = entry.first;
    auto it = std::find_if(backend.attrs.begin(), backend.attrs.end(),
                           [&name](const TargetAttr& a) { return a.name == name; });
    if (it == backend.attrs.end()) {
      std::string known;
      for (const TargetAttr& a : backend.attrs) known += (known.empty() ? "" : ", ") + a.name;
      throw Error(strCat("backend '", backend.name, "' has no target attribute '", name,
                         "'; it has: ", known.empty() ? "none" : known));
    }
    out[name] = checkAttrValue(*it, entry.second, backend.optionName(*it));
  }
  return out;
}

}  // namespace

transform::PartitionBackend partitionBackend(const Backend& backend, const AttrValues& values,
                                             const std::string& triple) {
  auto attrs = std::make_shared<const AttrValues>(resolveAttrs(backend, values));
  auto target = std::make_shared<const std::string>(triple);
  transform::PartitionBackend out;
  out.name = backend.name;
  for (const Pattern& p : backend.patterns) {
    transform::PartitionPattern pattern{p.name, p.chain, {}};
    if (p.predicate != nullptr) {
      pattern.accept = [attrs, target, predicate = p.predicate,
                        user = backend.userData](const transform::ChainMatch& match) {
        CallState state;
        state.attrs = attrs.get();
        state.triple = target.get();
        return callWith(match, state, [&](const KilnMatch* m) { return predicate(user, m); }) != 0;
      };
    }
    out.patterns.push_back(std::move(pattern));
  }
  out.compile = [attrs, target, compile = backend.compile,
                 user = backend.userData](const transform::ChainMatch& match) {
    CallState state;
    state.attrs = attrs.get();
    state.triple = target.get();
    int32_t status = callWith(match, state, [&](const KilnMatch* m) { return compile(user, m); });
    if (status != 0 || !state.error.empty()) {
      throw Error(state.error.empty() ? strCat("its compile function returned ", status)
                                      : state.error);
    }
    if (!state.hasCode) throw Error("its compile function set neither a payload nor an object");
    return state.compiled;
  };
  return out;
}

}  // namespace kiln::extension
