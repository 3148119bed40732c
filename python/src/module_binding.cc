// Modules, packed functions, devices and element types for Python, and load_module: the runtime's
// one calling convention, with the GIL released while a function runs.
#include "module_binding.h"

#include <pybind11/stl.h>

#include "convert.h"
#include "holders.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/thread_pool.h"
#include "kiln/support/error.h"

namespace kiln::python {

using namespace pybind11::literals;
using runtime::Module;
using runtime::PackedFunc;

namespace {

// F(ARGS) with the GIL released while it runs, so other Python threads run meanwhile; the
// arguments are made and let go of under the GIL.
py::object call(const PackedFunc& f, const py::args& args) {
  runtime::Args values = toArgs(args);
  runtime::Value result;
  {
    py::gil_scoped_release release;
    result = f.callPacked(values);
  }
  return fromValue(result);
}

void bindDevice(py::module_& m) {
  py::class_<runtime::Device>(m, "Device",
                              "A device: kiln runs on CPUs, cpu(0) here or on a device "
                              "reached through a session.")
      .def(py::init([](int id) { return runtime::Device::cpu(id); }), "id"_a = 0)
      .def_property_readonly(
          "device_type", [](const runtime::Device& d) { return static_cast<int>(d.type); },
          "DLPack's device type: 1 for the CPU.")
      .def_property_readonly(
          "device_id", [](const runtime::Device& d) { return d.id; }, "The device's number.")
      .def("__dlpack_device__",
           [](const runtime::Device& d) { return py::make_tuple(static_cast<int>(d.type), d.id); })
      .def(
          "__eq__", [](const runtime::Device& a, const runtime::Device& b) { return a == b; },
          py::is_operator())
      .def("__hash__",
           [](const runtime::Device& d) { return (static_cast<int64_t>(d.type) << 32) + d.id; })
      .def("__repr__", &runtime::Device::str);
  m.def(
      "cpu", [](int id) { return runtime::Device::cpu(id); }, "id"_a = 0,
      "The CPU device: what lib['default'](kiln.cpu()) creates an executor on.");

  py::class_<runtime::DataType>(m, "DataType", "An element type: 'float32', 'int64', 'bool', ...")
      .def(py::init([](py::handle name) { return dataTypeArg(name); }), "name"_a)
      .def_readonly("code", &runtime::DataType::code, "DLPack's type code (0 int, 1 uint, 2 float)")
      .def_readonly("bits", &runtime::DataType::bits, "Bits per lane.")
      .def_readonly("lanes", &runtime::DataType::lanes, "Lanes per element (1 for scalars).")
      .def("__eq__", [](const runtime::DataType& a, const runtime::DataType& b) { return a == b; })
      .def("__hash__", [](const runtime::DataType& t) { return std::hash<std::string>()(t.str()); })
      .def("__str__", &runtime::DataType::str)
      .def("__repr__",
           [](const runtime::DataType& t) { return strCat("DataType('", t.str(), "')"); });
}

void bindModule(py::module_& m) {
  py::class_<PackedFunc, GilFreeHolder<PackedFunc>>(
      m, "Function", "A packed function of a module; call it with Python values.")
      .def("__call__", &call)
      .def("__bool__", [](const PackedFunc& f) { return static_cast<bool>(f); });

  using Release = py::call_guard<py::gil_scoped_release>;  // a remote module asks its server
  py::class_<Module, GilFreeHolder<Module>>(m, "Module",
                                            "A runtime module: a library, a factory, an executor "
                                            "or a remote object, with functions by name.")
      .def_property_readonly("type_key",
                             [](const Module& mod) { return std::string(mod.typeKey()); })
      .def(
          "__getitem__", [](const Module& mod, const std::string& name) { return mod[name]; },
          Release())
      .def(
          "get_function",
          [](const Module& mod, const std::string& name, bool queryImports) -> py::object {
            PackedFunc f;
            {
              py::gil_scoped_release release;
              f = mod.getFunction(name, queryImports);
            }
            return f ? py::cast(f) : py::none();
          },
          "name"_a, "query_imports"_a = false)
      .def(
          "function_names", [](const Module& mod) { return mod.node()->functionNames(); },
          Release())
      .def(
          "__contains__",
          [](const Module& mod, const std::string& name) {
            return static_cast<bool>(mod.getFunction(name));
          },
          Release())
      .def("__repr__",
           [](const Module& mod) { return strCat("kiln.Module(", mod.typeKey(), ")"); });

  m.def(
      "load_module",
      [](const std::string& path, bool verifyChecksum, const std::vector<std::string>& extensions) {
        py::gil_scoped_release release;
        return runtime::loadModule(path,
                                   {.verifyChecksum = verifyChecksum, .extensions = extensions});
      },
      "path"_a, "verify_checksum"_a = true, "extensions"_a = std::vector<std::string>{});

  m.def(
      "set_num_threads",
      [](int n) {
        py::gil_scoped_release release;
        runtime::ThreadPool::global().setNumThreads(n);
      },
      "n"_a,
      "Sizes the runtime's worker pool: N threads (1 runs everything on the calling thread).");
  m.def(
      "num_threads", [] { return runtime::ThreadPool::global().numThreads(); },
      "The size of the runtime's worker pool (KILN_NUM_THREADS, else all cores).");
}

}  // namespace

void bindModules(py::module_& m) {
  bindDevice(m);
  bindModule(m);
}

}  // namespace kiln::python
