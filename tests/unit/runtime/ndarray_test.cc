// Tests for NDArray: alignment, views that share storage, copies that check shapes, DLPack
// exchange.
#include "kiln/runtime/ndarray.h"

#include <cstring>
#include <functional>
#include <numeric>

#include "test_util.h"

namespace kiln::runtime {
namespace {

NDArray iota(const Shape& shape) {
  NDArray a = NDArray::empty(shape, DataType::float32());
  std::iota(a.data<float>(), a.data<float>() + a.numel(), 0.0f);
  return a;
}

TEST(NDArray, EmptyIsAlignedAndSized) {
  for (int64_t n : {0, 1, 3, 17, 1000}) {
    NDArray a = NDArray::empty({n, 3}, DataType::float64());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
    EXPECT_EQ(a.numel(), n * 3);
    EXPECT_EQ(a.nbytes(), static_cast<size_t>(n * 3 * 8));
    EXPECT_EQ(a.ndim(), 2);
    EXPECT_EQ(a.dtype(), DataType::float64());
    EXPECT_EQ(a.device(), Device::cpu());
  }
  NDArray scalar = NDArray::empty({}, DataType::int32());
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.nbytes(), 4u);
}

TEST(NDArray, ShapeHelpers) {
  EXPECT_EQ(shapeStr({1, 3, 224, 224}), "[1,3,224,224]");
  EXPECT_EQ(shapeStr({}), "[]");
  EXPECT_EQ(shapeNumel({2, 0, 5}), 0);
  EXPECT_THROW(shapeNumel({2, -1}), Error);
  EXPECT_THROW(shapeNumel({int64_t(1) << 40, int64_t(1) << 40}), Error);
  EXPECT_THROW(NDArray::empty({-3}, DataType::float32()), Error);
}

TEST(NDArray, NullArrayUseIsAnError) {
  NDArray a;
  EXPECT_FALSE(a.defined());
  EXPECT_THROW(a.shape(), Error);
  EXPECT_THROW(a.data(), Error);
  EXPECT_THROW(a.toDLPack(), Error);
}

TEST(NDArray, NonCpuAllocationIsAnError) {
  std::string msg = test::errorOf([] {
    NDArray::empty({2}, DataType::float32(), Device{kDLCUDA, 0});
  });
  EXPECT_TRUE(test::contains(msg, "cpu")) << msg;
}

TEST(NDArray, FromBytesChecksTheSize) {
  float v[6] = {1, 2, 3, 4, 5, 6};
  NDArray a = NDArray::fromBytes({2, 3}, DataType::float32(), v, sizeof(v));
  EXPECT_EQ(a.data<float>()[5], 6.0f);
  std::string msg = test::errorOf([&] {
    NDArray::fromBytes({2, 2}, DataType::float32(), v, sizeof(v));
  });
  EXPECT_TRUE(test::contains(msg, "16")) << msg;
  EXPECT_TRUE(test::contains(msg, "24")) << msg;
}

TEST(NDArray, CopiesShareStorageAndCloneDoesNot) {
  NDArray a = iota({4});
  NDArray b = a;  // NOLINT(performance-unnecessary-copy-initialization): the copy is under test
  EXPECT_TRUE(a.sameAs(b));
  b.data<float>()[0] = 42;
  EXPECT_EQ(a.data<float>()[0], 42);
  NDArray c = a.clone();
  EXPECT_FALSE(c.sameAs(a));
  c.data<float>()[1] = -1;
  EXPECT_EQ(a.data<float>()[1], 1);
}

TEST(NDArray, ViewsShareStorageAtAnOffset) {
  NDArray base = iota({4, 4});
  NDArray row2 = base.view({4}, DataType::float32(), sizeof(float) * 2 * 4);
  EXPECT_EQ(row2.data<float>()[0], 8.0f);
  row2.data<float>()[3] = 100;
  EXPECT_EQ(base.data<float>()[11], 100.0f);
  // A view of a view accumulates the offset.
  NDArray last = row2.view({2}, DataType::float32(), 2 * sizeof(float));
  EXPECT_EQ(last.data<float>()[1], 100.0f);
  // Reinterpreting as bytes is allowed.
  NDArray bytes = base.view({64}, DataType::uint8());
  EXPECT_EQ(bytes.data(), base.data());
  EXPECT_EQ(last.dl()->byte_offset, 10 * sizeof(float));
}

TEST(NDArray, ViewsThatDoNotFitAreErrors) {
  NDArray base = NDArray::empty({16}, DataType::uint8());
  // The allocation is rounded to 64 bytes, but a view must fit the rounded capacity.
  EXPECT_NO_THROW(base.view({16}, DataType::uint8(), 0));
  EXPECT_THROW(base.view({65}, DataType::uint8(), 0), Error);
  EXPECT_THROW(base.view({1}, DataType::uint8(), 64), Error);
  EXPECT_THROW(base.view({1}, DataType::uint8(), SIZE_MAX), Error);
  std::string msg = test::errorOf([&] { base.view({20}, DataType::float32(), 8); });
  EXPECT_TRUE(test::contains(msg, "float32[20]")) << msg;
  NDArray tail = base.view({8}, DataType::uint8(), 56);
  EXPECT_THROW(tail.view({9}, DataType::uint8()), Error);
}

TEST(NDArray, CopyFromChecksShapeAndType) {
  NDArray src = iota({2, 3});
  NDArray dst = NDArray::empty({2, 3}, DataType::float32());
  dst.copyFrom(src);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), src.nbytes()), 0);

  NDArray wrongShape = NDArray::empty({3, 2}, DataType::float32());
  std::string msg = test::errorOf([&] { wrongShape.copyFrom(src); });
  EXPECT_TRUE(test::contains(msg, "float32[2,3]")) << msg;
  EXPECT_TRUE(test::contains(msg, "float32[3,2]")) << msg;
  EXPECT_TRUE(test::contains(msg, "shape")) << msg;

  NDArray wrongType = NDArray::empty({2, 3}, DataType::int32());
  msg = test::errorOf([&] { wrongType.copyFrom(src); });
  EXPECT_TRUE(test::contains(msg, "int32[2,3]")) << msg;
  EXPECT_TRUE(test::contains(msg, "data type")) << msg;
  EXPECT_THROW(dst.copyFrom(NDArray()), Error);
}

// String arrays hold constructed std::string objects: copies copy strings, views see them, and
// everything that would read them as bytes refuses, naming them.
TEST(NDArray, StringArraysHoldStringsAndHaveNoByteImage) {
  NDArray a = NDArray::empty({2, 3}, DataType::string());
  EXPECT_EQ(a.dtype().str(), "string");
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_TRUE(a.data<std::string>()[i].empty());
  std::string longText(1000, 'x');  // on the heap, not in the small-string buffer
  a.data<std::string>()[0] = longText;
  a.data<std::string>()[5] = "end";
  NDArray b = a.clone();
  a.data<std::string>()[0] = "changed";
  EXPECT_EQ(b.data<std::string>()[0], longText);
  EXPECT_EQ(b.data<std::string>()[5], "end");
  NDArray row = b.view({3}, DataType::string(), 3 * sizeof(std::string));
  EXPECT_EQ(row.data<std::string>()[2], "end");
  NDArray c = NDArray::empty({2, 3}, DataType::string());
  c.copyFrom(b);
  EXPECT_EQ(c.data<std::string>()[0], longText);

  for (const auto& refused : std::vector<std::function<void()>>{
           [&] { (void)a.nbytes(); }, [&] { (void)a.toDLPack(); },
           [&] { NDArray::fromBytes({1}, DataType::string(), "12345678", 8); }}) {
    std::string msg = test::errorOf(refused);
    EXPECT_TRUE(test::contains(msg, "string[")) << msg;
    EXPECT_TRUE(test::contains(msg, "no byte image")) << msg;
  }
  NDArray ints = NDArray::empty({2, 3}, DataType::int64());
  std::string msg = test::errorOf([&] { c.copyFrom(ints); });
  EXPECT_TRUE(test::contains(msg, "data types differ")) << msg;
}

TEST(NDArray, DLPackRoundTripSharesDataAndKeepsItAlive) {
  DLManagedTensor* managed;
  void* data;
  {
    NDArray a = iota({2, 5});
    data = a.data();
    managed = a.toDLPack();
    EXPECT_EQ(managed->dl_tensor.ndim, 2);
    EXPECT_EQ(managed->dl_tensor.shape[1], 5);
    EXPECT_EQ(managed->dl_tensor.dtype.code, kDLFloat);
    EXPECT_EQ(managed->dl_tensor.data, data);
  }
  // The original NDArray is gone; the DLPack handle keeps its storage alive.
  NDArray back = NDArray::fromDLPack(managed);
  EXPECT_EQ(back.data(), data);
  EXPECT_EQ(back.shape(), (Shape{2, 5}));
  EXPECT_EQ(back.data<float>()[9], 9.0f);
}

struct ForeignTensor {
  static inline int deleted = 0;
  float values[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1};
  DLManagedTensor managed{};

  ForeignTensor() {
    managed.dl_tensor = {values, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, nullptr, 0};
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      ++deleted;
      delete static_cast<ForeignTensor*>(self->manager_ctx);
    };
  }
};

TEST(NDArray, FromDLPackRunsTheDeleterOnceWhenTheLastReferenceGoes) {
  ForeignTensor::deleted = 0;
  auto* t = new ForeignTensor;
  t->managed.dl_tensor.strides = t->strides;  // explicit but compact strides are accepted
  {
    NDArray a = NDArray::fromDLPack(&t->managed);
    NDArray view = a.view({3}, DataType::float32(), 3 * sizeof(float));
    a = NDArray();
    EXPECT_EQ(ForeignTensor::deleted, 0);
    EXPECT_EQ(view.data<float>()[2], 5.0f);
  }
  EXPECT_EQ(ForeignTensor::deleted, 1);
}

TEST(NDArray, FromDLPackHonoursByteOffset) {
  auto* t = new ForeignTensor;
  t->shape[0] = 1;
  t->managed.dl_tensor.byte_offset = 3 * sizeof(float);
  NDArray a = NDArray::fromDLPack(&t->managed);
  EXPECT_EQ(a.data<float>()[0], 3.0f);
  EXPECT_THROW(a.view({4}, DataType::float32()), Error);  // only 3 floats remain
}

TEST(NDArray, FromDLPackRejectsStridedAndBrokenTensors) {
  ForeignTensor t;
  t.managed.deleter = nullptr;  // not consumed on error; owned by this test
  int64_t transposed[2] = {1, 2};
  t.managed.dl_tensor.strides = transposed;
  std::string msg = test::errorOf([&] { NDArray::fromDLPack(&t.managed); });
  EXPECT_TRUE(test::contains(msg, "stride")) << msg;
  t.managed.dl_tensor.strides = nullptr;
  t.managed.dl_tensor.ndim = -1;
  EXPECT_THROW(NDArray::fromDLPack(&t.managed), Error);
  t.managed.dl_tensor.ndim = 2;
  t.managed.dl_tensor.dtype = {kDLComplex, 64, 1};  // a type kiln has none of
  msg = test::errorOf([&] { NDArray::fromDLPack(&t.managed); });
  EXPECT_TRUE(test::contains(msg, "code 5 of 64 bits")) << msg;
  t.managed.dl_tensor.dtype = {kDLFloat, 32, 1};
  t.managed.dl_tensor.device = {kDLCUDA, 0};
  EXPECT_THROW(NDArray::fromDLPack(&t.managed), Error);
  EXPECT_THROW(NDArray::fromDLPack(nullptr), Error);
}

}  // namespace
}  // namespace kiln::runtime
