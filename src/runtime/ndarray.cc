// NDArray storage: 64-byte aligned buffers shared by views, and zero-copy DLPack exchange.
#include "kiln/runtime/ndarray.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

constexpr size_t kAlignment = 64;  // a cache line, and the widest vector register (AVX-512)

size_t byteSize(const Shape& shape, DataType dtype) {
  auto numel = static_cast<uint64_t>(shapeNumel(shape));
  uint64_t bytes = dtype.bytes();
  if (bytes != 0 && numel > std::numeric_limits<size_t>::max() / bytes) {
    throw Error(strCat("tensor ", dtype.str(), shapeStr(shape), " is too large to address"));
  }
  return static_cast<size_t>(numel * bytes);
}

// Strings are objects, not bytes: what refuses to treat them as bytes says so.
void refuseStrings(const char* what, DataType dtype, const Shape& shape) {
  if (dtype.isString()) {
    throw Error(strCat(what, ": ", describe(shape, dtype),
                       " holds string objects, which have no byte image; strings are read and "
                       "written element by element (as std::string)"));
  }
}

// The element types a tensor from another framework may have: kiln's scalar types.
void refuseForeignType(DLDataType t) {
  bool isInt = (t.code == kDLInt || t.code == kDLUInt) &&
               (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64);
  bool isFloat = t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64);
  bool known = isInt || isFloat || (t.code == kDLBfloat && t.bits == 16) ||
               (t.code == kDLBool && t.bits == 8);
  if (!known || t.lanes != 1) {
    throw Error(strCat("NDArray::fromDLPack: element type code ", static_cast<int>(t.code), " of ",
                       static_cast<int>(t.bits), " bits and ", t.lanes,
                       " lanes is not one kiln has; expected bool, int8..int64, uint8..uint64, "
                       "float16, float32, float64 or bfloat16"));
  }
}

}  // namespace

std::string shapeStr(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += i ? "," : "";
    s += shape[i] == kDynamicDim ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

std::string describe(const Shape& shape, DataType dtype) { return dtype.str() + shapeStr(shape); }

bool isStaticShape(const Shape& shape) {
  for (int64_t d : shape) {
    if (d == kDynamicDim) return false;
  }
  return true;
}

bool shapeFits(const Shape& declared, const Shape& actual) {
  if (declared.size() != actual.size()) return false;
  for (size_t d = 0; d < declared.size(); ++d) {
    if (declared[d] != kDynamicDim && declared[d] != actual[d]) return false;
  }
  return true;
}

int64_t shapeNumel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw Error(strCat("invalid shape ", shapeStr(shape), ": dimensions must be >= 0"));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      throw Error(strCat("invalid shape ", shapeStr(shape), ": element count overflows int64"));
    }
    n *= d;
  }
  return n;
}

int64_t shapeBytes(const Shape& shape, DataType dtype) {
  int64_t n = shapeNumel(shape);
  auto each = static_cast<int64_t>(dtype.bytes());
  if (each != 0 && n > std::numeric_limits<int64_t>::max() / each) {
    throw Error(strCat("invalid shape ", shapeStr(shape), " of ", dtype.str(), ": ", n,
                       " elements of ", each, " bytes overflow int64 bytes"));
  }
  return n * each;
}

// One view of some storage. `owner` keeps the bytes alive; `capacity` is how many bytes follow
// dl.data, so views can be bounds-checked.
struct NDArray::Container {
  std::shared_ptr<const void> owner;
  size_t capacity = 0;
  bool readOnly = false;
  Shape shape;
  DLTensor dl{};

  Container(std::shared_ptr<const void> ownerIn, size_t capacityIn, void* base, uint64_t byteOffset,
            Shape shapeIn, DataType dtype, Device device)
      : owner(std::move(ownerIn)), capacity(capacityIn), shape(std::move(shapeIn)) {
    dl.data = base;
    dl.device = device.dl();
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = dtype.dl();
    dl.shape = shape.data();
    dl.strides = nullptr;
    dl.byte_offset = byteOffset;
  }
  Container(const Container&) = delete;  // dl.shape points into this object
  Container& operator=(const Container&) = delete;
};

namespace {

// Arrays of at least this size are placed on 2 MiB boundaries and offered transparent huge pages:
// first touching a large tensor (receiving it, a model's workspace) then faults once per 2 MiB
// instead of once per 4 KiB, which on a virtual machine is several times faster.
constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{8} << 20;

void* allocateAligned(size_t bytes) {
  if (bytes < kHugeThreshold) return std::aligned_alloc(kAlignment, bytes);
  size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded);
  if (p != nullptr) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
  return p;
}

}  // namespace

NDArray NDArray::empty(const Shape& shape, DataType dtype, Device device) {
  if (device.type != kDLCPU) {
    throw Error(strCat("cannot allocate an NDArray on ", device.str(),
                       ": this runtime allocates only on cpu"));
  }
  size_t nbytes = byteSize(shape, dtype);
  size_t rounded = nbytes == 0 ? kAlignment : (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < nbytes) throw Error(strCat("cannot allocate ", nbytes, " bytes"));
  void* p = allocateAligned(rounded);
  if (!p) throw Error(strCat("cannot allocate ", nbytes, " bytes for ", describe(shape, dtype)));
  std::shared_ptr<void> owner;
  if (dtype.isString()) {
    // Every slot holds a constructed (empty) string, so views anywhere in it are valid.
    size_t slots = rounded / sizeof(std::string);
    for (size_t i = 0; i < slots; ++i) new (static_cast<std::string*>(p) + i) std::string();
    owner = std::shared_ptr<void>(p, [slots](void* q) {
      for (size_t i = 0; i < slots; ++i) (static_cast<std::string*>(q) + i)->~basic_string();
      std::free(q);
    });
  } else {
    owner = std::shared_ptr<void>(p, std::free);
  }
  NDArray a;
  a.c_ = std::make_shared<Container>(std::move(owner), rounded, p, 0, shape, dtype, device);
  return a;
}

NDArray NDArray::fromBytes(const Shape& shape, DataType dtype, const void* bytes, size_t size) {
  refuseStrings("NDArray::fromBytes", dtype, shape);
  size_t expected = byteSize(shape, dtype);
  if (size != expected) {
    throw Error(strCat("NDArray::fromBytes: ", describe(shape, dtype), " needs ", expected,
                       " bytes, got ", size));
  }
  NDArray a = empty(shape, dtype);
  if (size) std::memcpy(a.data(), bytes, size);
  return a;
}

NDArray NDArray::fromExternal(const Shape& shape, DataType dtype, const void* data, size_t size,
                              std::shared_ptr<const void> owner, bool readOnly) {
  refuseStrings("NDArray::fromExternal", dtype, shape);
  size_t expected = byteSize(shape, dtype);
  if (size != expected) {
    throw Error(strCat("NDArray::fromExternal: ", describe(shape, dtype), " needs ", expected,
                       " bytes, got ", size));
  }
  if (!data && size != 0) throw Error("NDArray::fromExternal: null data pointer");
  NDArray a;
  // The container never writes through the pointer when readOnly is set (copyFrom refuses).
  a.c_ = std::make_shared<Container>(std::move(owner), size, const_cast<void*>(data), 0, shape,
                                     dtype, Device::cpu());
  a.c_->readOnly = readOnly;
  return a;
}

NDArray NDArray::fromDLPack(DLManagedTensor* tensor) {
  if (!tensor) throw Error("NDArray::fromDLPack: got a null DLManagedTensor");
  const DLTensor& t = tensor->dl_tensor;
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape)) {
    throw Error(strCat("NDArray::fromDLPack: invalid ndim ", t.ndim, " or null shape"));
  }
  Shape shape(t.shape, t.shape + t.ndim);
  refuseForeignType(t.dtype);
  DataType dtype = DataType::fromDL(t.dtype);
  size_t nbytes = byteSize(shape, dtype);
  if (t.device.device_type != kDLCPU) {
    throw Error(strCat("NDArray::fromDLPack: expected a cpu tensor, got device type ",
                       static_cast<int>(t.device.device_type)));
  }
  if (t.strides) {
    int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (shape[i] != 1 && t.strides[i] != expected) {
        throw Error(strCat("NDArray::fromDLPack: only compact row-major tensors are supported; ",
                           describe(shape, dtype), " has stride ", t.strides[i], " in dimension ",
                           i, " where ", expected, " was expected"));
      }
      expected *= shape[i];
    }
  }
  if (!t.data && nbytes != 0) throw Error("NDArray::fromDLPack: null data pointer");
  // Validation done: from here on the array owns the tensor.
  std::shared_ptr<void> owner(tensor, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  NDArray a;
  a.c_ = std::make_shared<Container>(std::move(owner), t.byte_offset + nbytes, t.data,
                                     t.byte_offset, std::move(shape), dtype,
                                     Device{t.device.device_type, t.device.device_id});
  return a;
}

const Shape& NDArray::shape() const {
  if (!c_) throw Error("use of a null NDArray");
  return c_->shape;
}

DataType NDArray::dtype() const {
  if (!c_) throw Error("use of a null NDArray");
  return DataType::fromDL(c_->dl.dtype);
}

Device NDArray::device() const {
  if (!c_) throw Error("use of a null NDArray");
  return Device{c_->dl.device.device_type, c_->dl.device.device_id};
}

int64_t NDArray::numel() const { return shapeNumel(shape()); }

size_t NDArray::nbytes() const {
  refuseStrings("NDArray::nbytes", dtype(), shape());
  return byteSize(shape(), dtype());
}

void* NDArray::data() const {
  if (!c_) throw Error("use of a null NDArray");
  return static_cast<char*>(c_->dl.data) + c_->dl.byte_offset;
}

bool NDArray::readOnly() const {
  if (!c_) throw Error("use of a null NDArray");
  return c_->readOnly;
}

const DLTensor* NDArray::dl() const {
  if (!c_) throw Error("use of a null NDArray");
  return &c_->dl;
}

NDArray NDArray::view(const Shape& shape, DataType dtype, size_t byteOffset) const {
  if (!c_) throw Error("cannot take a view of a null NDArray");
  size_t need = byteSize(shape, dtype);
  uint64_t start = c_->dl.byte_offset + byteOffset;
  if (start < byteOffset || start > c_->capacity || need > c_->capacity - start) {
    throw Error(strCat("view ", describe(shape, dtype), " at byte offset ", byteOffset,
                       " does not fit in ", describe(this->shape(), this->dtype()), " (",
                       c_->capacity - std::min<uint64_t>(c_->dl.byte_offset, c_->capacity),
                       " bytes available)"));
  }
  NDArray a;
  a.c_ = std::make_shared<Container>(c_->owner, c_->capacity, c_->dl.data, start, shape, dtype,
                                     device());
  a.c_->readOnly = c_->readOnly;
  return a;
}

void NDArray::reshapeInPlace(const Shape& shape) {
  if (!c_) throw Error("cannot reshape a null NDArray");
  if (shape.size() != c_->shape.size()) {
    throw Error(strCat("cannot reshape ", describe(this->shape(), dtype()), " in place to rank ",
                       shape.size()));
  }
  size_t need = byteSize(shape, dtype());
  if (c_->dl.byte_offset > c_->capacity || need > c_->capacity - c_->dl.byte_offset) {
    throw Error(strCat("cannot reshape ", describe(this->shape(), dtype()), " in place to ",
                       shapeStr(shape), ": its storage holds ",
                       c_->capacity - std::min<uint64_t>(c_->dl.byte_offset, c_->capacity),
                       " bytes"));
  }
  std::copy(shape.begin(), shape.end(), c_->shape.begin());
}

void NDArray::copyFrom(const NDArray& src) {
  if (!c_ || !src.c_) throw Error("copyFrom: source and destination must both be non-null");
  if (src.shape() != shape() || src.dtype() != dtype()) {
    throw Error(strCat("cannot copy ", describe(src.shape(), src.dtype()), " into ",
                       describe(shape(), dtype()), ": ",
                       src.dtype() != dtype() ? "data types differ" : "shapes differ"));
  }
  if (c_->readOnly) {
    throw Error(strCat("cannot copy into ", describe(shape(), dtype()),
                       ": it is a read-only view (weights mapped from an artifact or a params "
                       "file); clone() it first"));
  }
  if (dtype().isString()) {
    const auto* from = src.data<std::string>();
    auto* to = data<std::string>();
    if (from != to) std::copy(from, from + numel(), to);  // views of one buffer never overlap
    return;
  }
  size_t n = nbytes();
  if (n) std::memmove(data(), src.data(), n);
}

NDArray NDArray::clone() const {
  NDArray a = empty(shape(), dtype(), device());
  a.copyFrom(*this);
  return a;
}

namespace {
// A DLManagedTensor that keeps its NDArray's container alive until the consumer deletes it.
struct ExportedTensor {
  DLManagedTensor managed;
  std::shared_ptr<const void> keep;  // the exported array's container
};
}  // namespace

DLManagedTensor* NDArray::toDLPack() const {
  if (!c_) throw Error("cannot export a null NDArray to DLPack");
  refuseStrings("NDArray::toDLPack", dtype(), shape());
  auto* e = new ExportedTensor{};
  e->keep = c_;
  e->managed.dl_tensor = c_->dl;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportedTensor*>(self->manager_ctx);
  };
  return &e->managed;
}

}  // namespace kiln::runtime
