// `kiln --config FILE.json` reads option files users write and share: any bytes must set options
// exactly as the command line would, or be a usage error naming the key, for every subcommand
// that takes one. Each command line ends in --help, which CLI11 acts on after reading the file and
// converting its values but before any subcommand runs: only the reading is fuzzed.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "extension_options.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string kPath = (std::filesystem::temp_directory_path() /
                                    ("kiln-config-fuzz-" + std::to_string(::getpid()) + ".json"))
                                       .string();
  std::ofstream(kPath, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  static const std::vector<std::vector<std::string>> kCommands = {
      {"compile", "m.onnx", "-o", "m.so"},
      {"run", "m.so"},
      {"inspect", "m.so"},
      {"compare", "m.onnx"},
      {"rpc", "server"},
      {"rpc", "tracker"},
      {"rpc", "status"},
      {"completion", "bash"}};
  for (const std::vector<std::string>& command : kCommands) {
    CLI::App app{"kiln"};
    kiln::cli::buildCommandLine(app, kiln::cli::loadContext({}));
    std::vector<std::string> args = {"kiln", "--config", kPath};
    args.insert(args.end(), command.begin(), command.end());
    args.emplace_back("--help");
    std::vector<const char*> argv;
    argv.reserve(args.size());
    for (const std::string& a : args) argv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError&) {
    } catch (const kiln::Error&) {
    }
  }
  return 0;
}
