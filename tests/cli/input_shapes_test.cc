// --input-shapes parsing: the forms users write, the mistakes they make, and arguments long
// enough to have overflowed the stack of the std::regex parser this replaced.
#include "input_shapes.h"

#include <gtest/gtest.h>

#include <string>

#include "exit_codes.h"

namespace kiln::cli {
namespace {

using Shapes = std::map<std::string, opdef::DimList>;

std::string usageMessage(const std::string& text) {
  try {
    parseInputShapes(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "'" << text << "' parsed without an error";
  return "";
}

TEST(InputShapes, ParsesEntriesSeparatedBySpacesOrCommas) {
  EXPECT_EQ(parseInputShapes("x:[1,3,224,224]"), (Shapes{{"x", {1, 3, 224, 224}}}));
  EXPECT_EQ(parseInputShapes("  a:[2, 3]   b:[] "), (Shapes{{"a", {2, 3}}, {"b", {}}}));
  EXPECT_EQ(parseInputShapes("a:[4], b:[ 5 ]"), (Shapes{{"a", {4}}, {"b", {5}}}));
  EXPECT_EQ(parseInputShapes("ns:x:[7]"), (Shapes{{"ns:x", {7}}}));
  EXPECT_EQ(parseInputShapes(""), Shapes{});
  EXPECT_EQ(parseInputShapes("   "), Shapes{});
}

TEST(InputShapes, RejectsMalformedEntriesNamingThem) {
  EXPECT_NE(usageMessage("x:[3,4").find("no closing ']'"), std::string::npos);
  EXPECT_NE(usageMessage("x[3]").find("no ':['"), std::string::npos);
  EXPECT_NE(usageMessage(":[3]").find("the name is empty"), std::string::npos);
  EXPECT_NE(usageMessage("x:[3 4]").find("separated by commas"), std::string::npos);
  EXPECT_NE(usageMessage("x:[3,]").find("not followed by a dimension"), std::string::npos);
  EXPECT_NE(usageMessage("x:[3,,4]").find("'' is neither a number"), std::string::npos);
  EXPECT_NE(usageMessage("x:[-1]").find("'-1' is neither a number"), std::string::npos);
  EXPECT_NE(usageMessage("x:[1,2seq]").find("nor a symbol name"), std::string::npos);
  EXPECT_NE(usageMessage("x:[4611686018427387904]").find("between 0 and 2^62"), std::string::npos);
  EXPECT_NE(usageMessage("x:[1] x:[2]").find("'x' is given twice"), std::string::npos);
  EXPECT_NE(usageMessage("x:[1] y").find("cannot parse 'y'"), std::string::npos);
}

TEST(InputShapes, ADimMayBeASymbolsName) {
  EXPECT_EQ(parseInputShapes("ids:[1,seq] mask:[batch, seq]"),
            (Shapes{{"ids", {1, opdef::Dim::symbol("seq")}},
                    {"mask", {opdef::Dim::symbol("batch"), opdef::Dim::symbol("seq")}}}));
}

TEST(InputShapes, DimBoundsErrorsAreUsageErrors) {
  EXPECT_EQ(parseDimBoundsOption("seq<=1024, 1<=batch<=8"),
            (opdef::DimBounds{{"seq", {0, 1024}}, {"batch", {1, 8}}}));
  std::string msg;
  try {
    parseDimBoundsOption("seq<1024");
  } catch (const UsageError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("--dim-bounds: dim bound 'seq<1024': expected one or two '<='"),
            std::string::npos)
      << msg;
}

TEST(InputShapes, LongArgumentsParseWithoutExhaustingTheStack) {
  std::string dims;
  for (int i = 0; i < 200000; ++i) dims += i == 0 ? "1" : ",1";
  EXPECT_EQ(parseInputShapes("x:[" + dims + "]").at("x").size(), 200000u);
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "input" + std::to_string(i) + ":[1,2] ";
  EXPECT_EQ(parseInputShapes(many).size(), 20000u);
  std::string name(1 << 20, 'n');
  EXPECT_NE(usageMessage(name).find("no ':['"), std::string::npos);
}

}  // namespace
}  // namespace kiln::cli
