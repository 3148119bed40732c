// The extension module kiln._kiln: the bindings, in the order their types depend on each other.
// The Python package (python/kiln) is the public API over it.
#include <pybind11/pybind11.h>

#include "compile_binding.h"
#include "errors.h"
#include "generate_binding.h"
#include "kiln/extension/extension_api.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/c_api.h"
#include "module_binding.h"
#include "ndarray_binding.h"
#include "params_binding.h"
#include "remote_binding.h"
#include "timing_binding.h"

PYBIND11_MODULE(_kiln, m) {
  namespace kp = kiln::python;
  m.doc() = "kiln's C++ library, bound for Python; use the kiln package, not this module.";
  kp::bindErrors(m);
  kp::bindModules(m);
  kp::bindNDArray(m);
  kp::bindParams(m);
  kp::bindCompile(m);
  kp::bindRemote(m);
  kp::bindTiming(m);
  kp::bindGenerate(m);
  m.attr("version") = KILN_VERSION;
  m.attr("producer") = kiln::runtime::producerVersion();
  m.attr("artifact_format_version") = kiln::runtime::kArtifactFormatVersion;
  m.attr("abi_version") = KILN_ABI_VERSION;  // of every C interface (kiln/runtime/c_abi.h)
}
