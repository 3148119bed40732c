// Sizes as constants, polynomials in symbols, or unknown: the arithmetic rules compute with.
#include "kiln/opdef/dim.h"

#include <gtest/gtest.h>

#include "kiln/opdef/dim_bounds.h"
#include "kiln/support/error.h"

namespace kiln::opdef {
namespace {

Dim sym(const char* name) { return Dim::symbol(name); }

TEST(Dim, EqualSizesWrittenDifferentlyCompareEqual) {
  Dim a = sym("seq") + sym("past");
  Dim b = sym("past") + sym("seq");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.str(), "past+seq");
  EXPECT_EQ((sym("seq") * 2 - sym("seq")), sym("seq"));
  EXPECT_EQ(((sym("b") + 1) * (sym("b") - 1)).str(), "b*b-1");
  EXPECT_TRUE((sym("seq") - sym("seq")).isConst());
  EXPECT_EQ((sym("seq") - sym("seq")).value(), 0);
  EXPECT_NE(sym("seq"), sym("past"));
  EXPECT_EQ((Dim(3) * 4 + 1).value(), 13);
}

TEST(Dim, UnknownSizesStayUnknownAndAreNeverKnownEqual) {
  Dim u = Dim::unknown();
  EXPECT_TRUE((u + 1).isUnknown());
  EXPECT_TRUE((sym("seq") * u).isUnknown());
  EXPECT_FALSE(sameSize(u, u));
  EXPECT_TRUE(sameSize(sym("s") * 2, sym("s") + sym("s")));
  EXPECT_TRUE(Dim::fromShape(-1).isUnknown());
  EXPECT_EQ(Dim::fromShape(5).value(), 5);
  EXPECT_EQ(Dim(-1).value(), -1);  // a shape value such as Reshape's -1 is not an unknown
  EXPECT_EQ(u.valueOr(-1), -1);
  EXPECT_EQ(sym("seq").valueOr(-1), -1);
  EXPECT_THROW(sym("seq").value(), Error);
}

TEST(Dim, DividesOnlyWhereTheQuotientIsExact) {
  Dim total = sym("batch") * sym("seq") * 768;
  EXPECT_EQ(Dim::divideExactly(total, Dim(768)), sym("batch") * sym("seq"));
  EXPECT_EQ(Dim::divideExactly(total, sym("seq") * 12), sym("batch") * 64);
  EXPECT_EQ(Dim::divideExactly(sym("s") + 1, sym("s") + 1), Dim(1));
  EXPECT_EQ(Dim::divideExactly(Dim(12), Dim(4)), Dim(3));
  EXPECT_FALSE(Dim::divideExactly(Dim(12), Dim(5)));
  EXPECT_FALSE(Dim::divideExactly(sym("s") * 3 + 1, Dim(3)));
  EXPECT_FALSE(Dim::divideExactly(sym("s"), sym("t")));
  EXPECT_FALSE(Dim::divideExactly(sym("s"), Dim(0)));
  EXPECT_FALSE(Dim::divideExactly(sym("s"), sym("t") + 1));
}

TEST(Dim, RangesFollowTheBoundsAndTheSigns) {
  DimBounds bounds{{"seq", {1, 1024}}, {"past", {0, 1023}}, {"batch", {1, 8}}};
  EXPECT_EQ((sym("seq") + sym("past")).range(bounds), (SizeRange{1, 2047}));
  EXPECT_EQ((sym("batch") * sym("seq") * 2).range(bounds), (SizeRange{2, 16384}));
  EXPECT_EQ((Dim(1024) - sym("seq")).range(bounds), (SizeRange{0, 1023}));
  EXPECT_EQ(Dim(7).range({}), (SizeRange{7, 7}));
  EXPECT_FALSE(sym("heads").range(bounds));
  EXPECT_FALSE(Dim::unknown().range(bounds));
}

TEST(Dim, EvaluatesForOneRunsValues) {
  Dim d = sym("batch") * sym("seq") * 12 + sym("past") - 1;
  EXPECT_EQ(d.evaluate({{"batch", 2}, {"seq", 5}, {"past", 7}}), 126);
  std::string msg;
  try {
    d.evaluate({{"batch", 2}, {"seq", 5}});
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("symbol 'past' has no value"), std::string::npos) << msg;
  EXPECT_THROW((sym("a") * sym("b")).evaluate({{"a", int64_t{1} << 40}, {"b", int64_t{1} << 40}}),
               Error);
  EXPECT_THROW(Dim(int64_t{1} << 62) * 4, Error);
}

TEST(Dim, ParsesWhatItPrints) {
  for (const Dim& d :
       {Dim(0), Dim(42), Dim(-3), sym("seq"), sym("past") + sym("seq") + 1,
        sym("batch") * sym("seq") * 2 - 1, Dim(5) - sym("x") * sym("x"), Dim::unknown()}) {
    EXPECT_EQ(Dim::parse(d.str()), d) << d.str();
  }
  EXPECT_EQ(Dim::parse("2*seq*3"), sym("seq") * 6);
  for (const char* bad : {"", "seq+", "2**s", "s-+1", "3seq", "s q", "é"}) {
    EXPECT_THROW(Dim::parse(bad), Error) << bad;
  }
}

TEST(Dim, SymbolNamesAreIdentifiers) {
  EXPECT_TRUE(isSymbolName("sequence_length"));
  EXPECT_TRUE(isSymbolName("_b2"));
  for (const char* bad : {"", "2x", "past + 1", "a-b", "x.y"}) EXPECT_FALSE(isSymbolName(bad));
  std::string msg;
  try {
    Dim::symbol("past + 1");
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("'past + 1' is not a symbol name"), std::string::npos) << msg;
}

std::string boundsError(const std::string& text) {
  try {
    parseDimBounds(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(DimBounds, ReadWhatTheyWrite) {
  DimBounds b = parseDimBounds(" seq<=1024 ,1<= batch <=8,past<=0");
  EXPECT_EQ(b, (DimBounds{{"seq", {0, 1024}}, {"batch", {1, 8}}, {"past", {0, 0}}}));
  EXPECT_EQ(dimBoundsStr(b), "1<=batch<=8, past<=0, seq<=1024");
  EXPECT_EQ(parseDimBounds(dimBoundsStr(b)), b);
  EXPECT_TRUE(parseDimBounds("  ").empty());
}

TEST(DimBounds, BadEntriesSayWhatWasExpected) {
  EXPECT_NE(boundsError("seq").find("'seq': expected one or two '<='"), std::string::npos);
  EXPECT_NE(boundsError("seq<=-1").find("'-1' is not a whole number"), std::string::npos);
  EXPECT_NE(boundsError("seq<=2000000000000").find("from 0 to 2^40"), std::string::npos);
  EXPECT_NE(boundsError("9<=seq<=8").find("the minimum 9 is above the maximum 8"),
            std::string::npos);
  EXPECT_NE(boundsError("s q<=4").find("'s q' is not a symbol name"), std::string::npos);
  EXPECT_NE(boundsError("a<=1,a<=2").find("'a' is bounded twice"), std::string::npos);
  EXPECT_NE(boundsError("a<=1,,b<=2").find("expected NAME<=MAX or MIN<=NAME<=MAX"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::opdef
