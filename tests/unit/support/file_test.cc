// Tests for the file helpers: contents survive, and every failure names the path and the reason.
#include "kiln/support/file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <functional>
#include <thread>

#include "kiln/support/error.h"
#include "kiln/support/temp_path.h"

namespace kiln {
namespace {

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("kiln_file_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    makeDirectories(dir_.string());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST_F(FileTest, WriteThenReadBinaryAndText) {
  std::string bytes("a\0b\xff\n", 5);
  writeFileAtomic(path("x.bin"), bytes.data(), bytes.size());
  std::vector<uint8_t> back = readFile(path("x.bin"));
  EXPECT_EQ(std::string(back.begin(), back.end()), bytes);
  EXPECT_EQ(readTextFile(path("x.bin")), bytes);
  EXPECT_FALSE(fileExists(path("x.bin.tmp")));
}

TEST_F(FileTest, LargeAndEmptyFiles) {
  std::string big(300000, 'q');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>(i % 251);
  writeFileAtomic(path("big"), big);
  EXPECT_EQ(readTextFile(path("big")), big);
  writeFileAtomic(path("empty"), std::string());
  EXPECT_TRUE(readFile(path("empty")).empty());
}

TEST_F(FileTest, OverwriteReplacesContents) {
  writeFileAtomic(path("f"), std::string("first version"));
  writeFileAtomic(path("f"), std::string("2nd"));
  EXPECT_EQ(readTextFile(path("f")), "2nd");
}

TEST_F(FileTest, MissingFileErrorNamesPathAndReason) {
  std::string msg = errorOf([&] { readFile(path("nope.txt")); });
  EXPECT_NE(msg.find(path("nope.txt")), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}

TEST_F(FileTest, ReadingADirectoryIsAnError) {
  std::string msg = errorOf([&] { readTextFile(dir_.string()); });
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
}

TEST_F(FileTest, WriteIntoMissingDirectoryFailsAndLeavesNothing) {
  std::string target = path("no/such/dir/out.txt");
  std::string msg = errorOf([&] { writeFileAtomic(target, std::string("x")); });
  // The message names the missing folder, not a temporary file.
  EXPECT_NE(msg.find("the folder '" + path("no/such/dir") + "' does not exist"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find(".tmp"), std::string::npos) << msg;
  EXPECT_FALSE(fileExists(target));
}

TEST_F(FileTest, FailedRenameKeepsTheOldTarget) {
  // Renaming a file over a non-empty directory fails; the directory must survive untouched.
  makeDirectories(path("d/inner"));
  std::string msg = errorOf([&] { writeFileAtomic(path("d"), std::string("x")); });
  EXPECT_NE(msg.find("Is a directory"), std::string::npos) << msg;
  EXPECT_TRUE(isDirectory(path("d/inner")));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

// Writers of one path never share a temporary file: every write lands whole, and nothing is
// left beside the target.
TEST_F(FileTest, ConcurrentWritersOfOnePathNeverMixOrFail) {
  constexpr int kThreads = 6, kWrites = 40;
  std::vector<std::string> contents;
  contents.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    contents.push_back(std::string(20000 + t * 977, char('a' + t)));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        try {
          writeFileAtomic(path("shared.out"), contents[t]);
          std::string now = readTextFile(path("shared.out"));
          if (std::find(contents.begin(), contents.end(), now) == contents.end()) ++failures;
        } catch (const Error&) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

// The pid of a process that has exited and been reaped.
pid_t deadPid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST_F(FileTest, LeftoversOfKilledProcessesAreRemoved) {
  pid_t dead = deadPid();
  std::string stale = path("out.bin.tmp." + std::to_string(dead) + ".7");
  std::string live = path("out.bin.tmp." + std::to_string(::getppid()) + ".7");
  writeFileAtomic(stale, std::string("half a file"));
  writeFileAtomic(live, std::string("another process is writing this"));
  writeFileAtomic(path("out.bin"), std::string("new"));
  EXPECT_FALSE(fileExists(stale));
  EXPECT_TRUE(fileExists(live));
  EXPECT_EQ(readTextFile(path("out.bin")), "new");

  std::filesystem::path tmp = std::filesystem::temp_directory_path();
  std::string staleDir = (tmp / ("kiln-filetest-" + std::to_string(dead) + "-abc")).string();
  makeDirectories(staleDir + "/x");
  {
    TempPath fresh = TempPath::folder("kiln-filetest");
    EXPECT_TRUE(isDirectory(fresh.path()));
    EXPECT_FALSE(fileExists(staleDir));
  }
}

TEST_F(FileTest, TempPathsGoAwayUnlessKept) {
  std::string kept, dropped;
  {
    TempPath a = TempPath::folder("kiln-filetest");
    writeFileAtomic(a.path() + "/obj.o", std::string("x"));
    dropped = a.path();
    TempPath b = TempPath::besideFile(path("keep.me"));
    writeFileAtomic(b.path(), std::string("y"));
    kept = b.path();
    b.keep();
  }
  EXPECT_FALSE(fileExists(dropped));
  EXPECT_TRUE(fileExists(kept));
}

// A process killed by SIGTERM or SIGINT in the middle of its work removes its temporary files
// and folders, and still dies of the signal.
TEST_F(FileTest, SignalsRemoveTemporaryPaths) {
  for (int sig : {SIGTERM, SIGINT}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t child = ::fork();
    if (child == 0) {
      removeTempPathsOnSignals();
      TempPath folder = TempPath::folder("kiln-filetest");
      writeFileAtomic(folder.path() + "/kernels.o", std::string(100000, 'k'));
      TempPath beside = TempPath::besideFile(path("model.so"));
      writeFileAtomic(beside.path(), std::string("partial"));
      std::string paths = folder.path() + "\n" + beside.path() + "\n";
      if (::write(fds[1], paths.data(), paths.size()) < 0) ::_exit(3);
      ::raise(sig);
      ::_exit(4);  // not reached: the signal kills the process
    }
    ::close(fds[1]);
    std::string paths;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) paths.append(buf, size_t(n));
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    size_t nl = paths.find('\n');
    ASSERT_NE(nl, std::string::npos) << paths;
    EXPECT_FALSE(fileExists(paths.substr(0, nl))) << paths;
    EXPECT_FALSE(fileExists(paths.substr(nl + 1, paths.size() - nl - 2))) << paths;
  }
}

TEST_F(FileTest, MakeDirectoriesCreatesParentsAndRejectsFiles) {
  makeDirectories(path("a/b/c"));
  EXPECT_TRUE(isDirectory(path("a/b/c")));
  makeDirectories(path("a/b/c"));  // already there: fine
  writeFileAtomic(path("file"), std::string("x"));
  EXPECT_FALSE(isDirectory(path("file")));
  std::string msg = errorOf([&] { makeDirectories(path("file/sub")); });
  EXPECT_NE(msg.find(path("file/sub")), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln
