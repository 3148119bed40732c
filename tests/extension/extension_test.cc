// Loading extensions into compile contexts: what a well-formed extension adds, every refusal
// naming the file and what was expected, and contexts in parallel threads holding different ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "kiln/driver/context.h"
#include "kiln/extension/extension_api.h"
#include "kiln/support/error.h"

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

std::string ext(const std::string& folder, const std::string& name = "") {
  std::string dir = std::string(KILN_TEST_EXTENSIONS) + "/" + folder;
  return name.empty() ? dir : dir + "/ext_" + name + ".so";
}

std::string loadError(extension::ExtensionSet& set, const std::string& path) {
  try {
    set.load(path);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "loading " << path << " did not fail";
  return "";
}

TEST(Extensions, AWellFormedExtensionAddsItsBackendWithAttributes) {
  driver::CompileContext context;
  context.extensions().load(ext("both", "alpha"));
  ASSERT_EQ(context.extensions().backends().size(), 1u);
  const extension::Backend* alpha = context.extensions().find("alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->help, "A test accelerator");
  EXPECT_EQ(alpha->file, fs::canonical(ext("both", "alpha")).string());
  ASSERT_EQ(alpha->attrs.size(), 2u);
  EXPECT_EQ(alpha->attrs[0].name, "tile");
  EXPECT_EQ(alpha->attrs[0].type, extension::AttrType::kInt);
  EXPECT_EQ(alpha->attrs[0].defaultValue, "4");
  EXPECT_EQ(alpha->optionName(alpha->attrs[1]), "--target-alpha-mode");
  EXPECT_EQ(context.extensions().find("beta"), nullptr);
  // Loading the same file again (here through another spelling of its path) is a no-op.
  context.extensions().load(ext("both") + "/../both/ext_alpha.so");
  EXPECT_EQ(context.extensions().backends().size(), 1u);
}

TEST(Extensions, AFolderLoadsEveryLibraryInNameOrder) {
  extension::ExtensionSet set;
  set.load(ext("both"));
  ASSERT_EQ(set.backends().size(), 2u);
  EXPECT_EQ(set.backends()[0].name, "alpha");
  EXPECT_EQ(set.backends()[1].name, "beta");
  EXPECT_EQ(set.files().size(), 2u);
}

TEST(Extensions, AnotherApiVersionIsRefusedNamingBoth) {
  extension::ExtensionSet set;
  std::string e = loadError(set, ext("future", "future"));
  EXPECT_NE(e.find("ext_future.so"), std::string::npos) << e;
  EXPECT_NE(e.find("extension API version 99"), std::string::npos) << e;
  EXPECT_NE(e.find(strCat("extensions of version ", KILN_ABI_VERSION)), std::string::npos) << e;
  EXPECT_TRUE(set.backends().empty());
  EXPECT_TRUE(set.files().empty());
}

TEST(Extensions, ADuplicateBackendNameIsRefusedNamingBothFiles) {
  extension::ExtensionSet set;
  set.load(ext("both", "alpha"));
  std::string e = loadError(set, ext("again", "alpha_again"));
  EXPECT_NE(e.find("ext_alpha_again.so"), std::string::npos) << e;
  EXPECT_NE(e.find("backend 'alpha' is already registered by"), std::string::npos) << e;
  EXPECT_NE(e.find("both/ext_alpha.so"), std::string::npos) << e;
  EXPECT_EQ(set.backends().size(), 1u);  // nothing of the refused file was kept
  EXPECT_EQ(set.files().size(), 1u);
}

TEST(Extensions, RefusalsNameTheFileAndTheReason) {
  extension::ExtensionSet set;
  std::string e = loadError(set, ext("refuses", "refuses"));
  EXPECT_NE(e.find("ext_refuses.so' failed to load: the accelerator's driver is not installed"),
            std::string::npos)
      << e;
  e = loadError(set, ext("no_help", "no_help"));
  EXPECT_NE(e.find("target attribute 'mode' has no help"), std::string::npos) << e;
  // A type code outside the enumerators (found by the extension_abi fuzzer) is named, not cast.
  e = loadError(set, ext("bad_attr_type", "bad_attr_type"));
  EXPECT_NE(e.find("target attribute 'mode' has type code 4; expected 0 (bool)"), std::string::npos)
      << e;
  e = loadError(set, ext("nowhere"));
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  // A shared library that is not an extension (zlib's).
  std::string notExtension = testing::TempDir() + "/not_an_extension.so";
  fs::copy_file("/usr/lib/x86_64-linux-gnu/libz.so.1", notExtension,
                fs::copy_options::overwrite_existing);
  e = loadError(set, notExtension);
  EXPECT_NE(e.find("is not a kiln extension"), std::string::npos) << e;
  EXPECT_TRUE(set.backends().empty());
}

TEST(Extensions, ExtensionPathsSplitOnColons) {
  EXPECT_EQ(extension::splitExtensionPath("a:b::c:"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(extension::splitExtensionPath("").empty());
}

TEST(Extensions, AttributeValuesAreCheckedAgainstTheirType) {
  extension::TargetAttr attr{"tile", extension::AttrType::kInt, "4", "rows"};
  EXPECT_EQ(extension::checkAttrValue(attr, "16", "--target-x-tile"), "16");
  try {
    extension::checkAttrValue(attr, "many", "--target-x-tile");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--target-x-tile 'many' is not valid; expected a 64-bit"),
              std::string::npos)
        << e.what();
  }
  attr.type = extension::AttrType::kBool;
  EXPECT_EQ(extension::checkAttrValue(attr, "on", "o"), "true");
  EXPECT_EQ(extension::checkAttrValue(attr, "0", "o"), "false");
  attr.type = extension::AttrType::kFloat;
  EXPECT_THROW(extension::checkAttrValue(attr, "1.5x", "o"), Error);
}

TEST(ExtensionThreads, ContextsInThreadsHoldOnlyTheirOwnExtensions) {
  constexpr int kRounds = 20;
  std::vector<std::string> failures[2];
  auto worker = [&](int which) {
    const char* mine = which == 0 ? "alpha" : "beta";
    const char* theirs = which == 0 ? "beta" : "alpha";
    for (int r = 0; r < kRounds; ++r) {
      driver::CompileContext context;
      context.extensions().load(ext("both", mine));
      if (context.extensions().find(mine) == nullptr) failures[which].push_back("mine missing");
      if (context.extensions().find(theirs) != nullptr) failures[which].push_back("saw theirs");
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  EXPECT_TRUE(failures[0].empty()) << failures[0].front();
  EXPECT_TRUE(failures[1].empty()) << failures[1].front();
}

}  // namespace
}  // namespace kiln::test
