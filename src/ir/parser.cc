// Reads the IR text form (see printer.h and parser.h) back into a graph, checking names, counts
// and types as it goes so a test's typo is reported at its line and column.
#include "kiln/ir/parser.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

#include "element_access.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/random_tensor.h"
#include "kiln/opdef/dim_bounds.h"
#include "kiln/support/error.h"
#include "text_syntax.h"

namespace kiln::ir {

namespace {

struct Number {
  std::string text;
  bool isFloat = false;
  size_t pos = 0;
};

struct Def {
  std::string name;
  size_t pos = 0;
};

// random() makes test weights; 2^26 elements (256 MiB of float32) is beyond any test's needs, and
// the cap keeps a typo in a shape from asking for terabytes.
constexpr int64_t kMaxRandomElements = int64_t{1} << 26;

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text), graph_(std::make_unique<Graph>()) {}
  void setOps(std::shared_ptr<const OpRegistry> ops) { graph_->setOps(std::move(ops)); }

  TensorType parseTypeOnly() {
    TensorType t = readType();
    skipSpace();
    if (!atEnd()) failHere("expected the end of the type");
    return t;
  }

  std::unique_ptr<Graph> parse() {
    parseGraphText("at the start of the text");
    skipSpace();
    if (!atEnd()) failHere("expected the end of the text after the graph");
    return std::move(graph_);
  }

 private:
  const std::string& text_;
  size_t pos_ = 0;
  std::unique_ptr<Graph> graph_;
  std::unordered_map<std::string, Value*> values_;

  // "graph NAME(inputs) [opset N] [dims "BOUNDS"] { statements return outputs }" from pos_ on.
  void parseGraphText(const char* where) {
    skipSpace();
    expectKeyword("graph", where);
    graph_->name = readName("the graph name");
    expect('(', "after the graph name");
    if (!consume(')')) {
      do {
        Def def = readValueDef();
        expect(':', "after an input name");
        Value* v = graph_->addInput(def.name, readType());
        define(def, v);
      } while (consume(','));
      expect(')', "after the graph inputs");
    }
    if (peekKeyword("opset")) {
      readIdent("opset");
      graph_->opsetVersion = readInt("the opset version");
    }
    if (peekKeyword("dims")) {
      readIdent("dims");
      size_t start = pos_;
      try {
        graph_->dimBounds = opdef::parseDimBounds(readString());
      } catch (const Error& e) {
        failAt(start, e.what());
      }
    }
    expect('{', "to open the graph body");
    while (!peekKeyword("return")) {
      skipSpace();
      if (atEnd() || text_[pos_] == '}') failHere("expected a statement or 'return'");
      parseStatement();
    }
    readIdent("return");
    skipSpace();
    if (!atEnd() && text_[pos_] == '%') {
      do graph_->outputs().push_back(readValueRef());
      while (consume(','));
    }
    expect('}', "after the return statement");
  }

  // A subgraph attribute: a graph of its own (its own names) written inside the node.
  GraphAttr readSubgraph() {
    Parser sub(text_);
    sub.pos_ = pos_;
    sub.setOps(graph_->opsPtr());
    sub.parseGraphText("at the start of a subgraph");
    pos_ = sub.pos_;
    return GraphAttr(std::move(sub.graph_));
  }

  // ---- errors and positions ----

  template <typename... Args>
  [[noreturn]] void failAt(size_t pos, Args&&... args) const {
    size_t line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < pos && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    }
    throw Error(strCat("line ", line, ":", pos - lineStart + 1, ": ", std::forward<Args>(args)...));
  }

  template <typename... Args>
  [[noreturn]] void failHere(Args&&... args) {
    skipSpace();
    failAt(pos_, std::forward<Args>(args)..., ", found ", describeHere());
  }

  std::string describeHere() const {
    if (atEnd()) return "the end of the text";
    size_t end = pos_;
    while (end < text_.size() && end - pos_ < 24 && isBareNameChar(text_[end])) ++end;
    if (end == pos_) ++end;
    std::string token = "'";
    return token.append(text_, pos_, end - pos_).append("'");
  }

  // ---- characters ----

  bool atEnd() const { return pos_ >= text_.size(); }

  void skipSpace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (!atEnd() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  bool consume(char c) {
    skipSpace();
    if (atEnd() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c, const char* context) {
    if (!consume(c)) failHere("expected '", c, "' ", context);
  }

  bool peekChar(char c) {
    skipSpace();
    return !atEnd() && text_[pos_] == c;
  }

  bool peekKeyword(const char* keyword) {
    skipSpace();
    size_t n = std::char_traits<char>::length(keyword);
    return text_.compare(pos_, n, keyword) == 0 &&
           (pos_ + n >= text_.size() || !isBareNameChar(text_[pos_ + n]));
  }

  void expectKeyword(const char* keyword, const char* context) {
    if (!peekKeyword(keyword)) failHere("expected '", keyword, "' ", context);
    pos_ += std::char_traits<char>::length(keyword);
  }

  // ---- tokens ----

  std::string readIdent(const char* what) {
    skipSpace();
    size_t start = pos_;
    while (!atEnd() && isBareNameChar(text_[pos_])) ++pos_;
    if (start == pos_) failHere("expected ", what);
    return text_.substr(start, pos_ - start);
  }

  std::string readName(const char* what) {
    skipSpace();
    if (!atEnd() && text_[pos_] == '"') return readString();
    return readIdent(what);
  }

  std::string readString() {
    skipSpace();
    size_t start = pos_;
    if (!consume('"')) failHere("expected a string");
    std::string s;
    while (true) {
      if (atEnd() || text_[pos_] == '\n') failAt(start, "unterminated string");
      char c = text_[pos_++];
      if (c == '"') return s;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (atEnd()) failAt(start, "unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case 'n':
          s += '\n';
          break;
        case 't':
          s += '\t';
          break;
        case 'r':
          s += '\r';
          break;
        case '"':
          s += '"';
          break;
        case '\\':
          s += '\\';
          break;
        case 'x': {
          unsigned value = 0;
          auto res = std::from_chars(text_.data() + pos_,
                                     text_.data() + std::min(pos_ + 2, text_.size()), value, 16);
          if (res.ptr != text_.data() + pos_ + 2)
            failAt(pos_ - 2, "expected two hex digits after \\x");
          pos_ += 2;
          s += static_cast<char>(value);
          break;
        }
        default:
          failAt(pos_ - 2, "unknown escape '\\", e, "'; expected \\n \\t \\r \\\" \\\\ or \\xHH");
      }
    }
  }

  // A dimension: a size, a symbolic size ("past+seq", "2*batch") or '?' for one only the data
  // decides.
  opdef::Dim readDim() {
    skipSpace();
    size_t start = pos_;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                        std::strchr("_+-*?", text_[pos_]) != nullptr)) {
      ++pos_;
    }
    std::string token = text_.substr(start, pos_ - start);
    if (token.empty()) failAt(start, "expected a dimension, a symbolic size or '?'");
    opdef::Dim d;
    try {
      d = opdef::Dim::parse(token);
    } catch (const Error& e) {
      failAt(start, e.what());
    }
    if (d.isConst() && d.value() < 0) {
      failAt(start, "dimension ", d.value(), " is negative; expected >= 0 or '?'");
    }
    return d;
  }

  Number readNumber(const char* what) {
    skipSpace();
    Number n;
    n.pos = pos_;
    size_t p = pos_;
    if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) ++p;
    if (text_.compare(p, 3, "inf") == 0 || text_.compare(p, 3, "nan") == 0) {
      p += 3;
      n.isFloat = true;
    } else {
      size_t digits = 0;
      while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) ++p, ++digits;
      if (p < text_.size() && text_[p] == '.') {
        n.isFloat = true;
        ++p;
        while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p])))
          ++p, ++digits;
      }
      if (digits == 0) failHere("expected ", what);
      if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
        n.isFloat = true;
        ++p;
        if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) ++p;
        size_t expStart = p;
        while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) ++p;
        if (p == expStart) failAt(n.pos, "malformed exponent in number");
      }
    }
    if (p < text_.size() && isBareNameChar(text_[p])) failAt(n.pos, "malformed number");
    n.text = text_.substr(pos_, p - pos_);
    if (!n.text.empty() && n.text[0] == '+') n.text.erase(0, 1);
    pos_ = p;
    return n;
  }

  bool atNumber() {
    skipSpace();
    if (atEnd()) return false;
    char c = text_[pos_];
    return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' ||
           peekKeyword("inf") || peekKeyword("nan");
  }

  int64_t toInt(const Number& n, const char* what) const {
    if (n.isFloat) failAt(n.pos, "expected ", what, " (an integer), found '", n.text, "'");
    int64_t v = 0;
    auto res = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
    if (res.ec != std::errc() || res.ptr != n.text.data() + n.text.size()) {
      failAt(n.pos, "integer '", n.text, "' does not fit in int64");
    }
    return v;
  }

  template <typename T>
  T toFloat(const Number& n) const {
    T v = 0;
    auto res = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
    if (res.ptr != n.text.data() + n.text.size() ||
        (res.ec != std::errc() && res.ec != std::errc::result_out_of_range)) {
      failAt(n.pos, "malformed number '", n.text, "'");
    }
    if (res.ec == std::errc::result_out_of_range) {
      failAt(n.pos, "number '", n.text, "' is out of range for its type");
    }
    return v;
  }

  int64_t readInt(const char* what) { return toInt(readNumber(what), what); }

  // A tensor type, or seq(T) / opt(T) around one (opt(seq(T)) too); only the tensors inside
  // those may be unranked ("float32[*]").
  TensorType readType(bool inList = false) {
    skipSpace();
    size_t start = pos_;
    std::string name = readIdent("a type such as float32[1,3]");
    if (name == "seq" || name == "opt") {
      expect('(', strCat("after '", name, "'").c_str());
      TensorType inner = readType(true);
      expect(')', strCat("after the type inside ", name, "(...)").c_str());
      if (name == "seq" && !inner.isTensor()) {
        failAt(start, "a sequence holds tensors; got seq(", inner.str(), ")");
      }
      if (name == "opt" && inner.kind != ValueKind::kTensor && inner.kind != ValueKind::kSequence) {
        failAt(start, "an optional holds a tensor or a sequence; got opt(", inner.str(), ")");
      }
      return name == "seq" ? TensorType::sequenceOf(inner) : TensorType::optionalOf(inner);
    }
    TensorType t;
    try {
      t.dtype = DataType::parse(name);
    } catch (const Error& e) {
      failAt(start, e.what());
    }
    expect('[', "after the element type");
    if (consume('*')) {
      if (!inList) failAt(start, "a tensor's rank must be known; '[*]' is for seq() and opt()");
      expect(']', "after '*'");
      t.unranked = true;
      return t;
    }
    std::vector<opdef::Dim> dims;
    if (!consume(']')) {
      do {
        skipSpace();
        dims.push_back(readDim());
      } while (consume(','));
      expect(']', "after the dimensions");
    }
    t.setDims(dims);
    try {
      runtime::Shape known;
      for (int64_t d : t.shape) {
        if (d != runtime::kDynamicDim) known.push_back(d);
      }
      runtime::shapeNumel(known);
    } catch (const Error& e) {
      failAt(start, e.what());
    }
    return t;
  }

  // ---- values ----

  Def readValueDef() {
    skipSpace();
    Def def{"", pos_};
    expect('%', "before a value name");
    def.name = readName("a value name");
    if (values_.count(def.name)) failAt(def.pos, "value %", def.name, " is already defined");
    return def;
  }

  void define(const Def& def, Value* v) {
    if (!values_.emplace(def.name, v).second)
      failAt(def.pos, "value %", def.name, " is defined twice");
  }

  Value* readValueRef() {
    skipSpace();
    size_t start = pos_;
    expect('%', "before a value name");
    std::string name = readName("a value name");
    auto it = values_.find(name);
    if (it == values_.end()) failAt(start, "value %", name, " is not defined (yet)");
    return it->second;
  }

  // ---- constants ----

  void storeNumber(const NDArray& a, int64_t i, const Number& n) {
    DataType t = a.dtype();
    if (t.isFloat() && t.bits == 64) {
      storeDouble(a, i, toFloat<double>(n));
    } else if (t.isFloat() || t.code == kDLBfloat) {
      storeDouble(a, i, toFloat<float>(n));
    } else if (t.isUInt() && t.bits == 64) {
      uint64_t v = 0;
      auto res = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
      if (n.isFloat || res.ec != std::errc() || res.ptr != n.text.data() + n.text.size()) {
        failAt(n.pos, "'", n.text, "' is not a uint64 value");
      }
      storeInt(a, i, static_cast<int64_t>(v));
    } else {
      int64_t v = toInt(n, "an integer element");
      int64_t lo = t.isUInt() ? 0
                              : (t.bits == 64 ? std::numeric_limits<int64_t>::min()
                                              : -(int64_t{1} << (t.bits - 1)));
      int64_t hi = t.bits == 64 ? std::numeric_limits<int64_t>::max()
                                : (int64_t{1} << (t.isUInt() ? t.bits : t.bits - 1)) - 1;
      if (v < lo || v > hi) failAt(n.pos, "value ", v, " does not fit in ", t.str());
      storeInt(a, i, v);
    }
  }

  NDArray readInlineData(const TensorType& type) {
    // Every value takes at least one character: a type that the rest of the text cannot fill is
    // refused before its storage is allocated.
    int64_t numel = runtime::shapeNumel(type.shape);
    if (static_cast<uint64_t>(numel) > text_.size() - pos_) {
      failAt(pos_, "constant data for ", type.str(), " needs ", numel,
             " values, more than the text has characters left (", text_.size() - pos_, ")");
    }
    NDArray a = NDArray::empty(type.shape, type.dtype);
    size_t open = pos_;
    expect('[', "to start constant data");
    int64_t count = 0;
    if (!consume(']')) {
      do {
        skipSpace();
        size_t elemPos = pos_;
        if (count >= a.numel()) {
          failAt(elemPos, "too many values: ", type.str(), " holds ", a.numel());
        }
        if (type.dtype.isBool() && (peekKeyword("true") || peekKeyword("false"))) {
          storeInt(a, count, readIdent("true or false") == "true" ? 1 : 0);
        } else {
          Number n = readNumber("a number");
          if (type.dtype.isBool()) {
            int64_t v = toInt(n, "true, false, 0 or 1");
            if (v != 0 && v != 1) failAt(n.pos, "bool value ", v, "; expected true, false, 0 or 1");
            storeInt(a, count, v);
          } else {
            storeNumber(a, count, n);
          }
        }
        ++count;
      } while (consume(','));
      expect(']', "to end constant data");
    }
    if (count != a.numel()) {
      failAt(open, "constant data has ", count, " values; expected ", a.numel(), " for ",
             type.str());
    }
    return a;
  }

  NDArray readRandom(const TensorType& type) {
    readIdent("random");
    expect('(', "after 'random'");
    expectKeyword("seed", "as random's first argument");
    expect('=', "after 'seed'");
    Number seedNum = readNumber("a seed");
    int64_t seed = toInt(seedNum, "a seed");
    if (seed < 0) failAt(seedNum.pos, "seed ", seed, " is negative; expected >= 0");
    double low = 0;
    double high = 0;
    bool haveLow = false;
    bool haveHigh = false;
    while (consume(',')) {
      size_t keyPos = pos_;
      std::string key = readIdent("'low' or 'high'");
      expect('=', "after a random() argument name");
      Number n = readNumber("a number");
      double v = n.isFloat ? toFloat<double>(n) : static_cast<double>(toInt(n, "a number"));
      if (key == "low") {
        low = v;
        haveLow = true;
      } else if (key == "high") {
        high = v;
        haveHigh = true;
      } else {
        failAt(keyPos, "unknown random() argument '", key, "'; expected seed, low or high");
      }
    }
    size_t close = pos_;
    expect(')', "after random()'s arguments");
    if (haveLow != haveHigh || (haveLow && !(low < high))) {
      failAt(close, "random() needs both low and high with low < high");
    }
    if (runtime::shapeNumel(type.shape) > kMaxRandomElements) {
      failAt(close, "random() constant ", type.str(), " has more than ", kMaxRandomElements,
             " elements; test weights larger than that are not supported");
    }
    return randomTensor(type, static_cast<uint64_t>(seed), low, high);
  }

  NDArray readTensorData(const TensorType& type) {
    skipSpace();
    if (!runtime::isStaticShape(type.shape)) {
      failHere("a constant of type ", type.str(),
               "; a constant's dims are sizes, not '?' or symbols");
    }
    if (peekChar('[')) return readInlineData(type);
    if (peekKeyword("random")) return readRandom(type);
    if (peekKeyword("elided")) {
      failAt(pos_,
             "constant data is elided (the printer omits tensors of more than 64 elements); "
             "the text cannot recreate it: expected inline data [...] or random(seed=N)");
    }
    failHere("expected constant data: [values...] or random(seed=N)");
  }

  // ---- attributes ----

  AttrValue readList() {
    expect('[', "to start a list");
    if (consume(']')) return std::vector<int64_t>{};
    if (peekChar('"')) {
      std::vector<std::string> strings;
      do strings.push_back(readString());
      while (consume(','));
      expect(']', "to end a list of strings");
      return strings;
    }
    std::vector<Number> numbers;
    bool anyFloat = false;
    do {
      if (peekChar('"')) failHere("expected a number: lists cannot mix strings and numbers");
      numbers.push_back(readNumber("a number"));
      anyFloat = anyFloat || numbers.back().isFloat;
    } while (consume(','));
    expect(']', "to end a list");
    if (anyFloat) {
      std::vector<double> floats;
      floats.reserve(numbers.size());
      for (const Number& n : numbers) floats.push_back(toFloat<double>(n));
      return floats;
    }
    std::vector<int64_t> ints;
    ints.reserve(numbers.size());
    for (const Number& n : numbers) ints.push_back(toInt(n, "an integer"));
    return ints;
  }

  AttrValue readAttrValue() {
    skipSpace();
    if (peekChar('"')) return readString();
    if (peekChar('[')) return readList();
    for (const char* kind : {"ints", "floats", "strings"}) {
      if (!peekKeyword(kind)) continue;
      readIdent(kind);
      expect('[', "after a list kind");
      expect(']', "(only empty lists carry a kind)");
      if (kind[0] == 'i') return std::vector<int64_t>{};
      if (kind[0] == 'f') return std::vector<double>{};
      return std::vector<std::string>{};
    }
    if (peekKeyword("tensor")) {
      readIdent("tensor");
      TensorType t = readType();
      return readTensorData(t);
    }
    if (peekKeyword("graph")) return readSubgraph();
    if (atNumber()) {
      Number n = readNumber("a number");
      if (n.isFloat) return toFloat<double>(n);
      return toInt(n, "an integer");
    }
    failHere(
        "expected an attribute value: int, float, \"string\", [list], tensor T[...] [...] or "
        "graph NAME(...) {...}");
  }

  Attrs readAttrs() {
    Attrs attrs;
    if (!consume('{')) return attrs;
    if (consume('}')) return attrs;
    do {
      skipSpace();
      size_t keyPos = pos_;
      std::string key = readName("an attribute name");
      if (attrs.has(key)) failAt(keyPos, "attribute '", key, "' is given twice");
      expect('=', "after an attribute name");
      attrs.set(key, readAttrValue());
    } while (consume(','));
    expect('}', "after the attributes");
    return attrs;
  }

  // ---- statements ----

  void parseStatement() {
    std::vector<Def> defs;
    if (peekChar('%')) {
      std::set<std::string> seen;
      do {
        defs.push_back(readValueDef());
        if (!seen.insert(defs.back().name).second) {
          failAt(defs.back().pos, "value %", defs.back().name, " is defined twice");
        }
      } while (consume(','));
      expect('=', "after the defined values");
    }
    if (peekKeyword("const")) {
      if (defs.size() != 1) failHere("expected exactly one value before '= const'");
      readIdent("const");
      TensorType type = readType();
      define(defs[0], graph_->addConstant(defs[0].name, readTensorData(type)));
      return;
    }
    parseNode(defs);
  }

  void parseNode(const std::vector<Def>& defs) {
    skipSpace();
    size_t opPos = pos_;
    std::string op = readName("an op name or 'const'");
    std::string name;
    if (consume('[')) {
      name = readName("a node name");
      expect(']', "after the node name");
    } else if (defs.empty()) {
      failHere("expected '[name]': a node without outputs needs an explicit name");
    } else {
      name = defs[0].name;
    }
    expect('(', "before the node's inputs");
    std::vector<Value*> inputs;
    if (!consume(')')) {
      do {
        if (peekKeyword("_")) {
          readIdent("_");
          inputs.push_back(nullptr);
        } else {
          inputs.push_back(readValueRef());
        }
      } while (consume(','));
      expect(')', "after the node's inputs");
    }
    Attrs attrs = readAttrs();
    size_t typesPos = 0;
    std::vector<TensorType> declared;
    if (consume(':')) {
      skipSpace();
      typesPos = pos_;
      do declared.push_back(readType());
      while (consume(','));
      if (declared.size() != defs.size()) {
        failAt(typesPos, declared.size(), " types for ", defs.size(),
               " outputs; expected one each");
      }
    }
    int group = -1;
    if (consume('#')) {
      expectKeyword("group", "after '#'");
      expect('=', "after 'group'");
      Number n = readNumber("a group id");
      int64_t g = toInt(n, "a group id");
      if (g < 0 || g > std::numeric_limits<int>::max()) failAt(n.pos, "group ", g, " out of range");
      group = static_cast<int>(g);
    }
    std::vector<std::string> outNames;
    outNames.reserve(defs.size());
    for (const Def& d : defs) outNames.push_back(d.name);
    Node* node = graph_->addNode(op, name, inputs, outNames, std::move(attrs));
    node->group = group;
    for (size_t i = 0; i < defs.size(); ++i) define(defs[i], node->outputs[i]);
    try {
      inferTypes(*node);
    } catch (const Error& e) {
      failAt(opPos, e.what());
    }
    for (size_t i = 0; i < declared.size(); ++i) {
      if (declared[i] != node->outputs[i]->type) {
        failAt(typesPos, nodeLabel(*node), ": declared type ", declared[i].str(), " of %",
               defs[i].name, " does not match the inferred type ", node->outputs[i]->type.str());
      }
    }
  }
};

}  // namespace

std::unique_ptr<Graph> parseGraph(const std::string& text, std::shared_ptr<const OpRegistry> ops) {
  Parser parser(text);
  parser.setOps(std::move(ops));
  return parser.parse();
}

TensorType parseType(const std::string& text) {
  try {
    return Parser(text).parseTypeOnly();
  } catch (const Error& e) {
    throw Error(strCat("type '", text, "': ", e.what()));
  }
}

}  // namespace kiln::ir
