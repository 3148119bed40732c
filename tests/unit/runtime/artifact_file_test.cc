// The checks an artifact's file gets before dlopen: truncated copies and flipped bits are errors
// that say what is wrong, never a SIGBUS or a silent wrong answer.
#include "kiln/runtime/artifact_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "../../../src/runtime/elf_layout.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/support/file.h"
#include "kiln/support/hash64.h"
#include "test_util.h"

namespace kiln::runtime {
namespace {

using test::contains;
using test::errorOf;

// A library with code and a large constant in the section kiln keeps weights in.
class ArtifactFileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::ScratchDir("artifact_file");
    std::string source =
        "__attribute__((section(\"kiln_artifact\"))) const unsigned char blob[65536] = "
        "{1, 2, 3};\n"
        "int kernel(int x) { return x * 3 + blob[x & 0xffff]; }\n";
    ASSERT_EQ(test::compileSharedLibrary(source, dir_->file("lib.so")), "");
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string path(const std::string& name) { return dir_->file(name); }
  static std::vector<uint8_t> bytes() { return readFile(path("lib.so")); }
  static std::string write(const std::string& name, const std::vector<uint8_t>& b) {
    writeFileAtomic(path(name), b.data(), b.size());
    return path(name);
  }
  static ElfRegion section(const std::vector<uint8_t>& b, const std::string& name) {
    for (const ElfRegion& r : readElfLayout(b.data(), b.size(), "lib.so").sections) {
      if (r.name == name) return r;
    }
    ADD_FAILURE() << "no section " << name;
    return {};
  }

  static test::ScratchDir* dir_;
};
test::ScratchDir* ArtifactFileTest::dir_ = nullptr;

TEST_F(ArtifactFileTest, ASealedLibraryVerifiesAndLoads) {
  EXPECT_EQ(errorOf([] { verifyArtifactFile(path("lib.so"), true); }), "<no error>");
  SharedLibrary lib(path("lib.so"));
  EXPECT_NE(lib.findSymbol("kernel"), nullptr);
}

TEST_F(ArtifactFileTest, TheTrailerHoldsTheXxh64OfTheBytesBeforeIt) {
  std::vector<uint8_t> b = bytes();
  ASSERT_GT(b.size(), 32u);
  EXPECT_EQ(std::string(b.end() - 8, b.end()), "KILNSUM1");
  uint64_t covered = 0, recorded = 0;
  std::memcpy(&covered, b.data() + b.size() - 24, 8);
  std::memcpy(&recorded, b.data() + b.size() - 16, 8);
  ASSERT_LT(covered, b.size());
  EXPECT_EQ(hash64(b.data(), covered), recorded);
}

TEST_F(ArtifactFileTest, TruncatedCopiesAreRefusedBeforeTheLoaderMapsThem) {
  std::vector<uint8_t> whole = bytes();
  uint64_t elfBytes = 0;  // everything before the checksum trailer
  std::memcpy(&elfBytes, whole.data() + whole.size() - 24, 8);
  for (size_t keep : {size_t(elfBytes) - 1, whole.size() * 3 / 4, whole.size() / 2, size_t(4096),
                      size_t(100), size_t(10)}) {
    std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<long>(keep));
    std::string p = write("cut.so", cut);
    std::string msg = errorOf([&] { SharedLibrary lib(p); });
    EXPECT_TRUE(contains(msg, "truncated") || contains(msg, "not a shared library")) << msg;
    EXPECT_TRUE(contains(msg, "cut.so")) << msg;
  }
}

TEST_F(ArtifactFileTest, AFlippedWeightByteIsNamed) {
  std::vector<uint8_t> b = bytes();
  ElfRegion weights = section(b, "kiln_artifact");
  ASSERT_GT(weights.size, 1000u);
  b[weights.offset + 500] ^= 0x10;
  std::string p = write("flipped_weights.so", b);
  std::string msg = errorOf([&] { verifyArtifactFile(p, true); });
  EXPECT_TRUE(contains(msg, "is corrupt")) << msg;
  EXPECT_TRUE(contains(msg, "metadata and weights")) << msg;
  EXPECT_FALSE(contains(msg, ".text")) << msg;
  // The structural check alone does not hash, so it lets the file through.
  EXPECT_EQ(errorOf([&] { verifyArtifactFile(p, false); }), "<no error>");
}

TEST_F(ArtifactFileTest, AFlippedCodeByteIsNamed) {
  std::vector<uint8_t> b = bytes();
  ElfRegion text = section(b, ".text");
  ASSERT_GT(text.size, 0u);
  b[text.offset + text.size / 2] ^= 0x01;
  std::string msg = errorOf([&] { verifyArtifactFile(write("flipped_code.so", b), true); });
  EXPECT_TRUE(contains(msg, "'.text' (the kernels' code)")) << msg;
}

// The trailer's section table says which section changed; an edited table must itself be found,
// or a corrupt section could be named as another (or a changed hash pass unnoticed).
TEST_F(ArtifactFileTest, AnEditedSectionTableIsFoundBeforeItCanMisnameASection) {
  std::vector<uint8_t> b = bytes();
  uint32_t count = 0;
  std::memcpy(&count, b.data() + b.size() - 32, 4);
  ASSERT_GE(count, 2u);
  // Entries of 32 bytes (u32 index, u32 0, u64 offset, u64 size, u64 hash), then the table's
  // hash, then the 32-byte tail.
  size_t table = b.size() - 32 - 8 - size_t{count} * 32;
  // The first entry's section index now names the second entry's section, after a weight byte
  // was flipped: the old trailer would have blamed the wrong section.
  std::vector<uint8_t> edited = b;
  ElfRegion weights = section(b, "kiln_artifact");
  edited[weights.offset + 100] ^= 0x08;
  std::memcpy(edited.data() + table, b.data() + table + 32, 4);
  std::string msg = errorOf([&] { verifyArtifactFile(write("edited_table.so", edited), true); });
  EXPECT_TRUE(contains(msg, "section table of its checksum trailer was changed")) << msg;
  // An edited recorded hash alone (the file's bytes intact) is found as well.
  std::vector<uint8_t> hashEdited = b;
  hashEdited[table + 24] ^= 0x01;
  msg = errorOf([&] { verifyArtifactFile(write("edited_hash.so", hashEdited), true); });
  EXPECT_TRUE(contains(msg, "section table of its checksum trailer was changed")) << msg;
  EXPECT_EQ(errorOf([&] { verifyArtifactFile(write("intact.so", b), true); }), "<no error>");
}

TEST_F(ArtifactFileTest, AMissingOrDamagedTrailerIsExplained) {
  std::vector<uint8_t> b = bytes();
  std::vector<uint8_t> unsealed(b.begin(), b.end() - 40);  // trailer partly gone
  std::string msg = errorOf([&] { verifyArtifactFile(write("unsealed.so", unsealed), true); });
  EXPECT_TRUE(contains(msg, "no valid kiln checksum")) << msg;
  EXPECT_TRUE(contains(msg, "--no-verify")) << msg;
  std::vector<uint8_t> lying = b;
  lying[lying.size() - 20] ^= 0x40;  // the covered byte count
  msg = errorOf([&] { verifyArtifactFile(write("lying.so", lying), true); });
  EXPECT_TRUE(contains(msg, "does not add up")) << msg;
}

TEST_F(ArtifactFileTest, HeadersPointingPastTheEndAreRefused) {
  std::vector<uint8_t> b = bytes();
  // e_shoff of a 64-bit ELF file lives at byte 40.
  uint64_t far = b.size() * 2;
  std::memcpy(b.data() + 40, &far, 8);
  std::string msg = errorOf([&] { verifyArtifactFile(write("far.so", b), false); });
  EXPECT_TRUE(contains(msg, "section header table")) << msg;
  EXPECT_TRUE(contains(msg, "truncated or corrupt")) << msg;
}

}  // namespace
}  // namespace kiln::runtime
