// A C++ program that runs a kiln model through the installed runtime's module interface: loads
// LIB.so, creates model "default"'s executor on the CPU, feeds input 0 with X[i] = (i - N/2) / 10
// in the shape the model declares, runs it and checks output 0 against ReLU(X) (the model being
// ONNX's test_relu). Prints "ok" and exits 0, or says what differed and exits 1.
//
//   run_model_cpp LIB.so
#include <cstring>
#include <iostream>
#include <vector>

#include "kiln/runtime/module.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: run_model_cpp LIB.so\n";
    return 2;
  }
  using namespace kiln::runtime;
  try {
    Module lib = loadModule(argv[1]);
    Module executor = lib["default"](Device::cpu()).asModule();
    kiln::Json info = executor["get_input_info"]().asJson();
    Shape shape;
    for (const kiln::Json& d : info[0].at("shape").asArray()) shape.push_back(d.asInt());
    NDArray x = NDArray::empty(shape, DataType::float32());
    auto* xs = x.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      xs[i] = static_cast<float>(i - x.numel() / 2) / 10.0F;
    }
    executor["set_input"](0, x);
    executor["run"]();
    NDArray y = executor["get_output"](0).asNDArray();
    for (int64_t i = 0; i < x.numel(); ++i) {
      float want = xs[i] > 0 ? xs[i] : 0.0F;
      if (y.data<float>()[i] != want) {
        std::cerr << "run_model_cpp: y[" << i << "] is " << y.data<float>()[i] << "; expected "
                  << want << "\n";
        return 1;
      }
    }
  } catch (const kiln::Error& e) {
    std::cerr << "run_model_cpp: " << e.what() << "\n";
    return 1;
  }
  std::cout << "ok\n";
  return 0;
}
