// Tests for the file helpers: contents survive, and every failure names the path and the reason.
#include "kiln/support/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "kiln/support/error.h"

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
  EXPECT_NE(msg.find("no/such/dir/out.txt.tmp"), std::string::npos) << msg;
  EXPECT_FALSE(fileExists(target));
}

TEST_F(FileTest, FailedRenameKeepsTheOldTarget) {
  // Renaming a file over a non-empty directory fails; the directory must survive untouched.
  makeDirectories(path("d/inner"));
  std::string msg = errorOf([&] { writeFileAtomic(path("d"), std::string("x")); });
  EXPECT_NE(msg.find("rename"), std::string::npos) << msg;
  EXPECT_TRUE(isDirectory(path("d/inner")));
  EXPECT_FALSE(fileExists(path("d.tmp")));
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
