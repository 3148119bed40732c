// A program that links the runtime's core only, as a board running static-shape models would:
// loads the library ARGV[1], runs model "default" once on zero inputs (a dim sized at run time
// taken as 2) and prints "ran", then "ops library loaded: yes|no" from its own memory map. A
// failure prints the error and exits 1.
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "kiln/runtime/module.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/support/json.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: core_only_run LIBRARY.so\n";
    return 2;
  }
  try {
    using namespace kiln::runtime;
    Module ex = loadModule(argv[1])["default"](Device::cpu()).asModule();
    kiln::Json info = ex["get_input_info"]().asJson();
    for (size_t i = 0; i < info.size(); ++i) {
      Shape shape;
      for (const kiln::Json& d : info[i].at("shape").asArray()) {
        shape.push_back(d.asInt() < 0 ? 2 : d.asInt());
      }
      NDArray x = NDArray::empty(shape, DataType::parse(info[i].at("dtype").asString()));
      std::memset(x.data(), 0, x.dtype().bytes() * static_cast<size_t>(x.numel()));
      ex["set_input"](static_cast<int64_t>(i), x);
    }
    ex["run"]();
    std::cout << "ran\n";
  } catch (const std::exception& e) {
    std::cout << "error: " << e.what() << "\n";
    return 1;
  }
  std::ifstream maps("/proc/self/maps");
  bool ops = false;
  for (std::string line; std::getline(maps, line);) {
    ops = ops || line.find("libkiln_runtime_ops.so") != std::string::npos;
  }
  std::cout << "ops library loaded: " << (ops ? "yes" : "no") << "\n";
  return 0;
}
