// A model's symbols (sizes fixed when its inputs are given, within declared bounds) and the sizes
// written in them, as the graph metadata carries them: the core evaluates them without the
// compiler's algebra.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/support/json.h"

namespace kiln::runtime {

struct GraphSymbol {
  std::string name;
  int64_t min = 0;
  int64_t max = 0;
};

// One dim: the sum of TERMS, each [coefficient, symbol id, symbol id, ...] (the product of the
// coefficient and the symbols' sizes); a constant is one term with no symbols.
struct SymbolicDim {
  std::vector<std::vector<int64_t>> terms;

  // The symbol's id when the dim is exactly one symbol, else -1.
  int64_t singleSymbol() const;
  // A size written in symbols other than one symbol alone (past+seq): what the others give it.
  bool derived() const;
  // The size for VALUES (by symbol id); kiln::Error on overflow.
  int64_t evaluate(const std::vector<int64_t>& values) const;
  std::string str(const std::vector<GraphSymbol>& symbols) const;  // "past+seq"
};

// Checks SHAPE, the shape given for tensor NAME with DIMS, against the bounds of the symbols its
// dims are: kiln::Error naming the dim, the symbol, the value and the bound. FUNCTION starts the
// message ("set_input").
void checkSymbolBounds(const char* function, const std::string& name,
                       const std::vector<SymbolicDim>& dims, const std::vector<int64_t>& shape,
                       const std::vector<GraphSymbol>& symbols);

// Symbol values, taken from the inputs that have them as dims; each symbol takes one value. An
// executor keeps one and starts it again every run, so sizing the symbols allocates nothing.
class SymbolBinder {
 public:
  explicit SymbolBinder(const std::vector<GraphSymbol>& symbols)
      : symbols_(symbols), values_(symbols.size(), -1), from_(symbols.size(), nullptr) {}
  void restart();  // every symbol unsized again
  // Takes the symbols of input NAME (DIMS) from its SHAPE; kiln::Error when a symbol already took
  // another value from another input. NAME must outlive the run (the plan's tensor name).
  void bind(const std::string& name, const std::vector<SymbolicDim>& dims,
            const std::vector<int64_t>& shape);
  // Checks the dims of input NAME that other inputs' symbols give (past+seq) against its SHAPE,
  // once every input is bound: kiln::Error naming the dim, its value and the symbols'.
  void check(const std::string& name, const std::vector<SymbolicDim>& dims,
             const std::vector<int64_t>& shape) const;
  const std::vector<int64_t>& values() const { return values_; }

 private:
  const std::vector<GraphSymbol>& symbols_;
  std::vector<int64_t> values_;
  std::vector<const std::string*> from_;  // the input each value came from
};

// Reads "symbols": [{"name", "min", "max"}]; kiln::Error for a bad entry.
std::vector<GraphSymbol> readSymbols(const Json& symbols);
// Reads one tensor's "dims": per dim an integer, or a list of terms over NUM_SYMBOLS symbols.
std::vector<SymbolicDim> readSymbolicDims(const Json& dims, size_t numSymbols);

}  // namespace kiln::runtime
