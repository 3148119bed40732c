// Identical kernels are found by their printed loop IR with the name left out and the parameters
// named by position: the text holds every parameter's type and shape, every buffer, constant and
// loop, so equal text means equal code.
#include "kiln/driver/kernel_pool.h"

#include "kiln/tir/printer.h"

namespace kiln::driver {

void KernelPool::add(kernel::LoweredKernel& k) {
  std::string body = tir::printPrimFuncCanonical(k.func);
  auto [it, inserted] = symbolByBody_.emplace(std::move(body), k.func.name);
  if (inserted) {
    funcs_.push_back(k.func);
  } else {
    k.func.name = it->second;
    ++reused_;
  }
}

}  // namespace kiln::driver
