// Parsing --input-shapes "name:[d0,d1,...] other:[...]".
#pragma once

#include <map>
#include <string>

#include "kiln/runtime/ndarray.h"

namespace kiln::cli {

// Throws kiln::Error naming the part that does not parse and the expected form.
std::map<std::string, runtime::Shape> parseInputShapes(const std::string& text);

}  // namespace kiln::cli
