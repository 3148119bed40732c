// The tokenizer of the loop IR's text form: identifiers, numbers, and one- or two-character
// punctuation.
#include "lexer.h"

#include <cctype>

#include "kiln/support/error.h"

namespace kiln::tir {
namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::vector<Token> tokenize(const std::string& text) {
  static const char* kTwoChar[] = {"&&", "||", "<=", ">=", "==", "!="};
  std::vector<Token> tokens;
  int line = 1, column = 1;
  size_t i = 0;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n; ++k, ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
  };
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') advance(1);
      continue;
    }
    Token t{TokenKind::kPunct, "", line, column};
    size_t start = i, n = 1;
    if (identStart(c)) {
      while (start + n < text.size() && identChar(text[start + n])) ++n;
      t.kind = TokenKind::kIdent;
    } else if (digit(c)) {
      t.kind = TokenKind::kInt;
      while (start + n < text.size() && digit(text[start + n])) ++n;
      auto more = [&](size_t k) { return start + k < text.size(); };
      if (more(n) && text[start + n] == '.') {
        t.kind = TokenKind::kFloat;
        ++n;
        while (more(n) && digit(text[start + n])) ++n;
      }
      if (more(n) && (text[start + n] == 'e' || text[start + n] == 'E')) {
        t.kind = TokenKind::kFloat;
        ++n;
        if (more(n) && (text[start + n] == '+' || text[start + n] == '-')) ++n;
        while (more(n) && digit(text[start + n])) ++n;
      }
      if (more(n) && text[start + n] == 'f' && t.kind == TokenKind::kFloat) ++n;
    } else {
      for (const char* two : kTwoChar) {
        if (text.compare(i, 2, two) == 0) n = 2;
      }
      if (n == 1 && std::string("()[]{},;=*+-/%<>").find(c) == std::string::npos) {
        throw Error(strCat("loop IR text, line ", line, ", column ", column, ": unexpected '",
                           std::string(1, c), "'"));
      }
    }
    t.text = text.substr(start, n);
    tokens.push_back(t);
    advance(n);
  }
  tokens.push_back({TokenKind::kEnd, "end of text", line, column});
  return tokens;
}

}  // namespace kiln::tir
