// Target attributes: their types, their option names and the checking of a value given for one.
#include <cerrno>
#include <cstdlib>

#include "kiln/extension/extensions.h"
#include "kiln/support/error.h"

namespace kiln::extension {

const char* attrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kBool:
      return "bool";
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kString:
      return "string";
  }
  return "unknown";
}

std::string Backend::optionName(const TargetAttr& attr) const {
  return strCat("--target-", name, "-", attr.name);
}

std::string checkAttrValue(const TargetAttr& attr, const std::string& value,
                           const std::string& option) {
  auto bad = [&](const char* expected) {
    return Error(strCat(option, " '", value, "' is not valid; expected ", expected));
  };
  switch (attr.type) {
    case AttrType::kBool:
      if (value == "true" || value == "1" || value == "yes" || value == "on") return "true";
      if (value == "false" || value == "0" || value == "no" || value == "off") return "false";
      throw bad("true or false (or 1/0, yes/no, on/off)");
    case AttrType::kInt: {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE) throw bad("a 64-bit integer");
      return std::to_string(v);
    }
    case AttrType::kFloat: {
      char* end = nullptr;
      errno = 0;
      std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || errno == ERANGE) throw bad("a number");
      return value;
    }
    case AttrType::kString:
      return value;
  }
  throw bad("a value of a known type");
}

}  // namespace kiln::extension
