// Tests for DataType and Device names: every name parses back to itself, bad names are errors.
#include "kiln/runtime/data_type.h"

#include "test_util.h"

namespace kiln::runtime {
namespace {

TEST(DataType, NamesRoundTrip) {
  for (const char* name :
       {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
        "float32", "float64", "bfloat16", "float32x8", "int8x64", "boolx4", "string"}) {
    DataType t = DataType::parse(name);
    EXPECT_EQ(t.str(), name);
    EXPECT_EQ(DataType::parse(t.str()), t);
  }
}

TEST(DataType, ParsedFieldsMatchDLPack) {
  DataType t = DataType::parse("float32x4");
  EXPECT_EQ(t.code, kDLFloat);
  EXPECT_EQ(t.bits, 32);
  EXPECT_EQ(t.lanes, 4);
  EXPECT_EQ(t.bytes(), 16u);
  EXPECT_EQ(DataType::parse("uint16"), (DataType{kDLUInt, 16, 1}));
  EXPECT_EQ(DataType::parse("bool").bytes(), 1u);
  EXPECT_TRUE(DataType::parse("int64").isInt());
  EXPECT_EQ(DataType::fromDL(DataType::float16().dl()), DataType::float16());
}

TEST(DataType, BadNamesAreErrorsNamingTheInput) {
  for (const char* name :
       {"", "float", "float33", "float32abc", "int", "int7", "x4", "float32x", "float32x0",
        "float32x-1", "int32x4x4", "double", "bfloat32", "float+32"}) {
    std::string msg = test::errorOf([&] { DataType::parse(name); });
    EXPECT_TRUE(test::contains(msg, strCat("'", name, "'"))) << name << ": " << msg;
  }
}

TEST(Device, Names) {
  EXPECT_EQ(Device::cpu().str(), "cpu(0)");
  EXPECT_EQ(Device::cpu(3).str(), "cpu(3)");
  EXPECT_EQ(Device::cpu(1), Device::cpu(1));
  EXPECT_FALSE(Device::cpu(1) == Device::cpu(2));
}

}  // namespace
}  // namespace kiln::runtime
