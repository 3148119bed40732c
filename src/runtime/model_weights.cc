// Weights are the bulk of an artifact: they are read where they lie (the library's read-only
// mapping or a mapped params file), never copied, and checked by name, shape and dtype before an
// executor sees them.
#include "model_weights.h"

#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/mapped_file.h"

namespace kiln::runtime {
namespace {

std::string specNames(const std::vector<ParamSpec>& specs) {
  std::string s;
  for (size_t i = 0; i < specs.size() && i < 32; ++i) s += (i ? ", " : "") + specs[i].name;
  if (specs.size() > 32) s += strCat(", ... (", specs.size(), " in all)");
  return s.empty() ? "none" : s;
}

}  // namespace

ParamList embeddedWeights(const std::shared_ptr<SharedLibrary>& library,
                          const ArtifactModel& model) {
  if (model.externalParams) return {};
  ParamSource source;
  source.origin = strCat("the weights of model '", model.name, "'");
  source.owner = library;
  // The artifact file's checksum covers these bytes; hashing them again would touch every page.
  source.verifyChecksum = false;
  return readParams(model.params.data(), model.params.size(), source);
}

ParamList weightsFile(const std::string& path, const std::string& model,
                      uint64_t expectedChecksum) {
  if (!fileExists(path)) throw Error(strCat("weights file '", path, "' does not exist"));
  auto file = std::make_shared<const MappedFile>(path);
  uint64_t recorded = paramsChecksum(file->data(), file->size());
  ParamSource source;
  source.origin = strCat("weights file '", path, "'");
  source.owner = file;
  ParamList list = readParams(file->data(), file->size(), source);
  if (expectedChecksum != 0 && recorded != expectedChecksum) {
    throw Error(strCat("weights file '", path, "' does not belong to model '", model,
                       "': its checksum is ", recorded,
                       " but the model was compiled with weights "
                       "of checksum ",
                       expectedChecksum,
                       " (kiln inspect shows it); use the .params file written with this library"));
  }
  return list;
}

std::vector<NDArray> bindParams(const std::vector<ParamSpec>& specs, const ParamList& list,
                                const std::string& model, const char* function) {
  std::vector<NDArray> params(specs.size());
  for (const auto& [name, array] : list) {
    size_t p = 0;
    while (p < specs.size() && specs[p].name != name) ++p;
    if (p == specs.size()) {
      throw Error(strCat(function, ": model '", model, "' has no parameter named '", name,
                         "' (its parameters are: ", specNames(specs), ")"));
    }
    if (array.shape() != specs[p].shape || array.dtype() != specs[p].dtype) {
      throw Error(strCat(function, ": model '", model, "': weight '", name, "' is ",
                         describe(array.shape(), array.dtype()), " but the model expects ",
                         describe(specs[p].shape, specs[p].dtype)));
    }
    params[p] = array;
  }
  return params;
}

}  // namespace kiln::runtime
