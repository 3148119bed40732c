// NDArray: a reference-counted, DLPack-compatible dense tensor; copies share storage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/data_type.h"

namespace kiln::runtime {

using Shape = std::vector<int64_t>;

std::string shapeStr(const Shape& shape);  // "[1,3,224,224]", "[?,4]" for a dim known at run time
std::string describe(const Shape& shape, DataType dtype);  // "float32[1,3,224,224]"
// A dim of a compile-time shape that is known only at run time.
inline constexpr int64_t kDynamicDim = -1;
bool isStaticShape(const Shape& shape);  // no kDynamicDim
// Whether ACTUAL fits DECLARED: one rank, each dim equal or kDynamicDim in DECLARED.
bool shapeFits(const Shape& declared, const Shape& actual);
int64_t shapeNumel(const Shape& shape);
// The bytes of a compact tensor of SHAPE and DTYPE; throws kiln::Error when the element count or
// the byte count overflows int64, naming the shape.
int64_t shapeBytes(const Shape& shape, DataType dtype);

class NDArray {
 public:
  NDArray() = default;  // a null array

  // A new compact array, 64-byte aligned, contents uninitialised (a string array's elements are
  // empty strings). A string array (DataType::string()) holds std::string objects: fromBytes,
  // fromExternal, fromDLPack, toDLPack and nbytes refuse it, naming it; copyFrom copies strings.
  static NDArray empty(const Shape& shape, DataType dtype, Device device = Device::cpu());
  // A new compact array holding a copy of BYTES (size must be numel * dtype.bytes()).
  static NDArray fromBytes(const Shape& shape, DataType dtype, const void* bytes, size_t size);
  // Takes ownership of a DLPack tensor (its deleter runs when the last reference goes).
  // Throws kiln::Error for non-compact strides.
  static NDArray fromDLPack(DLManagedTensor* tensor);
  // A view of SIZE bytes at DATA that OWNER keeps alive (a mapped file, a loaded library), with
  // no copy. READ_ONLY arrays refuse copyFrom; their bytes may live in read-only pages.
  static NDArray fromExternal(const Shape& shape, DataType dtype, const void* data, size_t size,
                              std::shared_ptr<const void> owner, bool readOnly);

  bool defined() const { return static_cast<bool>(c_); }
  const Shape& shape() const;
  DataType dtype() const;
  Device device() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  int64_t numel() const;
  size_t nbytes() const;
  void* data() const;  // includes the byte offset
  template <typename T>
  T* data() const {
    return static_cast<T*>(data());
  }
  const DLTensor* dl() const;
  // True for views of read-only memory (weights mapped from an artifact); views inherit it.
  bool readOnly() const;

  // A view sharing this array's storage: SHAPE/DTYPE at BYTE_OFFSET; checks it fits.
  NDArray view(const Shape& shape, DataType dtype, size_t byteOffset = 0) const;
  // Gives this array SHAPE, of its rank, in place: every holder of the array sees it, and nothing
  // is allocated. Throws kiln::Error when the rank differs or SHAPE's bytes exceed the storage.
  void reshapeInPlace(const Shape& shape);
  // Copies the contents of SRC; throws kiln::Error naming both shapes/dtypes when they differ.
  void copyFrom(const NDArray& src);
  NDArray clone() const;
  // A DLPack handle that keeps this array alive until its deleter is called.
  DLManagedTensor* toDLPack() const;

  // True when both refer to the same storage and view.
  bool sameAs(const NDArray& o) const { return c_ == o.c_; }

 private:
  struct Container;
  std::shared_ptr<Container> c_;
};

}  // namespace kiln::runtime
