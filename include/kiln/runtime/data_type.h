// Element types (DLPack's code/bits/lanes) and devices, with their text names ("float32", "cpu").
#pragma once

#include <cstdint>
#include <string>

#include "kiln/runtime/dlpack.h"

namespace kiln::runtime {

// kiln's own type code for strings, which DLPack has none for: see DataType::string().
inline constexpr uint8_t kDLKilnString = 129;

struct DataType {
  uint8_t code = kDLFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static DataType float32() { return {kDLFloat, 32, 1}; }
  static DataType float64() { return {kDLFloat, 64, 1}; }
  static DataType float16() { return {kDLFloat, 16, 1}; }
  static DataType int8() { return {kDLInt, 8, 1}; }
  static DataType int32() { return {kDLInt, 32, 1}; }
  static DataType int64() { return {kDLInt, 64, 1}; }
  static DataType uint8() { return {kDLUInt, 8, 1}; }
  static DataType boolean() { return {kDLBool, 8, 1}; }
  // ONNX's string elements: each a std::string, so an array of them is constructed when
  // allocated and has no byte image (NDArray refuses to expose one). Only the runtime's own ops
  // read and write strings; compiled kernels never see them.
  static DataType string() { return {kDLKilnString, 0, 1}; }

  // "float32", "int64", "bool", "float32x16" ...; throws kiln::Error on an unknown name.
  static DataType parse(const std::string& name);
  std::string str() const;
  // Bytes of one element (all lanes).
  size_t bytes() const {
    return isString() ? sizeof(std::string) : (static_cast<size_t>(bits) * lanes + 7) / 8;
  }
  bool isFloat() const { return code == kDLFloat; }
  bool isInt() const { return code == kDLInt; }
  bool isUInt() const { return code == kDLUInt; }
  bool isBool() const { return code == kDLBool; }
  bool isString() const { return code == kDLKilnString; }
  // Whether this is a type kiln knows (one parse() accepts): what data from outside is checked
  // against before anything is allocated for it.
  bool known() const;

  DLDataType dl() const { return {code, bits, lanes}; }
  static DataType fromDL(DLDataType t) { return {t.code, t.bits, t.lanes}; }
  bool operator==(const DataType& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }
};

struct Device {
  DLDeviceType type = kDLCPU;
  int32_t id = 0;

  static Device cpu(int32_t id = 0) { return {kDLCPU, id}; }
  std::string str() const;  // "cpu(0)"
  DLDevice dl() const { return {type, id}; }
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
};

}  // namespace kiln::runtime
