// Reads AOT executor metadata once per model. The offsets live in the generated code, so the
// metadata only has to say what the entry expects: its symbol, the workspace size and the
// tensors' names, shapes and dtypes.
#include "aot_plan.h"

#include <set>

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

std::vector<ParamSpec> readSpecs(const Json& meta, const char* key, std::string& where) {
  std::vector<ParamSpec> specs;
  std::set<std::string> names;
  const Json::Array& list = (where = key, meta.at(key).asArray());
  for (size_t i = 0; i < list.size(); ++i) {
    where = strCat(key, "[", i, "]");
    ParamSpec s;
    s.name = list[i].at("name").asString();
    for (const Json& d : list[i].at("shape").asArray()) s.shape.push_back(d.asInt());
    shapeNumel(s.shape);
    s.dtype = DataType::parse(list[i].at("dtype").asString());
    if (!names.insert(s.name).second) throw Error(strCat("duplicate name '", s.name, "'"));
    specs.push_back(std::move(s));
  }
  return specs;
}

}  // namespace

std::shared_ptr<const AotPlan> parseAotPlan(const Json& metadata,
                                            const std::shared_ptr<SharedLibrary>& library,
                                            const std::string& model) {
  auto plan = std::make_shared<AotPlan>();
  plan->model = model;
  plan->library = library;
  std::string where = "entry";
  try {
    plan->entrySymbol = metadata.at("entry").asString();
    where = "workspace_bytes";
    int64_t bytes = metadata.at("workspace_bytes").asInt();
    if (bytes < 0) throw Error(strCat("must be >= 0, got ", bytes));
    plan->workspaceBytes = static_cast<size_t>(bytes);
    plan->inputs = readSpecs(metadata, "inputs", where);
    plan->outputs = readSpecs(metadata, "outputs", where);
    plan->params = readSpecs(metadata, "params", where);
  } catch (const Error& e) {
    throw Error(
        strCat("model '", model, "': invalid aot executor metadata at '", where, "': ", e.what()));
  }
  plan->entry = reinterpret_cast<AotEntryFn>(library->findSymbol(plan->entrySymbol));
  if (!plan->entry) {
    throw Error(strCat("model '", model, "': the library does not define its entry function '",
                       plan->entrySymbol, "'"));
  }
  return plan;
}

}  // namespace kiln::runtime
