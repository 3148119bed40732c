// Single layers against the machine's FMA peak: ResNet-50's 3x3 convolutions at 56x56 and 7x7, a
// stride-2 1x1 downsample, a 3x3 depthwise convolution at 112x112, and GEMMs of 197x192x768 and
// 128x256x1024. Each layer is compiled alone in the form the compiler gives it inside a network
// (blocked layout, packed weights), so the time is the kernel's, with no layout change around it.
// Usage: kiln_layer_bench [--threads 1,2] [--repeat N] [--json] [--keep DIR] [--schedule FILE]
//                         [--target TARGET]
// --keep DIR leaves the compiled layers (layerN.so) in DIR, for profilers and disassemblers;
// --schedule FILE compiles them with a schedule file, as `kiln compile --schedule` does;
// --target TARGET with a target (e.g. "llvm -vector-bits=256"), as `kiln compile --target`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fma_chains.h"
#include "kiln/codegen/llvm/target.h"
#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/thread_pool.h"
#include "kiln/support/error.h"

namespace {

using kiln::strCat;

struct Layer {
  std::string name;
  std::string graph;  // IR text
  double flops;
};

// The layers in channels and columns; B is the block (the target's vector lanes), so each layer
// is in the blocked form the compiler gives it for that target.
std::string conv(int64_t b, int64_t ic, int64_t oc, int64_t h, int64_t w, int64_t k, int64_t stride,
                 int64_t pad) {
  int64_t icb = ic / b, ocb = oc / b;
  return strCat(
      "graph main(%x: float32[1,", icb, ",", h, ",", w, ",", b, "]) {\n", "  %w = const float32[",
      ocb, ",", icb, ",", k, ",", k, ",", b, ",", b, "] random(seed=1)\n", "  %b = const float32[",
      oc, "] random(seed=2)\n", "  %y = kiln.ConvBlocked(%x, %w, %b) {block=", b, ", channels=", oc,
      ", in_channels=", ic, ", kernel_shape=[", k, ",", k, "], strides=[", stride, ",", stride,
      "], pads=[", pad, ",", pad, ",", pad, ",", pad, "]}\n", "  %r = Relu(%y)\n  return %r\n}\n");
}

// The stem of ResNet: a 7x7 stride-2 conv reading the NCHW image (3 channels) directly.
std::string stem(int64_t b) {
  return strCat("graph main(%x: float32[1,3,224,224]) {\n", "  %w = const float32[", 64 / b,
                ",3,7,7,", b, "] random(seed=1)\n", "  %b = const float32[64] random(seed=2)\n",
                "  %y = kiln.ConvBlocked(%x, %w, %b) {block=", b,
                ", channels=64, in_channels=3, input_layout=\"plain\", kernel_shape=[7,7], "
                "strides=[2,2], pads=[3,3,3,3]}\n",
                "  %r = Relu(%y)\n  return %r\n}\n");
}

std::string depthwise(int64_t b, int64_t c, int64_t h, int64_t w) {
  return strCat(
      "graph main(%x: float32[1,", c / b, ",", h, ",", w, ",", b, "]) {\n", "  %w = const float32[",
      c / b, ",3,3,", b, "] random(seed=1)\n", "  %b = const float32[", c, "] random(seed=2)\n",
      "  %y = kiln.ConvBlocked(%x, %w, %b) {block=", b, ", channels=", c, ", in_channels=", c,
      ", group=", c, ", kernel_shape=[3,3], strides=[1,1], pads=[1,1,1,1]}\n",
      "  %r = Clip(%y) {min=0.0, max=6.0}\n  return %r\n}\n");
}

std::string gemm(int64_t b, int64_t m, int64_t k, int64_t n) {
  return strCat("graph main(%a: float32[", m, ",", k, "]) {\n", "  %b = const float32[",
                (n + b - 1) / b, ",", k, ",", b, "] random(seed=1)\n",
                "  %y = kiln.MatMulPacked(%a, %b) {block=", b, ", n=", n, "}\n  return %y\n}\n");
}

std::vector<Layer> layers(int64_t b) {
  auto convFlops = [](double oc, double ic, double oh, double ow, double k) {
    return 2 * oc * ic * oh * ow * k * k;
  };
  return {
      {"conv 3x3 64->64 at 56x56", conv(b, 64, 64, 56, 56, 3, 1, 1), convFlops(64, 64, 56, 56, 3)},
      {"conv 3x3 512->512 at 7x7", conv(b, 512, 512, 7, 7, 3, 1, 1), convFlops(512, 512, 7, 7, 3)},
      {"conv 1x1 256->512 stride 2, 56x56->28x28", conv(b, 256, 512, 56, 56, 1, 2, 0),
       convFlops(512, 256, 28, 28, 1)},
      {"depthwise 3x3 32 ch at 112x112", depthwise(b, 32, 112, 112), 2.0 * 32 * 112 * 112 * 9},
      {"stem conv 7x7 3->64 stride 2, 224->112", stem(b), convFlops(64, 3, 112, 112, 7)},
      {"gemm 197x192x768", gemm(b, 197, 192, 768), 2.0 * 197 * 192 * 768},
      {"gemm 128x256x1024", gemm(b, 128, 256, 1024), 2.0 * 128 * 256 * 1024},
  };
}

// Median seconds of one run() of LIB's model over REPEAT runs after a warm-up.
double timeRuns(kiln::runtime::Module& lib, int repeat) {
  using kiln::runtime::Module;
  Module ex = lib["default"](kiln::runtime::Device::cpu()).asModule();
  int64_t inputs = ex["get_num_inputs"]().asInt();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < inputs; ++i) {
    kiln::runtime::NDArray like = ex["get_input"](i).asNDArray();
    kiln::runtime::NDArray x = kiln::runtime::NDArray::empty(like.shape(), like.dtype());
    for (int64_t j = 0; j < x.numel(); ++j) x.data<float>()[j] = dist(rng);
    ex["set_input"](i, x);
  }
  for (int i = 0; i < 5; ++i) ex["run"]();
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    ex["run"]();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<int> parseThreads(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    int t = std::atoi(item.c_str());
    if (t < 1) throw kiln::Error(strCat("--threads '", text, "': expected counts >= 1"));
    out.push_back(t);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads = {1, 2};
  int repeat = 200;
  bool json = false;
  std::string keep;
  kiln::driver::CompileOptions options;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--threads" && i + 1 < argc) {
        threads = parseThreads(argv[++i]);
      } else if (a == "--repeat" && i + 1 < argc) {
        repeat = std::max(1, std::atoi(argv[++i]));
      } else if (a == "--json") {
        json = true;
      } else if (a == "--keep" && i + 1 < argc) {
        keep = argv[++i];
      } else if (a == "--target" && i + 1 < argc) {
        options.target = argv[++i];
      } else if (a == "--schedule" && i + 1 < argc) {
        options.schedulePath = argv[++i];
      } else {
        std::fprintf(stderr,
                     "usage: kiln_layer_bench [--threads 1,2] [--repeat N] [--json] [--keep DIR] "
                     "[--schedule FILE] [--target TARGET]\n");
        return 2;
      }
    }
    std::filesystem::path dir = !keep.empty() ? std::filesystem::path(keep)
                                              : std::filesystem::temp_directory_path() /
                                                    strCat("kiln_layer_bench_", getpid());
    std::filesystem::create_directories(dir);
    std::vector<kiln::runtime::Module> libs;
    kiln::codegen::Target target = options.target.empty()
                                       ? kiln::codegen::Target::host()
                                       : kiln::codegen::Target::parse(options.target);
    std::vector<Layer> all = layers(std::max(1, target.vectorLanes()));
    for (size_t i = 0; i < all.size(); ++i) {
      std::string path = (dir / strCat("layer", i, ".so")).string();
      std::unique_ptr<kiln::ir::Graph> g = kiln::ir::parseGraph(all[i].graph);
      kiln::driver::compileGraph(*g, path, options);
      libs.push_back(kiln::runtime::loadModule(path));
    }
    if (keep.empty()) std::filesystem::remove_all(dir);
    for (int t : threads) {
      double peak = kiln::bench::measurePeak(t, 0.5);
      kiln::runtime::ThreadPool::global().setNumThreads(t);
      if (!json) {
        std::printf("%d thread(s), FMA peak %.1f GFLOP/s (%s)\n", t, peak,
                    kiln::bench::detectIsa().name);
      }
      for (size_t i = 0; i < all.size(); ++i) {
        double s = timeRuns(libs[i], repeat);
        double gflops = all[i].flops / s / 1e9;
        if (json) {
          std::printf(
              "{\"layer\": \"%s\", \"threads\": %d, \"ms\": %.4f, \"gflops\": %.1f, "
              "\"peak_gflops\": %.1f, \"peak_fraction\": %.3f}\n",
              all[i].name.c_str(), t, s * 1e3, gflops, peak, gflops / peak);
        } else {
          std::printf("  %-42s %8.3f ms %8.1f GFLOP/s %6.1f%% of peak\n", all[i].name.c_str(),
                      s * 1e3, gflops, 100 * gflops / peak);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_layer_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
