// Weights as Python sees them: a dict of name -> kiln.NDArray, and the bytes of kiln's params
// format (what get_params returns and load_params takes), with paths the compiler writes beside
// a library.
#include "params_binding.h"

#include <pybind11/stl.h>

#include "convert.h"
#include "kiln/driver/compile.h"
#include "kiln/driver/static_header.h"
#include "kiln/runtime/artifact.h"

namespace kiln::python {

using namespace pybind11::literals;

void bindParams(py::module_& m) {
  m.def(
      "save_params",
      [](const py::dict& params) {
        runtime::ParamList list;
        for (auto [name, value] : params) {
          list.emplace_back(name.cast<std::string>(), toNDArray(value, false));
        }
        std::string bytes;
        {
          py::gil_scoped_release release;
          bytes = runtime::saveParams(list);
        }
        return py::bytes(bytes);
      },
      "params"_a, "The bytes of PARAMS (name -> tensor) in kiln's params format.");
  m.def(
      "load_params",
      [](const py::bytes& bytes) {
        std::string data = bytes;
        runtime::ParamList list;
        {
          py::gil_scoped_release release;
          list = runtime::loadParams(data);
        }
        py::dict params;
        for (auto& [name, array] : list) params[py::str(name)] = py::cast(array);
        return params;
      },
      "data"_a, "The tensors of params bytes (checked: format, bounds, checksum), by name.");
  m.def("params_path", &driver::paramsPath, "output"_a, "model"_a, "model_count"_a);
  m.def("static_header_path", &driver::staticHeaderPath, "output"_a);
}

}  // namespace kiln::python
