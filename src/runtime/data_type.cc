// Text names of element types and devices, as used in metadata, the CLI and error messages.
#include "kiln/runtime/data_type.h"

#include <cstdlib>

#include "kiln/support/error.h"

namespace kiln::runtime {

DataType DataType::parse(const std::string& name) {
  std::string base = name;
  uint16_t lanes = 1;
  if (auto x = name.find('x'); x != std::string::npos) {
    base = name.substr(0, x);
    lanes = static_cast<uint16_t>(std::atoi(name.c_str() + x + 1));
  }
  DataType t;
  if (base == "bool") {
    t = boolean();
  } else if (base.rfind("float", 0) == 0) {
    t = {kDLFloat, static_cast<uint8_t>(std::atoi(base.c_str() + 5)), 1};
  } else if (base.rfind("uint", 0) == 0) {
    t = {kDLUInt, static_cast<uint8_t>(std::atoi(base.c_str() + 4)), 1};
  } else if (base.rfind("int", 0) == 0) {
    t = {kDLInt, static_cast<uint8_t>(std::atoi(base.c_str() + 3)), 1};
  } else if (base == "bfloat16") {
    t = {kDLBfloat, 16, 1};
  } else {
    throw Error(strCat("unknown data type '", name,
                       "'; expected one of bool, int8..int64, uint8..uint64, float16/32/64"));
  }
  bool okBits = t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  if (!okBits || lanes == 0) {
    throw Error(strCat("unknown data type '", name, "': bit width must be 8, 16, 32 or 64"));
  }
  t.lanes = lanes;
  return t;
}

std::string DataType::str() const {
  std::string s;
  switch (code) {
    case kDLBool: s = "bool"; break;
    case kDLInt: s = strCat("int", int(bits)); break;
    case kDLUInt: s = strCat("uint", int(bits)); break;
    case kDLFloat: s = strCat("float", int(bits)); break;
    case kDLBfloat: s = strCat("bfloat", int(bits)); break;
    default: s = strCat("type", int(code), "_", int(bits)); break;
  }
  if (lanes != 1) s += strCat("x", lanes);
  return s;
}

std::string Device::str() const {
  const char* name = type == kDLCPU ? "cpu" : "device";
  return strCat(name, "(", id, ")");
}

}  // namespace kiln::runtime
