// Lexical rules the printer and the parser must agree on: bare names, quoting, number spelling.
#pragma once

#include <string>

#include "kiln/ir/graph.h"

namespace kiln::ir {

bool isBareNameChar(char c);  // [A-Za-z0-9_.]
// NAME as is when it is non-empty and all bare characters, else as a quoted string.
std::string nameToken(const std::string& name);
// "..." with \" \\ \n \t \r and \xHH escapes.
std::string quoteString(const std::string& s);
// Shortest text that reads back to the same value, always with '.', an exponent, inf or nan.
std::string formatFloat(double v);
std::string formatFloat32(float v);
// Element I of constant data as the text format writes it (ints, true/false, floats).
std::string formatElement(const NDArray& a, int64_t i);

}  // namespace kiln::ir
