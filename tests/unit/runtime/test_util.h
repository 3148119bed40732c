// Helpers shared by the runtime tests: scratch directories, C compilation, error capture.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "kiln/runtime/artifact_file.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::runtime::test {

// The message of the kiln::Error F throws, or "<no error>".
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A directory under the system temp dir, removed with its contents on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    path_ =
        std::filesystem::temp_directory_path() / ("kiln_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    makeDirectories(path_.string());
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Compiles C SOURCE into the shared library OUT with the system C compiler and seals it with the
// checksum trailer, as kiln compile does; returns the error output on failure, empty on success.
inline std::string compileSharedLibrary(const std::string& source, const std::string& out) {
  std::string src = out + ".c";
  std::string log = out + ".log";
  writeFileAtomic(src, source);
  std::string cmd = "cc -shared -fPIC -O1 -I\"" KILN_SOURCE_DIR "/include\" -o \"" + out + "\" \"" +
                    src + "\" > \"" + log + "\" 2>&1";
  if (std::system(cmd.c_str()) == 0) {
    sealArtifactFile(out);
    return "";
  }
  return "compile failed: " + cmd + "\n" + readTextFile(log);
}

}  // namespace kiln::runtime::test
