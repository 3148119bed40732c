// Composite targets: --target "vanilla,dnnl,llvm -mcpu=..." names the offload backends that
// partition the model, in order, before kiln's own code generator (llvm) compiles the rest.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kiln/driver/pipeline.h"

namespace kiln::driver {

class CompileContext;

struct CompositeTarget {
  std::vector<std::string> backends;  // in the order named; "llvm" excluded
  std::string codegen;                // what codegen::Target::parse reads ("" = the host)
};

// Splits TEXT's first word at commas: every name before "llvm" is a backend; "llvm" must come
// last when present ("vanilla" alone means "vanilla,llvm"). Throws kiln::Error for an empty
// name, a repeated one or a name after "llvm".
CompositeTarget splitTarget(const std::string& text);

// Backend attribute values, by backend, then attribute name (--target-<backend>-<attr>).
using BackendAttrs = std::map<std::string, std::map<std::string, std::string>>;

// The partition steps of BACKENDS, loaded in CONTEXT, with ATTRS, compiling for TRIPLE. Throws
// kiln::Error when a backend is not loaded (listing those that are), when ATTRS names a backend
// --target does not name, or for an unknown attribute, a wrong value or an unknown pass.
std::vector<OffloadStep> offloadSteps(const CompileContext& context,
                                      const std::vector<std::string>& backends,
                                      const BackendAttrs& attrs, const std::string& triple);

}  // namespace kiln::driver
