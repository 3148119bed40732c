// A recursive-descent reader of the loop IR's text form (printer.cc writes it). Names resolve
// through scopes as in the printed kernel: parameters, then loops, bindings and local buffers.
#include "kiln/tir/parser.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "kiln/support/error.h"
#include "lexer.h"

namespace kiln::tir {
namespace {

const std::map<std::string, BinaryOp>& infixOps() {
  static const std::map<std::string, BinaryOp> kOps = {
      {"+", BinaryOp::kAdd}, {"-", BinaryOp::kSub},  {"*", BinaryOp::kMul}, {"/", BinaryOp::kDiv},
      {"%", BinaryOp::kMod}, {"&&", BinaryOp::kAnd}, {"||", BinaryOp::kOr}};
  return kOps;
}

const std::map<std::string, CompareOp>& compareOps() {
  static const std::map<std::string, CompareOp> kOps = {
      {"<", CompareOp::kLT},  {"<=", CompareOp::kLE}, {">", CompareOp::kGT},
      {">=", CompareOp::kGE}, {"==", CompareOp::kEQ}, {"!=", CompareOp::kNE}};
  return kOps;
}

const std::map<std::string, BinaryOp>& namedBinaryOps() {
  static const std::map<std::string, BinaryOp> kOps = {
      {"floordiv", BinaryOp::kFloorDiv}, {"floormod", BinaryOp::kFloorMod},
      {"min", BinaryOp::kMin},           {"max", BinaryOp::kMax},
      {"shift_left", BinaryOp::kShl},    {"shift_right", BinaryOp::kShr}};
  return kOps;
}

std::optional<Intrinsic> intrinsicNamed(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(Intrinsic::kReduceMin); ++i) {
    auto f = static_cast<Intrinsic>(i);
    if (name == intrinsicName(f)) return f;
  }
  return std::nullopt;
}

std::optional<DataType> dtypeNamed(const std::string& name) {
  if (name.empty() || !(name[0] == 'f' || name[0] == 'i' || name[0] == 'u' || name[0] == 'b')) {
    return std::nullopt;
  }
  try {
    return DataType::parse(name);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Deeper nesting than any printed kernel has; the limit keeps recursion off the end of the stack.
constexpr int kMaxNesting = 200;

class Parser {
 public:
  explicit Parser(const std::string& text) : tokens_(tokenize(text)) {}

  std::vector<PrimFunc> kernels() {
    std::vector<PrimFunc> out;
    while (peek().kind != TokenKind::kEnd) out.push_back(kernel());
    return out;
  }

 private:
  // ---- tokens ----
  const Token& peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool at(const std::string& text) const {
    return peek().kind != TokenKind::kEnd && peek().text == text;
  }
  bool accept(const std::string& text) {
    if (!at(text)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    const Token& t = peek();
    throw Error(strCat("loop IR text, line ", t.line, ", column ", t.column, ": expected ",
                       expected, ", found '", t.text, "'"));
  }
  void expect(const std::string& text) {
    if (!accept(text)) fail("'" + text + "'");
  }
  // The constructors check the loop IR's type rules with KILN_CHECK, because code building a node
  // that breaks one is a bug; in text the mistake is the writer's, so it is reported at AT.
  template <typename Make>
  auto build(const Token& at, Make&& make) {
    int line = at.line, column = at.column;
    try {
      return make();
    } catch (const InternalError& e) {
      std::string what = e.what();
      size_t rule = what.find("failed: ");
      throw Error(strCat("loop IR text, line ", line, ", column ", column, ": ",
                         rule == std::string::npos ? what : what.substr(rule + 8)));
    }
  }
  // Counts one level of nesting (a block or an expression) for the lifetime of the guard.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting) p_.fail(strCat("at most ", kMaxNesting, " levels of nesting"));
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };
  std::string ident(const std::string& what) {
    if (peek().kind != TokenKind::kIdent) fail(what);
    return next().text;
  }
  int64_t integer(const std::string& what) {
    bool negative = accept("-");
    if (peek().kind != TokenKind::kInt) fail(what);
    const std::string& text = next().text;
    errno = 0;
    uint64_t v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno != 0) fail(what + " in range");
    return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  }
  DataType dtype() {
    std::optional<DataType> t = dtypeNamed(peek().text);
    if (peek().kind != TokenKind::kIdent || !t) fail("a data type (float32, int64, ...)");
    next();
    return *t;
  }

  // ---- scopes ----
  template <typename T>
  using Scope = std::vector<std::pair<std::string, T>>;

  template <typename T>
  const T* find(const Scope<T>& scope, const std::string& name) const {
    for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  // ---- kernels ----
  PrimFunc kernel() {
    if (!accept("kernel")) fail("'kernel'");
    PrimFunc f;
    f.name = ident("a kernel name");
    expect("(");
    while (!at(")")) {
      if (!f.params.empty()) expect(",");
      const Token& start = peek();
      DataType t = dtype();
      expect("*");
      std::string name = ident("a parameter name");
      std::vector<int64_t> dims = shape();
      f.params.push_back(build(start, [&] { return makeBuffer(name, t, dims); }));
      buffers_.push_back({name, f.params.back()});
    }
    expect(")");
    f.body = block();
    buffers_.clear();
    vars_.clear();
    return f;
  }

  std::vector<int64_t> shape() {
    std::vector<int64_t> dims;
    expect("[");
    while (!at("]")) {
      if (!dims.empty()) expect(",");
      dims.push_back(integer("a dimension"));
    }
    expect("]");
    return dims;
  }

  // ---- statements ----
  Stmt block() {
    Nesting nesting(*this);
    expect("{");
    size_t vars = vars_.size(), buffers = buffers_.size();
    Stmt body = statements();
    expect("}");
    vars_.resize(vars);
    buffers_.resize(buffers);
    return body;
  }

  // Statements up to the closing brace; a binding takes the rest of the block as its body.
  Stmt statements() {
    std::vector<Stmt> list;
    while (!at("}")) {
      if (peek().kind == TokenKind::kEnd) fail("'}'");
      if (at("const")) {
        list.push_back(letStatement());
        break;
      }
      if (dtypeNamed(peek().text) && peek(1).kind == TokenKind::kIdent) {
        list.push_back(allocateStatement());
        break;
      }
      list.push_back(statement());
    }
    return seq(list);
  }

  Stmt letStatement() {
    const Token& start = peek();
    expect("const");
    DataType t = dtype();
    std::string name = ident("a variable name");
    expect("=");
    Expr value = expr();
    expect(";");
    Expr v = var(name, t);
    vars_.push_back({name, v});
    Stmt body = statements();
    vars_.pop_back();
    return build(start, [&] { return let(v, value, body); });
  }

  Stmt allocateStatement() {
    const Token& start = peek();
    DataType t = dtype();
    std::string name = ident("a buffer name");
    std::vector<int64_t> dims = shape();
    Buffer b = build(start, [&] { return makeBuffer(name, t, dims); });
    expect(";");
    buffers_.push_back({name, b});
    Stmt body = statements();
    buffers_.pop_back();
    return allocate(b, body);
  }

  Stmt statement() {
    if (at("{")) return block();
    if (at("if")) return ifStatement();
    if (at("assert")) return assertStatement();
    for (ForKind k : {ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled}) {
      if (accept(forKindName(k))) return forStatement(k);
    }
    if (at("for")) return forStatement(ForKind::kSerial);
    if (peek().kind == TokenKind::kIdent) return storeStatement();
    fail("a statement");
  }

  Stmt forStatement(ForKind kind) {
    const Token& start = peek();
    expect("for");
    expect("(");
    std::string name = ident("a loop variable");
    expect(",");
    Expr min = expr();
    expect(",");
    Expr extent = expr();
    expect(")");
    Expr v = var(name);
    vars_.push_back({name, v});
    Stmt body = block();
    vars_.pop_back();
    return build(start, [&] { return forLoop(v, min, extent, kind, body); });
  }

  Stmt ifStatement() {
    const Token& start = peek();
    expect("if");
    expect("(");
    Expr cond = expr();
    expect(")");
    Stmt then = block();
    Stmt otherwise = accept("else") ? block() : nullptr;
    return build(start, [&] { return ifThenElse(cond, then, otherwise); });
  }

  Stmt assertStatement() {
    const Token& start = peek();
    expect("assert");
    expect("(");
    Expr cond = expr();
    expect(",");
    int64_t status = integer("a status code");
    if (status > INT32_MAX || status < INT32_MIN) fail("a status code that fits in int32");
    expect(")");
    expect(";");
    return build(start, [&] { return assertThat(cond, static_cast<int32_t>(status)); });
  }

  Stmt storeStatement() {
    const Token& start = peek();
    Buffer b = buffer();
    expect("[");
    Expr index = expr();
    expect("]");
    expect("=");
    Expr value = expr();
    expect(";");
    return build(start, [&] { return store(b, index, value); });
  }

  Buffer buffer() {
    std::string name = ident("a buffer name");
    const Buffer* b = find(buffers_, name);
    if (b == nullptr) {
      --pos_;
      fail("a buffer in scope");
    }
    return *b;
  }

  // ---- expressions ----
  Expr expr() {
    Nesting nesting(*this);
    const Token& t = peek();
    if (t.text == "(") return parenthesised();
    if (t.text == "-" || t.kind == TokenKind::kInt || t.kind == TokenKind::kFloat) {
      return number();
    }
    if (t.kind != TokenKind::kIdent) fail("an expression");
    if (t.text == "true" || t.text == "false") {
      next();
      return intImm(t.text == "true" ? 1 : 0, DataType::boolean());
    }
    if (special(t.text)) return number();
    if (peek(1).text == "(") return callExpr();
    if (peek(1).text == "[") {
      Buffer b = buffer();
      expect("[");
      Expr index = expr();
      expect("]");
      return build(t, [&] { return load(b, index); });
    }
    std::string name = next().text;
    const Expr* v = find(vars_, name);
    if (v == nullptr) {
      --pos_;
      fail("a variable in scope");
    }
    return *v;
  }

  static bool special(const std::string& s) {
    return s == "inf" || s == "inff" || s == "nan" || s == "nanf";
  }

  Expr number() {
    bool negative = accept("-");
    const Token& t = next();
    if (t.kind == TokenKind::kInt) {
      --pos_;
      if (negative) --pos_;
      return intImm(integer("an integer"));
    }
    bool f32 = !t.text.empty() && t.text.back() == 'f';
    double v = 0;
    if (t.kind == TokenKind::kFloat) {
      v = std::strtod(t.text.c_str(), nullptr);
    } else if (t.kind == TokenKind::kIdent && special(t.text)) {
      v = t.text[0] == 'i' ? std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::quiet_NaN();
      f32 = t.text.size() == 4;
    } else {
      --pos_;
      fail("a number");
    }
    if (negative) v = -v;
    return floatImm(v, f32 ? DataType::float32() : DataType::float64());
  }

  Expr parenthesised() {
    const Token& start = peek();
    expect("(");
    if (peek().kind == TokenKind::kIdent && peek(1).text == ")" && dtypeNamed(peek().text)) {
      DataType t = dtype();
      expect(")");
      Expr value = expr();
      return build(start, [&] { return cast(t, value); });
    }
    Expr a = expr();
    std::string op = next().text;
    Expr b = expr();
    expect(")");
    if (auto it = infixOps().find(op); it != infixOps().end()) {
      return build(start, [&] { return binary(it->second, a, b); });
    }
    if (auto it = compareOps().find(op); it != compareOps().end()) {
      return build(start, [&] { return compare(it->second, a, b); });
    }
    --pos_;
    fail("an operator");
  }

  Expr callExpr() {
    const Token& start = peek();
    std::string name = next().text;
    expect("(");
    std::vector<Expr> args;
    int lanes = 0;
    bool withLanes = name == "ramp" || name == "broadcast";
    size_t exprArgs = name == "ramp" ? 2 : 1;
    while (!at(")")) {
      if (!args.empty() || lanes != 0) expect(",");
      if (withLanes && args.size() == exprArgs) {
        int64_t n = integer("a lane count");
        if (n < 1 || n > 65535) {
          --pos_;
          fail("a lane count from 1 to 65535");
        }
        lanes = static_cast<int>(n);
      } else {
        args.push_back(expr());
      }
    }
    expect(")");
    return build(start, [&] { return makeCall(name, args, lanes); });
  }

  Expr makeCall(const std::string& name, const std::vector<Expr>& args, int lanes) {
    if (name == "ramp" && args.size() == 2 && lanes > 0) return ramp(args[0], args[1], lanes);
    if (name == "broadcast" && args.size() == 1 && lanes > 0) return broadcast(args[0], lanes);
    if (name == "ramp" || name == "broadcast") fail(strCat("the arguments of ", name));
    if (name == "select" && args.size() == 3) return select(args[0], args[1], args[2]);
    if (auto it = namedBinaryOps().find(name); it != namedBinaryOps().end() && args.size() == 2) {
      return binary(it->second, args[0], args[1]);
    }
    if (std::optional<Intrinsic> f = intrinsicNamed(name)) return call(*f, args);
    throw Error(strCat("loop IR text: unknown function '", name, "' or wrong number of arguments (",
                       args.size(), ")"));
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  Scope<Expr> vars_;
  Scope<Buffer> buffers_;
};

}  // namespace

std::vector<PrimFunc> parsePrimFuncs(const std::string& text) { return Parser(text).kernels(); }

PrimFunc parsePrimFunc(const std::string& text) {
  std::vector<PrimFunc> all = parsePrimFuncs(text);
  if (all.size() != 1) {
    throw Error(strCat("loop IR text holds ", all.size(), " kernels; expected exactly one"));
  }
  return all[0];
}

}  // namespace kiln::tir
