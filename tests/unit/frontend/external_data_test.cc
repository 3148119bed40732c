// Initializers kept in files beside the model (ONNX external data): read as views of the mapped
// file, with every location, range and length checked before a byte is read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kiln/frontend/onnx/importer.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "onnx_model_builder.h"

namespace kiln::frontend::onnx {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;

// A folder of its own for each test (tests of this binary run in parallel processes).
std::string externalFolder(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / strCat("kiln_external_", name, "_", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// y = x + w, w float32[2,3] stored in LOCATION at OFFSET (LENGTH given when >= 0).
OnnxModelBuilder externalModel(const std::string& location, int64_t offset, int64_t length) {
  OnnxModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}});
  auto* w = b.graph().add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_dims(3);
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto add = [w](const std::string& k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  if (length >= 0) add("length", std::to_string(length));
  b.node("Add", {"x", "w"}, {"y"});
  b.output("y");
  return b;
}

// Writes 16 bytes of padding, then the floats 1..6, to DIR/NAME.
void writeWeights(const std::string& dir, const std::string& name) {
  std::ofstream f(dir + "/" + name, std::ios::binary);
  std::string pad(16, '\0');
  f.write(pad.data(), static_cast<std::streamsize>(pad.size()));
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) f.write(reinterpret_cast<const char*>(&v), 4);
}

std::string saveModel(const std::string& dir, const OnnxModelBuilder& b) {
  std::vector<uint8_t> bytes = b.bytes();
  writeFileAtomic(dir + "/model.onnx", bytes.data(), bytes.size());
  return dir + "/model.onnx";
}

std::string externalImportError(const std::string& path) {
  try {
    importOnnx(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "imported";
}

TEST(ExternalData, WeightsAreReadFromBesideTheModel) {
  std::string dir = externalFolder("read");
  writeWeights(dir, "weights.bin");
  auto g = importOnnx(saveModel(dir, externalModel("weights.bin", 16, 24)));
  const ir::Value* w = g->findValue("w");
  ASSERT_TRUE(w && w->isConstant());
  EXPECT_EQ(w->type.str(), "float32[2,3]");
  const auto* p = w->constant->data<float>();
  EXPECT_EQ(std::vector<float>(p, p + 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Without a length the tensor's own size is read.
  g = importOnnx(saveModel(dir, externalModel("weights.bin", 16, -1)));
  EXPECT_EQ(g->findValue("w")->constant->data<float>()[5], 6.f);
}

TEST(ExternalData, LocationsOutsideTheModelsFolderAreRefused) {
  std::string dir = externalFolder("outside");
  writeWeights(dir, "weights.bin");
  fs::create_directories(dir + "/sub");
  std::string path = dir + "/sub/model.onnx";
  std::vector<uint8_t> bytes = externalModel("../weights.bin", 16, 24).bytes();
  writeFileAtomic(path, bytes.data(), bytes.size());
  std::string msg = externalImportError(path);
  EXPECT_NE(msg.find("initializer 'w' stores its data in '../weights.bin', outside the model's "
                     "folder"),
            std::string::npos)
      << msg;
  msg = externalImportError(saveModel(dir, externalModel(dir + "/weights.bin", 16, 24)));
  EXPECT_NE(msg.find("outside the model's folder"), std::string::npos) << msg;
  fs::create_symlink("/etc", dir + "/link");
  msg = externalImportError(saveModel(dir, externalModel("link/hostname", 0, -1)));
  EXPECT_NE(msg.find("outside the model's folder"), std::string::npos) << msg;
}

TEST(ExternalData, RangesAndLengthsAreCheckedAgainstTheFileAndTheType) {
  std::string dir = externalFolder("ranges");
  writeWeights(dir, "weights.bin");  // 40 bytes
  std::string msg = externalImportError(saveModel(dir, externalModel("weights.bin", 20, 24)));
  EXPECT_NE(msg.find("(float32[2,3], 24 bytes) reads 'weights.bin' from byte 20, past its end "
                     "(40 bytes)"),
            std::string::npos)
      << msg;
  msg = externalImportError(saveModel(dir, externalModel("weights.bin", 16, 20)));
  EXPECT_NE(msg.find("external data length 20; its type float32[2,3] needs 24 bytes"),
            std::string::npos)
      << msg;
  msg = externalImportError(saveModel(dir, externalModel("nosuch.bin", 0, 24)));
  EXPECT_NE(msg.find("'nosuch.bin', which does not exist in"), std::string::npos) << msg;
  auto bad = externalModel("weights.bin", 16, 24);
  bad.graph().mutable_initializer(0)->mutable_external_data(1)->set_value("-8");
  msg = externalImportError(saveModel(dir, bad));
  EXPECT_NE(msg.find("external data offset '-8' is not a whole number of bytes"), std::string::npos)
      << msg;
}

TEST(ExternalData, AModelGivenAsBytesHasNoFolderToReadFrom) {
  std::string msg;
  try {
    importOnnx(externalModel("weights.bin", 0, 24).bytes());
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("the model was given as bytes, with no folder to find it in"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace kiln::frontend::onnx
