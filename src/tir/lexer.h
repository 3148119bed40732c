// Tokens of the loop IR's text form, with their positions for error messages.
#pragma once

#include <string>
#include <vector>

namespace kiln::tir {

enum class TokenKind { kIdent, kInt, kFloat, kPunct, kEnd };

struct Token {
  TokenKind kind;
  std::string text;  // identifier, literal as written (with an 'f' suffix) or punctuation
  int line = 0, column = 0;
};

// Splits TEXT into tokens ending with one kEnd; `//` starts a comment to the end of the line.
// Throws kiln::Error naming the position of a character no token starts with.
std::vector<Token> tokenize(const std::string& text);

}  // namespace kiln::tir
