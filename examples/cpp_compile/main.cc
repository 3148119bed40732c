// A C++ program that compiles an ONNX model with the installed compiler library and runs it:
// compiles MODEL.onnx (ONNX's test_relu) into OUT.so, stopping first after the fuse phase to show
// the graph kiln will lower, then to the library; loads it, feeds input 0 with
// X[i] = (i - N/2) / 10 and checks output 0 against ReLU(X). Prints "ok" and exits 0, or says
// what went wrong and exits 1.
//
//   compile_and_run MODEL.onnx OUT.so
#include <iostream>

#include "kiln/driver/compile.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/json.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: compile_and_run MODEL.onnx OUT.so\n";
    return 2;
  }
  using namespace kiln::runtime;
  try {
    kiln::driver::CompileOptions options;
    options.compileTo = kiln::driver::CompilePhase::kFuse;
    std::string irPath = std::string(argv[2]) + ".fuse.ir";
    kiln::driver::compileOnnxFile(argv[1], irPath, options);
    if (kiln::readTextFile(irPath).find("Relu") == std::string::npos) {
      std::cerr << "compile_and_run: the fused graph has no Relu\n";
      return 1;
    }
    options.compileTo = kiln::driver::CompilePhase::kLink;
    kiln::driver::CompileResult result = kiln::driver::compileOnnxFile(argv[1], argv[2], options);
    Module executor = loadModule(result.files.at(0).path)["default"](Device::cpu()).asModule();
    kiln::Json info = executor["get_input_info"]().asJson();
    Shape shape;
    for (const kiln::Json& d : info[0].at("shape").asArray()) shape.push_back(d.asInt());
    NDArray x = NDArray::empty(shape, DataType::float32());
    auto* xs = x.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) xs[i] = static_cast<float>(i - x.numel() / 2) / 10.0F;
    executor["set_input"](0, x);
    executor["run"]();
    NDArray y = executor["get_output"](0).asNDArray();
    for (int64_t i = 0; i < x.numel(); ++i) {
      float want = xs[i] > 0 ? xs[i] : 0.0F;
      if (y.data<float>()[i] != want) {
        std::cerr << "compile_and_run: y[" << i << "] is " << y.data<float>()[i] << "; expected "
                  << want << "\n";
        return 1;
      }
    }
  } catch (const kiln::Error& e) {
    std::cerr << "compile_and_run: " << e.what() << "\n";
    return 1;
  }
  std::cout << "ok\n";
  return 0;
}
