// A small JSON value, parser and writer: the runtime reads executor metadata without third-party
// code.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace kiln {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json>;

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool v) : v_(v) {}
  Json(int v) : v_(static_cast<int64_t>(v)) {}
  Json(int64_t v) : v_(v) {}
  Json(uint64_t v) : v_(static_cast<int64_t>(v)) {}
  Json(double v) : v_(v) {}
  Json(const char* v) : v_(std::string(v)) {}
  Json(std::string v) : v_(std::move(v)) {}
  Json(Array v) : v_(std::move(v)) {}
  Json(Object v) : v_(std::move(v)) {}

  bool isNull() const { return std::holds_alternative<std::monostate>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isNumber() const { return isInt() || std::holds_alternative<double>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isArray() const { return std::holds_alternative<Array>(v_); }
  bool isObject() const { return std::holds_alternative<Object>(v_); }

  // Typed accessors throw kiln::Error naming the expected and actual kind.
  bool asBool() const;
  int64_t asInt() const;
  double asDouble() const;
  const std::string& asString() const;
  const Array& asArray() const;
  Array& asArray();
  const Object& asObject() const;
  Object& asObject();

  // Object member access; at() throws kiln::Error naming the missing key.
  const Json& at(const std::string& key) const;
  bool contains(const std::string& key) const;
  Json& operator[](const std::string& key);  // makes this an object if null
  // Array element access; throws kiln::Error naming the index and the size when out of range.
  const Json& operator[](size_t i) const;
  Json& operator[](size_t i);
  size_t size() const;
  void push(Json v);  // makes this an array if null

  std::string dump(int indent = -1) const;
  // Throws kiln::Error with the byte offset of the first malformed character.
  static Json parse(const std::string& text);

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Array, Object> v_;
};

}  // namespace kiln
