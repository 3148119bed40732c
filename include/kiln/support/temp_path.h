// Temporary files and folders that never outlive the work they belong to: removed when their
// owner is destroyed, when the process is interrupted, and by the next process when a kill -9
// left them behind.
#pragma once

#include <string>

namespace kiln {

class TempPath {
 public:
  // A fresh name beside PATH, PATH.tmp.<pid>.<n>, unique between threads and processes; nothing
  // is created. Leftovers of dead processes (PATH.tmp.<pid>.*) are removed first.
  static TempPath besideFile(const std::string& path);
  // A new empty folder $TMPDIR/PREFIX-<pid>-<random hex> (or /tmp/...), readable by its owner only.
  // Leftovers of dead processes (PREFIX-<pid>-*) are removed first. Throws kiln::Error when it
  // cannot be created.
  static TempPath folder(const std::string& prefix);

  TempPath(TempPath&& other) noexcept;
  TempPath& operator=(TempPath&&) = delete;
  TempPath(const TempPath&) = delete;
  ~TempPath();  // removes the file or the folder and everything in it, unless kept

  const std::string& path() const { return path_; }
  // The path has been renamed into place (or is wanted): stop tracking it.
  void keep();

 private:
  explicit TempPath(std::string path);
  std::string path_;
  int slot_ = -1;  // where the signal handler finds the path; -1: not registered
};

// Makes SIGINT, SIGTERM and SIGHUP remove every live TempPath before the process dies of the
// signal (the exit status still says which signal). Safe to call more than once.
void removeTempPathsOnSignals();

}  // namespace kiln
