// Object files and linker logs are intermediate: each build gets its own directory, so parallel
// builds (tuning) never collide, and nothing is left behind.
#include "temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::codegen {

TempDir::TempDir() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "kiln-codegen-XXXXXX").string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    throw Error(strCat("cannot create a temporary directory in '", base.string(),
                       "': ", std::strerror(errno)));
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace kiln::codegen
