// A tensor dimension's size as the compiler knows it: a constant, a polynomial in named symbols
// (sizes fixed at run time within declared bounds, such as a sequence length), or unknown (a size
// only the data decides). Rules compute with Dims, so one rule gives exact sizes at run time and
// symbolic ones at compile time; the integers a shape computation passes along (Shape's output,
// Reshape's target) are Dims too, and may be negative on their way.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::opdef {

// The sizes a symbol may take: MIN <= size <= MAX.
struct SizeRange {
  int64_t min = 0;
  int64_t max = 0;
  bool operator==(const SizeRange&) const = default;
};
// Each symbol's range, by name.
using DimBounds = std::map<std::string, SizeRange>;
// Each symbol's size in one run, by name.
using DimValues = std::map<std::string, int64_t>;

class Dim {
 public:
  // One term of a polynomial: COEF times the product of FACTORS (symbol names, sorted, repeated
  // for powers; empty for the constant term).
  struct Term {
    std::vector<std::string> factors;
    int64_t coef = 0;
    bool operator==(const Term&) const = default;
  };

  Dim() = default;  // the constant 0
  Dim(int64_t v);   // NOLINT(google-explicit-constructor): the constant V
  // Out of line: the runtime's ops copy Dims in every rule, and inlined reference counting of
  // symbolic sizes they never see would make that code larger.
  Dim(const Dim& o);
  Dim(Dim&& o) noexcept;
  Dim& operator=(const Dim& o);
  Dim& operator=(Dim&& o) noexcept;
  ~Dim();
  static Dim symbol(const std::string& name);  // NAME must be a valid symbol name
  static Dim unknown();
  // A dim of a shape written with kUnknownDim (-1) for a size not known now.
  static Dim fromShape(int64_t size);

  bool isConst() const { return !unknown_ && !terms_; }
  bool isUnknown() const { return unknown_; }
  bool isSymbolic() const { return terms_ != nullptr; }
  // The constant's value; kiln::Error when the size is not a constant.
  int64_t value() const;
  // The constant's value, else OTHER (kUnknownDim where code needs the sizes known now).
  int64_t valueOr(int64_t other) const { return isConst() ? value_ : other; }
  // The terms, highest degree first, the constant last (empty for 0 and for an unknown).
  std::vector<Term> terms() const;
  std::vector<std::string> symbols() const;  // sorted, each once

  // Arithmetic on sizes; an unknown operand gives an unknown. Overflow of a coefficient or a
  // constant is a kiln::Error.
  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  // A / B when B divides A exactly as polynomials (B a constant or a single term, or A == B);
  // nullopt otherwise, and for an unknown operand or a zero B.
  static std::optional<Dim> divideExactly(const Dim& a, const Dim& b);

  // The least and greatest size over the symbols' BOUNDS; nullopt for an unknown or a symbol
  // without bounds.
  std::optional<SizeRange> range(const DimBounds& bounds) const;
  // The size for VALUES of the symbols; kiln::Error naming a missing symbol or an overflow.
  int64_t evaluate(const DimValues& values) const;

  // "7", "seq", "past+seq", "2*batch*seq-1", "?" for an unknown. parse reads what str writes
  // (integers, symbol names, '+', '-', '*'); kiln::Error naming the text otherwise.
  std::string str() const;
  static Dim parse(const std::string& text);

  // The symbol's name when the size is exactly one symbol ("seq"), else empty.
  std::string symbolName() const;

  // Structural equality: polynomials are kept in one canonical form, so equal sizes compare
  // equal; two unknowns compare equal here (use sameSize to ask whether sizes are known equal).
  bool operator==(const Dim& o) const;
  bool operator!=(const Dim& o) const { return !(*this == o); }

 private:
  static Dim fromTerms(std::vector<Term> terms);    // canonicalises; a constant becomes one
  std::shared_ptr<const std::vector<Term>> terms_;  // null for a constant or an unknown
  int64_t value_ = 0;
  bool unknown_ = false;
};

using DimList = std::vector<Dim>;

// Whether A and B are known to be the same size (both known, and equal).
bool sameSize(const Dim& a, const Dim& b);
// Whether NAME is a valid symbol name: a letter or '_', then letters, digits and '_'.
bool isSymbolName(const std::string& name);

}  // namespace kiln::opdef
