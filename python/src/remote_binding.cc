// Launchers and sessions for Python: devices prepared, servers started and code run there, with
// the GIL released while the network or the device works.
#include "remote_binding.h"

#include <pybind11/stl.h>

#include "convert.h"
#include "holders.h"
#include "kiln/remote/launcher.h"
#include "kiln/remote/session.h"
#include "kiln/runtime/rpc/tracker_client.h"

namespace kiln::python {

using namespace pybind11::literals;
using remote::Launcher;
using remote::Session;
using runtime::Module;

namespace {

runtime::rpc::ClientOptions clientOptions(const std::string& token, double callTimeoutSeconds) {
  runtime::rpc::ClientOptions o;
  o.token = token;
  o.callTimeout = runtime::rpc::Millis(static_cast<int64_t>(callTimeoutSeconds * 1000));
  return o;
}

GilFreeHolder<Launcher> makeLauncher(const std::string& device, const std::string& serverPath,
                                     const std::string& programDir, const std::string& qemuPath,
                                     const std::string& sysroot,
                                     const std::vector<std::string>& sshOptions,
                                     const std::string& token, double startTimeoutSeconds,
                                     double callTimeoutSeconds) {
  remote::LauncherOptions o;
  o.serverPath = serverPath;
  o.programDir = programDir;
  if (!qemuPath.empty()) o.qemuPath = qemuPath;
  if (!sysroot.empty()) o.sysroot = sysroot;
  o.sshOptions = sshOptions;
  o.client = clientOptions(token, callTimeoutSeconds);
  o.startTimeout = std::chrono::milliseconds(static_cast<int64_t>(startTimeoutSeconds * 1000));
  return GilFreeHolder<Launcher>(remote::makeLauncher(device, o).release());
}

void bindLauncher(py::module_& m) {
  py::class_<Launcher, GilFreeHolder<Launcher>>(m, "Launcher")
      .def_property_readonly("device_name", &Launcher::deviceName)
      .def("target", &Launcher::target, py::call_guard<py::gil_scoped_release>())
      .def("start", &Launcher::start, py::call_guard<py::gil_scoped_release>())
      .def("stop", &Launcher::stop, py::call_guard<py::gil_scoped_release>())
      .def(
          "create_session",
          [](Launcher& l) { return GilFreeHolder<Session>(l.createSession().release()); },
          py::call_guard<py::gil_scoped_release>(), py::keep_alive<0, 1>())
      .def("add_file", &Launcher::addFile, "local_path"_a);
  m.def("make_launcher", &makeLauncher, "device"_a, py::kw_only(), "server_path"_a = "",
        "program_dir"_a = "", "qemu_path"_a = "", "sysroot"_a = "",
        "ssh_options"_a = std::vector<std::string>{}, "token"_a = "", "start_timeout"_a = 20.0,
        "call_timeout"_a = 600.0);
}

void bindSession(py::module_& m) {
  using Release = py::call_guard<py::gil_scoped_release>;
  py::class_<Session, GilFreeHolder<Session>>(m, "Session")
      .def_property_readonly("device_name", &Session::deviceName)
      .def_property_readonly("closed", &Session::closed)
      .def("info",
           [](Session& s) {
             Json info;
             {
               py::gil_scoped_release release;
               info = s.info();
             }
             return fromJson(info);
           })
      .def("upload", &Session::upload, "local_path"_a, "remote_name"_a = "", Release())
      .def("load_module", &Session::loadModule, "remote_name"_a, Release())
      .def("empty", &Session::empty, "shape"_a, "dtype"_a, Release())
      .def(
          "copy_to_device",
          [](Session& s, const Module& tensor, py::handle source) {
            runtime::NDArray array = toNDArray(source, false);
            py::gil_scoped_release release;
            s.copyToDevice(tensor, array);
          },
          "tensor"_a, "source"_a)
      .def("copy_from_device", &Session::copyFromDevice, "tensor"_a, Release())
      .def("get_executor_from_factory",
           py::overload_cast<const Module&, const std::string&>(&Session::getExecutorFromFactory),
           "lib"_a, "model"_a = "default", Release())
      .def("get_executor_from_factory",
           py::overload_cast<const std::string&, const std::string&>(
               &Session::getExecutorFromFactory),
           "local_path"_a, "model"_a = "default", Release())
      .def("get_graph_executor", &Session::getGraphExecutor, "lib"_a, "model"_a = "default",
           Release())
      .def("get_aot_executor", &Session::getAotExecutor, "lib"_a, "model"_a = "default", Release())
      .def("get_debug_executor", &Session::getDebugExecutor, "lib"_a, "model"_a = "default",
           Release())
      .def(
          "time_evaluator",
          [](Session& s, const Module& mod, const std::string& name, const py::list& args,
             int repeat, int number) {
            runtime::Args values = toArgs(args);
            py::gil_scoped_release release;
            return s.timeEvaluator(mod, name, values, repeat, number);
          },
          "module"_a, "name"_a, "args"_a, "repeat"_a, "number"_a)
      .def("close", &Session::close, Release());

  m.def(
      "connect",
      [](const std::string& host, int port, const std::string& token, double callTimeout) {
        py::gil_scoped_release release;
        auto client = runtime::rpc::Client::connect(host, port, clientOptions(token, callTimeout));
        return GilFreeHolder<Session>(
            new Session(std::move(client), strCat("rpc ", host, ":", port)));
      },
      "host"_a, "port"_a, "token"_a = "", "call_timeout"_a = 600.0);
  m.def(
      "request_session",
      [](const std::string& tracker, const std::string& key, int priority, double timeout,
         const std::string& token, double callTimeout) {
        runtime::rpc::SessionRequest request;
        request.key = key;
        request.priority = priority;
        request.timeout = runtime::rpc::Millis(static_cast<int64_t>(timeout * 1000));
        request.client = clientOptions(token, callTimeout);
        runtime::rpc::HostPort at = runtime::rpc::parseHostPort(tracker, "tracker");
        py::gil_scoped_release release;
        return GilFreeHolder<Session>(new Session(runtime::rpc::requestSession(at, request), key));
      },
      "tracker"_a, "key"_a, "priority"_a = 0, "timeout"_a = 600.0, "token"_a = "",
      "call_timeout"_a = 600.0);
  m.def(
      "tracker_status",
      [](const std::string& tracker, const std::string& token) {
        runtime::rpc::HostPort at = runtime::rpc::parseHostPort(tracker, "tracker");
        Json status;
        {
          py::gil_scoped_release release;
          status = runtime::rpc::trackerStatus(at, token);
        }
        return fromJson(status);
      },
      "tracker"_a, "token"_a = "");
}

}  // namespace

void bindRemote(py::module_& m) {
  bindLauncher(m);
  bindSession(m);
}

}  // namespace kiln::python
