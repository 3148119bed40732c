// Evaluates and reads sizes written in a model's symbols.
#include "symbolic_dims.h"

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::runtime {

int64_t SymbolicDim::singleSymbol() const {
  if (terms.size() != 1 || terms[0].size() != 2 || terms[0][0] != 1) return -1;
  return terms[0][1];
}

bool SymbolicDim::derived() const {
  bool constant = terms.empty() || (terms.size() == 1 && terms[0].size() == 1);
  return !constant && singleSymbol() < 0;
}

int64_t SymbolicDim::evaluate(const std::vector<int64_t>& values) const {
  int64_t sum = 0;
  for (const std::vector<int64_t>& term : terms) {
    int64_t product = term[0];
    for (size_t i = 1; i < term.size(); ++i) {
      if (__builtin_mul_overflow(product, values[term[i]], &product)) {
        throw Error("a symbolic size overflows");
      }
    }
    if (__builtin_add_overflow(sum, product, &sum)) throw Error("a symbolic size overflows");
  }
  return sum;
}

std::string SymbolicDim::str(const std::vector<GraphSymbol>& symbols) const {
  std::string s;
  for (const std::vector<int64_t>& term : terms) {
    int64_t coef = term[0];
    s += coef < 0 ? "-" : s.empty() ? "" : "+";
    std::string product = (coef != 1 && coef != -1) || term.size() == 1
                              ? std::to_string(coef < 0 ? -coef : coef)
                              : std::string();
    for (size_t i = 1; i < term.size(); ++i) {
      product += (product.empty() ? "" : "*") + symbols[term[i]].name;
    }
    s += product;
  }
  return s.empty() ? "0" : s;
}

void checkSymbolBounds(const char* function, const std::string& name,
                       const std::vector<SymbolicDim>& dims, const std::vector<int64_t>& shape,
                       const std::vector<GraphSymbol>& symbols) {
  for (size_t axis = 0; axis < dims.size() && axis < shape.size(); ++axis) {
    int64_t s = dims[axis].singleSymbol();
    if (s < 0) continue;
    const GraphSymbol& sym = symbols[s];
    if (shape[axis] < sym.min || shape[axis] > sym.max) {
      throw Error(strCat(function, "('", name, "'): dim ", axis, " is '", sym.name, "', ",
                         shape[axis], " here, outside its bounds ", sym.min, "<=", sym.name,
                         "<=", sym.max,
                         " (the model was compiled for them; recompile with a "
                         "wider --dim-bounds)"));
    }
  }
}

void SymbolBinder::restart() {
  std::fill(values_.begin(), values_.end(), -1);
  std::fill(from_.begin(), from_.end(), nullptr);
}

void SymbolBinder::bind(const std::string& name, const std::vector<SymbolicDim>& dims,
                        const std::vector<int64_t>& shape) {
  for (size_t axis = 0; axis < dims.size() && axis < shape.size(); ++axis) {
    int64_t s = dims[axis].singleSymbol();
    if (s < 0) continue;
    if (values_[s] >= 0 && values_[s] != shape[axis]) {
      throw Error(strCat("run(): input '", name, "' has '", symbols_[s].name, "' = ", shape[axis],
                         " (dim ", axis, "), but input '", *from_[s], "' has it = ", values_[s],
                         "; a symbol takes one size per run"));
    }
    values_[s] = shape[axis];
    from_[s] = &name;
  }
}

void SymbolBinder::check(const std::string& name, const std::vector<SymbolicDim>& dims,
                         const std::vector<int64_t>& shape) const {
  for (size_t axis = 0; axis < dims.size() && axis < shape.size(); ++axis) {
    if (!dims[axis].derived()) continue;
    int64_t want = dims[axis].evaluate(values_);
    if (shape[axis] == want) continue;
    std::string sizes;
    for (const std::vector<int64_t>& term : dims[axis].terms) {
      for (size_t i = 1; i < term.size(); ++i) {
        sizes += strCat(sizes.empty() ? "" : ", ", symbols_[term[i]].name, " = ", values_[term[i]]);
      }
    }
    throw Error(strCat("run(): input '", name, "' dim ", axis, " is ", dims[axis].str(symbols_),
                       " = ", want, " in this run (", sizes, "), but it was given ", shape[axis]));
  }
}

std::vector<GraphSymbol> readSymbols(const Json& symbols) {
  std::vector<GraphSymbol> out;
  for (const Json& s : symbols.asArray()) {
    GraphSymbol g{s.at("name").asString(), s.at("min").asInt(), s.at("max").asInt()};
    if (g.name.empty() || g.min < 0 || g.min > g.max) {
      throw Error(strCat("symbol '", g.name, "' has bounds ", g.min, "..", g.max,
                         "; expected a name and 0 <= min <= max"));
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<SymbolicDim> readSymbolicDims(const Json& dims, size_t numSymbols) {
  std::vector<SymbolicDim> out;
  for (const Json& d : dims.asArray()) {
    SymbolicDim dim;
    if (d.isInt()) {
      dim.terms.push_back({d.asInt()});
    } else {
      for (const Json& t : d.asArray()) {
        std::vector<int64_t> term;
        for (const Json& x : t.asArray()) term.push_back(x.asInt());
        if (term.empty()) throw Error("a symbolic size has an empty term");
        for (size_t i = 1; i < term.size(); ++i) {
          if (term[i] < 0 || static_cast<size_t>(term[i]) >= numSymbols) {
            throw Error(strCat("symbol id ", term[i], " is out of range [0, ", numSymbols, ")"));
          }
        }
        dim.terms.push_back(std::move(term));
      }
    }
    out.push_back(std::move(dim));
  }
  return out;
}

}  // namespace kiln::runtime
