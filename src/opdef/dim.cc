// Sizes as constants, polynomials in named symbols, or unknown; kept in one canonical form so that
// equal sizes compare equal.
#include "kiln/opdef/dim.h"

#include <algorithm>
#include <cctype>

#include "kiln/support/error.h"

namespace kiln::opdef {
namespace {

using Term = Dim::Term;

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error(strCat("size ", a, " + ", b, " overflows"));
  return r;
}

int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw Error(strCat("size ", a, " * ", b, " overflows"));
  return r;
}

// Higher degree first, then by factor names; the constant term (no factors) comes last.
bool termBefore(const Term& a, const Term& b) {
  if (a.factors.size() != b.factors.size()) return a.factors.size() > b.factors.size();
  return a.factors < b.factors;
}

// The terms of A, or the constant term of a constant.
std::vector<Term> termsOf(const Dim& d) { return d.terms(); }

// FACTORS with one copy of each of SUB's removed; nullopt when SUB is not contained in it.
std::optional<std::vector<std::string>> removeFactors(const std::vector<std::string>& factors,
                                                      const std::vector<std::string>& sub) {
  std::vector<std::string> rest;
  if (!std::includes(factors.begin(), factors.end(), sub.begin(), sub.end())) return std::nullopt;
  std::set_difference(factors.begin(), factors.end(), sub.begin(), sub.end(),
                      std::back_inserter(rest));
  return rest;
}

// Reads sizes written by Dim::str: sums of products of integers and symbol names.
class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Dim parse() {
    if (text_ == "?") return Dim::unknown();
    Dim sum = signedProduct();
    while (pos_ < text_.size()) {
      char op = text_[pos_];
      if (op != '+' && op != '-') fail("expected '+', '-' or '*'");
      ++pos_;
      Dim term = product();
      sum = op == '+' ? sum + term : sum - term;
    }
    return sum;
  }

 private:
  Dim signedProduct() {
    if (pos_ < text_.size() && text_[pos_] == '-') {
      ++pos_;
      return Dim(0) - product();
    }
    return product();
  }

  Dim product() {
    Dim p = factor();
    while (pos_ < text_.size() && text_[pos_] == '*') {
      ++pos_;
      p = p * factor();
    }
    return p;
  }

  Dim factor() {
    size_t start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        v = checkedAdd(checkedMul(v, 10), text_[pos_++] - '0');
      }
      return Dim(v);
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    std::string name = text_.substr(start, pos_ - start);
    if (!isSymbolName(name)) fail("expected an integer or a symbol name");
    return Dim::symbol(name);
  }

  [[noreturn]] void fail(const char* what) const {
    throw Error(strCat("size '", text_, "': ", what, " at offset ", pos_));
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

Dim::Dim(int64_t v) : value_(v) {}
Dim::Dim(const Dim& o) = default;
Dim::Dim(Dim&& o) noexcept = default;
Dim& Dim::operator=(const Dim& o) = default;
Dim& Dim::operator=(Dim&& o) noexcept = default;
Dim::~Dim() = default;

Dim Dim::symbol(const std::string& name) {
  if (!isSymbolName(name)) {
    throw Error(strCat("'", name,
                       "' is not a symbol name; expected a letter or '_', then letters, ",
                       "digits and '_'"));
  }
  return fromTerms({Term{{name}, 1}});
}

Dim Dim::unknown() {
  Dim d;
  d.unknown_ = true;
  return d;
}

Dim Dim::fromShape(int64_t size) { return size == -1 ? unknown() : Dim(size); }

int64_t Dim::value() const {
  if (!isConst()) throw Error(strCat("size ", str(), " is not known until run time"));
  return value_;
}

std::vector<Term> Dim::terms() const {
  if (terms_) return *terms_;
  if (unknown_ || value_ == 0) return {};
  return {Term{{}, value_}};
}

std::vector<std::string> Dim::symbols() const {
  std::vector<std::string> names;
  for (const Term& t : terms()) names.insert(names.end(), t.factors.begin(), t.factors.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Dim Dim::fromTerms(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(), termBefore);
  std::vector<Term> merged;
  for (Term& t : terms) {
    if (!merged.empty() && merged.back().factors == t.factors) {
      merged.back().coef = checkedAdd(merged.back().coef, t.coef);
    } else {
      merged.push_back(std::move(t));
    }
  }
  std::erase_if(merged, [](const Term& t) { return t.coef == 0; });
  Dim d;
  if (merged.empty()) return d;
  if (merged.size() == 1 && merged[0].factors.empty()) {
    d.value_ = merged[0].coef;
    return d;
  }
  d.terms_ = std::make_shared<const std::vector<Term>>(std::move(merged));
  return d;
}

Dim operator+(const Dim& a, const Dim& b) {
  if (a.unknown_ || b.unknown_) return Dim::unknown();
  if (a.isConst() && b.isConst()) return Dim::fromTerms({Term{{}, checkedAdd(a.value_, b.value_)}});
  std::vector<Term> terms = termsOf(a);
  for (const Term& t : termsOf(b)) terms.push_back(t);
  return Dim::fromTerms(std::move(terms));
}

Dim operator-(const Dim& a, const Dim& b) {
  if (a.unknown_ || b.unknown_) return Dim::unknown();
  std::vector<Term> terms = termsOf(a);
  for (Term t : termsOf(b)) {
    t.coef = checkedMul(t.coef, -1);
    terms.push_back(std::move(t));
  }
  return Dim::fromTerms(std::move(terms));
}

Dim operator*(const Dim& a, const Dim& b) {
  if (a.unknown_ || b.unknown_) return Dim::unknown();
  std::vector<Term> terms;
  for (const Term& x : termsOf(a)) {
    for (const Term& y : termsOf(b)) {
      Term t{x.factors, checkedMul(x.coef, y.coef)};
      t.factors.insert(t.factors.end(), y.factors.begin(), y.factors.end());
      std::sort(t.factors.begin(), t.factors.end());
      terms.push_back(std::move(t));
    }
  }
  return Dim::fromTerms(std::move(terms));
}

std::optional<Dim> Dim::divideExactly(const Dim& a, const Dim& b) {
  if (a.unknown_ || b.unknown_ || b == Dim(0)) return std::nullopt;
  if (a == b) return Dim(1);
  std::vector<Term> divisor = termsOf(b);
  if (divisor.size() != 1) return std::nullopt;
  std::vector<Term> quotient;
  for (const Term& t : termsOf(a)) {
    auto rest = removeFactors(t.factors, divisor[0].factors);
    if (!rest || t.coef % divisor[0].coef != 0) return std::nullopt;
    quotient.push_back(Term{std::move(*rest), t.coef / divisor[0].coef});
  }
  return fromTerms(std::move(quotient));
}

std::optional<SizeRange> Dim::range(const DimBounds& bounds) const {
  if (unknown_) return std::nullopt;
  SizeRange sum{0, 0};
  for (const Term& t : terms()) {
    SizeRange product{t.coef, t.coef};
    for (const std::string& name : t.factors) {
      auto it = bounds.find(name);
      if (it == bounds.end()) return std::nullopt;
      // Symbols are sizes (>= 0), so the product's ends are the ends' products, in an order
      // the coefficient's sign decides.
      product = SizeRange{checkedMul(product.min, it->second.min),
                          checkedMul(product.max, it->second.max)};
    }
    if (t.coef < 0) std::swap(product.min, product.max);
    sum = SizeRange{checkedAdd(sum.min, product.min), checkedAdd(sum.max, product.max)};
  }
  return sum;
}

int64_t Dim::evaluate(const DimValues& values) const {
  if (unknown_) throw Error("an unknown size cannot be evaluated");
  int64_t sum = 0;
  for (const Term& t : terms()) {
    int64_t product = t.coef;
    for (const std::string& name : t.factors) {
      auto it = values.find(name);
      if (it == values.end())
        throw Error(strCat("size ", str(), ": symbol '", name, "' has no value"));
      product = checkedMul(product, it->second);
    }
    sum = checkedAdd(sum, product);
  }
  return sum;
}

std::string Dim::str() const {
  if (unknown_) return "?";
  if (!terms_) return std::to_string(value_);
  std::string s;
  for (const Term& t : *terms_) {
    int64_t magnitude = t.coef < 0 ? -t.coef : t.coef;
    if (t.coef < 0) s += "-";
    if (t.coef > 0 && !s.empty()) s += "+";
    std::string product = magnitude != 1 || t.factors.empty() ? std::to_string(magnitude) : "";
    for (const std::string& f : t.factors) product += (product.empty() ? "" : "*") + f;
    s += product;
  }
  return s;
}

Dim Dim::parse(const std::string& text) { return Parser(text).parse(); }

std::string Dim::symbolName() const {
  if (!terms_ || terms_->size() != 1) return "";
  const Term& t = terms_->front();
  return t.coef == 1 && t.factors.size() == 1 ? t.factors[0] : "";
}

bool Dim::operator==(const Dim& o) const {
  if (unknown_ || o.unknown_) return unknown_ == o.unknown_;
  if (!terms_ || !o.terms_) return !terms_ && !o.terms_ && value_ == o.value_;
  return *terms_ == *o.terms_;
}

bool sameSize(const Dim& a, const Dim& b) { return !a.isUnknown() && !b.isUnknown() && a == b; }

bool isSymbolName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace kiln::opdef
