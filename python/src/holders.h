// Holders for the bound objects whose destruction may wait (a remote module's handle freed over
// the network, a session ending its server, a launcher stopping its servers): they let go of the
// GIL while they do, so other Python threads are not frozen behind a network round trip.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

namespace kiln::python {

template <typename T>
struct ReleaseGilDelete {
  void operator()(T* p) const {
    std::optional<pybind11::gil_scoped_release> release;
    if (PyGILState_Check() != 0) release.emplace();
    delete p;
  }
};

template <typename T>
using GilFreeHolder = std::unique_ptr<T, ReleaseGilDelete<T>>;

}  // namespace kiln::python
