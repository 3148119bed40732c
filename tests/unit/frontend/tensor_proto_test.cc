// TensorProto files: round trips of every supported type, the typed-field encoding, and errors.
#include "kiln/frontend/onnx/tensor_proto.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "onnx_model_builder.h"

namespace kiln::frontend::onnx {
namespace {

using runtime::DataType;
using runtime::NDArray;

std::string tempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("kiln_frontend_" + name);
}

NDArray randomArray(const runtime::Shape& shape, DataType t, std::mt19937& rng) {
  NDArray a = NDArray::empty(shape, t);
  auto* bytes = static_cast<uint8_t*>(a.data());
  for (size_t i = 0; i < a.nbytes(); ++i) bytes[i] = static_cast<uint8_t>(rng());
  if (t.isBool()) {
    for (size_t i = 0; i < a.nbytes(); ++i) bytes[i] &= 1;
  }
  if (t.isFloat()) {  // random bits may be NaN, which is fine for bytes but not for readability
    for (int64_t i = 0; i < a.numel(); ++i) {
      if (t.bits == 32) a.data<float>()[i] = static_cast<float>(rng() % 1000) / 7.0f - 50;
      if (t.bits == 64) a.data<double>()[i] = static_cast<double>(rng() % 1000) / 7.0 - 50;
    }
  }
  return a;
}

bool sameContents(const NDArray& a, const NDArray& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

TEST(TensorProto, RoundTripEveryType) {
  std::mt19937 rng(1234);
  const DataType types[] = {DataType::float32(), DataType::float64(), DataType::float16(),
                            DataType::int8(),    {kDLInt, 16, 1},     DataType::int32(),
                            DataType::int64(),   DataType::uint8(),   {kDLUInt, 16, 1},
                            {kDLUInt, 32, 1},    {kDLUInt, 64, 1},    DataType::boolean()};
  const runtime::Shape shapes[] = {{}, {0}, {7}, {2, 3, 4}, {1, 1, 5, 1}};
  std::string path = tempPath("roundtrip.pb");
  for (DataType t : types) {
    for (const auto& shape : shapes) {
      NDArray a = randomArray(shape, t, rng);
      saveTensorProto(a, "tensor_" + t.str(), path);
      auto [name, b] = loadNamedTensorProto(path);
      EXPECT_EQ(name, "tensor_" + t.str());
      EXPECT_TRUE(sameContents(a, b)) << t.str() << runtime::shapeStr(shape);
    }
  }
  EXPECT_FALSE(fileExists(path + ".tmp")) << "atomic write left its temporary file";
  std::filesystem::remove(path);
}

// Tensors written with the typed repeated fields (what onnx.numpy_helper does for small data).
TEST(TensorProto, TypedFieldsAreRead) {
  ::onnx::TensorProto p;
  p.set_name("ints");
  p.set_data_type(::onnx::TensorProto::INT8);
  p.add_dims(2);
  p.add_dims(2);
  for (int v : {-128, -1, 0, 127}) p.add_int32_data(v);
  std::string s = p.SerializeAsString();
  auto [name, a] = parseTensorProto({s.begin(), s.end()}, "ints.pb");
  EXPECT_EQ(name, "ints");
  ASSERT_EQ(a.dtype(), DataType::int8());
  EXPECT_EQ(a.shape(), (runtime::Shape{2, 2}));
  EXPECT_EQ(a.data<int8_t>()[0], -128);
  EXPECT_EQ(a.data<int8_t>()[1], -1);
  EXPECT_EQ(a.data<int8_t>()[3], 127);

  ::onnx::TensorProto d;
  d.set_data_type(::onnx::TensorProto::DOUBLE);
  d.add_dims(3);
  for (double v : {0.5, -2.25, 1e300}) d.add_double_data(v);
  s = d.SerializeAsString();
  NDArray b = parseTensorProto({s.begin(), s.end()}, "d.pb").second;
  EXPECT_EQ(b.data<double>()[2], 1e300);

  ::onnx::TensorProto u;
  u.set_data_type(::onnx::TensorProto::UINT64);
  u.add_dims(1);
  u.add_uint64_data(0xFFFFFFFFFFFFFFFFull);
  s = u.SerializeAsString();
  NDArray c = parseTensorProto({s.begin(), s.end()}, "u.pb").second;
  EXPECT_EQ(c.data<uint64_t>()[0], 0xFFFFFFFFFFFFFFFFull);
}

TEST(TensorProto, MissingFileNamesPath) {
  try {
    loadTensorProto("/nonexistent/input_0.pb");
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/input_0.pb"), std::string::npos);
  }
}

TEST(TensorProto, MalformedBytesAreAnError) {
  std::string junk = "\x0a\xff\xff\xff\xff\x0f garbage";
  EXPECT_THROW(parseTensorProto({junk.begin(), junk.end()}, "junk.pb"), Error);
  EXPECT_THROW(parseTensorProto({}, "empty.pb"), Error);  // no data type
}

TEST(TensorProto, RawDataOfWrongSizeIsAnError) {
  ::onnx::TensorProto p;
  p.set_data_type(::onnx::TensorProto::FLOAT);
  p.add_dims(4);
  p.set_raw_data(std::string(12, '\0'));
  std::string s = p.SerializeAsString();
  try {
    parseTensorProto({s.begin(), s.end()}, "short.pb");
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("short.pb"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("needs 4 values of 4 bytes"), std::string::npos) << msg;
  }
}

// Corrupt dims must be caught before anything is allocated for them.
TEST(TensorProto, HugeOrOverflowingDimsAreAnError) {
  for (const auto& dims :
       {std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 20},
        std::vector<int64_t>{int64_t{1} << 62, 16}, std::vector<int64_t>{3, -2}}) {
    ::onnx::TensorProto p;
    p.set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) p.add_dims(d);
    p.set_raw_data(std::string(4, '\0'));
    std::string s = p.SerializeAsString();
    EXPECT_THROW(parseTensorProto({s.begin(), s.end()}, "huge.pb"), Error);
  }
}

// STRING tensors are read from string_data and written back there; raw_data is refused.
TEST(TensorProto, StringTensorsRoundTrip) {
  ::onnx::TensorProto p;
  p.set_data_type(::onnx::TensorProto::STRING);
  p.add_dims(1);
  p.add_dims(3);
  for (const char* word : {"hello", "", "w\xc3\xb6rld"}) p.add_string_data(word);
  std::string s = p.SerializeAsString();
  auto [name, a] = parseTensorProto({s.begin(), s.end()}, "s.pb");
  ASSERT_EQ(a.dtype(), runtime::DataType::string());
  ASSERT_EQ(a.shape(), (runtime::Shape{1, 3}));
  EXPECT_EQ(a.data<std::string>()[0], "hello");
  EXPECT_EQ(a.data<std::string>()[2], "w\xc3\xb6rld");
  std::vector<uint8_t> bytes = serializeTensorProto(a, "t");
  ::onnx::TensorProto back;
  ASSERT_TRUE(back.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  EXPECT_EQ(back.data_type(), ::onnx::TensorProto::STRING);
  ASSERT_EQ(back.string_data_size(), 3);
  EXPECT_EQ(back.string_data(1), "");
  EXPECT_EQ(back.string_data(2), "w\xc3\xb6rld");

  p.add_string_data("one too many");
  s = p.SerializeAsString();
  try {
    parseTensorProto({s.begin(), s.end()}, "s.pb");
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4 values in string_data"), std::string::npos) << e.what();
  }
}

// Sequences and optionals: SequenceProto and OptionalProto files round trip for every kind, and
// a file of another kind is refused naming it.
TEST(ListProto, EveryKindRoundTrips) {
  std::mt19937 rng(5);
  NDArray a = randomArray({2, 3}, DataType::float32(), rng);
  NDArray b = randomArray({4}, DataType::float32(), rng);
  using runtime::TensorList;
  using runtime::ValueKind;
  struct Case {
    ValueKind kind;
    TensorList list;
  };
  std::vector<Case> cases = {{ValueKind::kSequence, {{a, b}, false}},
                             {ValueKind::kSequence, {{}, false}},
                             {ValueKind::kOptionalTensor, {{b}, false}},
                             {ValueKind::kOptionalTensor, TensorList::noValue()},
                             {ValueKind::kOptionalSequence, {{a}, false}},
                             {ValueKind::kOptionalSequence, TensorList::noValue()}};
  for (size_t c = 0; c < cases.size(); ++c) {
    std::string path = tempPath("list_" + std::to_string(c) + ".pb");
    saveListProto(cases[c].list, cases[c].kind, "v", path);
    TensorList back = loadListProto(path, cases[c].kind);
    EXPECT_EQ(back.none, cases[c].list.none) << c;
    ASSERT_EQ(back.items.size(), cases[c].list.items.size()) << c;
    for (size_t k = 0; k < back.items.size(); ++k) {
      EXPECT_TRUE(sameContents(back.items[k], cases[c].list.items[k])) << c << " " << k;
    }
    std::filesystem::remove(path);
  }
}

TEST(ListProto, AnOptionalOfAnotherKindIsRefused) {
  std::string path = tempPath("opt_seq.pb");
  NDArray a = NDArray::empty({1}, DataType::float32());
  saveListProto({{a}, false}, runtime::ValueKind::kOptionalSequence, "v", path);
  try {
    loadListProto(path, runtime::ValueKind::kOptionalTensor);
    FAIL() << "an optional sequence was read as an optional tensor";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("holds an optional of elem_type 3; expected an optional tensor (1)"),
              std::string::npos)
        << what;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kiln::frontend::onnx
