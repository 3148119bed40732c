// Interrupted compiles and runs used to leave tens of megabytes of objects in /tmp and half
// written files beside their outputs; every temporary path is tracked here so that normal exits,
// errors, signals and even a later process (after kill -9) remove it.
#include "kiln/support/temp_path.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "kiln/support/error.h"

namespace kiln {
namespace {

// The signal handler may not allocate or lock, so live paths sit in fixed slots it can read.
constexpr int kSlots = 64;
constexpr size_t kMaxPath = 4096;
enum SlotState : int { kFree = 0, kClaimed = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kMaxPath] = {};
};
std::array<Slot, kSlots> gSlots;

int registerPath(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (gSlots[i].state.compare_exchange_strong(expected, kClaimed)) {
      std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
      gSlots[i].state.store(kLive);
      return i;
    }
  }
  return -1;  // more than kSlots at once: still removed by the destructor, not by a signal
}

void unregisterPath(int slot) {
  if (slot >= 0) gSlots[slot].state.store(kFree);
}

// Async-signal-safe removal of a file or of a folder of files (kiln's temporary folders hold no
// subfolders): only system calls, no allocation.
void removeInSignal(const char* path) {
  if (::unlink(path) == 0 || errno == ENOENT) return;
  int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  alignas(8) char buf[4096];
  for (;;) {
    long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      unsigned short reclen;
      std::memcpy(&reclen, buf + at + 16, sizeof reclen);
      const char* name = buf + at + 19;
      if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) ::unlinkat(dir, name, 0);
      at += reclen;
    }
  }
  ::close(dir);
  ::rmdir(path);
}

void onSignal(int sig) {
  for (Slot& s : gSlots) {
    if (s.state.load() == kLive) removeInSignal(s.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

bool processIsGone(long pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

// Removes DIR's entries named PREFIX<pid>SEPARATOR... whose process no longer exists.
void removeLeftovers(const std::filesystem::path& dir, const std::string& prefix, char separator) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* stop = nullptr;
    long pid = std::strtol(name.c_str() + prefix.size(), &stop, 10);
    if (stop == name.c_str() + prefix.size() || *stop != separator || !processIsGone(pid)) continue;
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

}  // namespace

TempPath::TempPath(std::string path) : path_(std::move(path)), slot_(registerPath(path_)) {}

TempPath::TempPath(TempPath&& other) noexcept
    : path_(std::move(other.path_)), slot_(std::exchange(other.slot_, -1)) {
  other.path_.clear();
}

TempPath::~TempPath() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  unregisterPath(slot_);
}

void TempPath::keep() {
  unregisterPath(std::exchange(slot_, -1));
  path_.clear();
}

TempPath TempPath::besideFile(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path p(path);
  std::string stem = p.filename().string() + ".tmp.";
  removeLeftovers(p.parent_path(), stem, '.');
  return TempPath(strCat(path, ".tmp.", ::getpid(), ".", counter++));
}

TempPath TempPath::folder(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  removeLeftovers(base, prefix + "-", '-');
  static std::atomic<uint64_t> counter{0};
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    uint64_t tag = (uint64_t(entropy()) << 32 | entropy()) ^ counter++;
    // Tracked before it exists, so a signal between mkdir and tracking cannot leak the folder.
    TempPath dir((base / strCat(prefix, "-", ::getpid(), "-", std::hex, tag)).string());
    if (::mkdir(dir.path().c_str(), 0700) == 0) return dir;
    int err = errno;
    if (err != EEXIST) {
      dir.keep();  // nothing was created: nothing to remove
      throw Error(strCat("cannot create a temporary folder in '", base.string(),
                         "': ", std::strerror(err)));
    }
    dir.keep();  // someone else's folder: leave it alone
  }
  throw Error(
      strCat("cannot create a temporary folder in '", base.string(), "': every name tried exists"));
}

void removeTempPathsOnSignals() {
  struct sigaction action = {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

}  // namespace kiln
