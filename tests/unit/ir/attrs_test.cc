// Attribute getters return values by kind and fail with the attribute's name and actual kind.
#include "ir_test_util.h"

namespace kiln::ir {
namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(AttrsTest, TypedGettersAndDefaults) {
  Attrs a;
  a.set("i", int64_t{3});
  a.set("f", 0.5);
  a.set("s", std::string("SAME_UPPER"));
  a.set("is", std::vector<int64_t>{1, 2});
  a.set("fs", std::vector<double>{1.5});
  a.set("ss", std::vector<std::string>{"a", "b"});
  EXPECT_EQ(a.getInt("i"), 3);
  EXPECT_EQ(a.getInt("missing", 7), 7);
  EXPECT_EQ(a.getFloat("f", 0), 0.5);
  EXPECT_EQ(a.getFloat("i", 0), 3.0);  // ints read as floats
  EXPECT_EQ(a.getString("s", ""), "SAME_UPPER");
  EXPECT_EQ(a.getInts("is", {}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a.getFloats("fs", {}), (std::vector<double>{1.5}));
  EXPECT_EQ(a.getFloats("is", {}), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(a.getStrings("ss", {}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.getInts("missing", {9}), (std::vector<int64_t>{9}));
  a.erase("i");
  EXPECT_FALSE(a.has("i"));
}

TEST(AttrsTest, WrongKindNamesAttributeAndKinds) {
  Attrs a;
  a.set("alpha", std::string("x"));
  a.set("pads", 0.5);
  std::string e = errorOf([&] { a.getFloat("alpha", 0); });
  EXPECT_NE(e.find("'alpha'"), std::string::npos) << e;
  EXPECT_NE(e.find("string"), std::string::npos) << e;
  EXPECT_NE(e.find("float"), std::string::npos) << e;
  e = errorOf([&] { a.getInts("pads", {}); });
  EXPECT_NE(e.find("'pads' is float, expected ints"), std::string::npos) << e;
  e = errorOf([&] { a.getInt("group"); });
  EXPECT_NE(e.find("required attribute 'group'"), std::string::npos) << e;
  e = errorOf([&] { a.getTensor("value"); });
  EXPECT_NE(e.find("'value'"), std::string::npos) << e;
}

TEST(AttrsTest, KindNames) {
  EXPECT_STREQ(attrKindName(AttrValue{int64_t{1}}), "int");
  EXPECT_STREQ(attrKindName(AttrValue{1.0}), "float");
  EXPECT_STREQ(attrKindName(AttrValue{std::vector<std::string>{}}), "strings");
  EXPECT_STREQ(attrKindName(AttrValue{NDArray()}), "tensor");
}

}  // namespace
}  // namespace kiln::ir
