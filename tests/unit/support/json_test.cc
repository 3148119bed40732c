// Tests for kiln::Json: round trips keep kinds and values, malformed text fails with a byte offset.
#include "kiln/support/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kiln/support/error.h"

namespace kiln {
namespace {

// The byte offset a parse error reports, or -1 when it reports none.
long errorOffset(const std::string& text) {
  try {
    Json::parse(text);
  } catch (const Error& e) {
    std::string msg = e.what();
    auto at = msg.find("at byte ");
    if (at == std::string::npos) return -1;
    return std::stol(msg.substr(at + 8));
  }
  ADD_FAILURE() << "no error for: " << text;
  return -2;
}

TEST(Json, ParsesScalarsWithTheirKinds) {
  EXPECT_TRUE(Json::parse("null").isNull());
  EXPECT_TRUE(Json::parse(" true ").asBool());
  EXPECT_FALSE(Json::parse("false").asBool());
  Json i = Json::parse("-42");
  ASSERT_TRUE(i.isInt());
  EXPECT_EQ(i.asInt(), -42);
  Json d = Json::parse("2.5e1");
  ASSERT_TRUE(d.isNumber());
  EXPECT_FALSE(d.isInt());
  EXPECT_DOUBLE_EQ(d.asDouble(), 25.0);
  EXPECT_EQ(Json::parse("\"a\\n\\u00e9\\ud83d\\ude00\"").asString(), "a\n\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(Json, IntegersStayIntegersThroughARoundTrip) {
  int64_t big = std::numeric_limits<int64_t>::max();
  Json j = Json::Array{Json(big), Json(std::numeric_limits<int64_t>::min()), Json(0), Json(1.0)};
  Json back = Json::parse(j.dump());
  ASSERT_TRUE(back[0].isInt());
  EXPECT_EQ(back[0].asInt(), big);
  EXPECT_EQ(back[1].asInt(), std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(back[2].isInt());
  // A double that happens to be whole stays a double.
  EXPECT_FALSE(back[3].isInt());
  EXPECT_DOUBLE_EQ(back[3].asDouble(), 1.0);
}

TEST(Json, IntegerOutOfRangeBecomesADouble) {
  Json j = Json::parse("123456789012345678901234567890");
  EXPECT_FALSE(j.isInt());
  EXPECT_NEAR(j.asDouble(), 1.2345678901234568e29, 1e15);
}

TEST(Json, RandomDoublesRoundTripExactly) {
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int i = 0; i < 1000; ++i) {
    double v = dist(rng) * std::pow(10.0, static_cast<int>(rng() % 40) - 20);
    Json back = Json::parse(Json(v).dump());
    EXPECT_EQ(back.asDouble(), v);
  }
}

TEST(Json, NestedRoundTripCompactAndIndented) {
  Json j;
  j["name"] = "conv \"1\"\t\x01";
  j["shape"] = Json::Array{Json(1), Json(3), Json(224)};
  j["empty"] = Json::Object{};
  j["none"] = Json::Array{};
  j["nested"]["deep"]["x"] = nullptr;
  j["flag"] = true;
  for (int indent : {-1, 0, 2, 4}) {
    std::string text = j.dump(indent);
    Json back = Json::parse(text);
    EXPECT_EQ(back.dump(), j.dump()) << text;
    EXPECT_EQ(back.dump(indent), text);
  }
  EXPECT_EQ(j.dump().find('\n'), std::string::npos);
  EXPECT_NE(j.dump(2).find("\n  \"empty\": {}"), std::string::npos) << j.dump(2);
}

TEST(Json, MalformedInputReportsTheOffendingByte) {
  EXPECT_EQ(errorOffset(""), 0);
  EXPECT_EQ(errorOffset("[1,2"), 4);
  EXPECT_EQ(errorOffset("[1,]"), 3);
  EXPECT_EQ(errorOffset("{\"a\" 1}"), 5);
  EXPECT_EQ(errorOffset("{\"a\":1,}"), 7);
  EXPECT_EQ(errorOffset("{1:2}"), 1);
  EXPECT_EQ(errorOffset("01"), 1);
  EXPECT_EQ(errorOffset("1."), 2);
  EXPECT_EQ(errorOffset("-"), 1);
  EXPECT_EQ(errorOffset("1e"), 2);
  EXPECT_EQ(errorOffset("tru"), 0);
  EXPECT_EQ(errorOffset("nul"), 0);
  EXPECT_EQ(errorOffset("\"abc"), 4);
  EXPECT_EQ(errorOffset("\"a\\x\""), 3);
  EXPECT_EQ(errorOffset("\"\\u12G4\""), 5);
  EXPECT_EQ(errorOffset("\"\\udc00\""), 3);
  EXPECT_EQ(errorOffset("\"\\ud800x\""), 7);
  EXPECT_EQ(errorOffset("\"a\nb\""), 2);
  EXPECT_EQ(errorOffset("[1] 2"), 4);
  EXPECT_EQ(errorOffset("NaN"), 0);
}

TEST(Json, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  EXPECT_THROW(Json::parse(deep), Error);
  std::string ok(200, '[');
  ok += std::string(200, ']');
  EXPECT_NO_THROW(Json::parse(ok));
}

TEST(Json, EveryPrefixOfAValidDocumentFailsCleanly) {
  std::string text = R"({"a":[1,2.5,{"b":"c\u0041"}],"d":null,"e":true})";
  ASSERT_NO_THROW(Json::parse(text));
  for (size_t n = 0; n < text.size(); ++n) {
    EXPECT_THROW(Json::parse(text.substr(0, n)), Error) << n;
  }
}

TEST(Json, AccessorsNameExpectedAndActualKinds) {
  Json j = Json::parse(R"({"a":"x","n":[1]})");
  try {
    j.at("a").asInt();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected an integer, got a string"), std::string::npos)
        << e.what();
  }
  try {
    j.at("missing");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'missing'"), std::string::npos);
  }
  EXPECT_THROW(j.at("n").asObject(), Error);
  EXPECT_THROW(Json(3)["x"], Error);
  EXPECT_THROW(Json("s").size(), Error);
  EXPECT_TRUE(j.contains("n"));
  EXPECT_FALSE(Json(1).contains("n"));
  EXPECT_DOUBLE_EQ(j.at("n")[0].asDouble(), 1.0);
}

TEST(Json, PushAndIndexBuildContainersFromNull) {
  Json arr;
  arr.push(1);
  arr.push("two");
  EXPECT_EQ(arr.size(), 2u);
  EXPECT_EQ(arr.dump(), R"([1,"two"])");
  Json obj;
  obj["k"] = 1.5;
  EXPECT_EQ(obj.dump(), R"({"k":1.5})");
  EXPECT_THROW(obj.push(1), Error);
}

TEST(Json, IndexOutOfRangeIsAnError) {
  Json arr = Json::parse("[1,2,3]");
  arr[1] = "two";
  EXPECT_EQ(arr.dump(), R"([1,"two",3])");
  try {
    arr[3];
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 3 is out of range for an array of 3"),
              std::string::npos)
        << e.what();
  }
  const Json& c = arr;
  EXPECT_THROW(c[7], Error);
  EXPECT_THROW(Json::parse("{}")[0], Error);
}

TEST(Json, NonFiniteDoublesWriteAsNull) {
  EXPECT_EQ(Json(std::numeric_limits<double>::infinity()).dump(), "null");
  EXPECT_EQ(Json(std::nan("")).dump(), "null");
}

}  // namespace
}  // namespace kiln
