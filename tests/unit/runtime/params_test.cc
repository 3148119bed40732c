// Tests for the params format: tensors survive a round trip bit for bit; malformed bytes are
// errors.
#include <cstring>
#include <random>

#include "kiln/runtime/artifact.h"
#include "test_util.h"

namespace kiln::runtime {
namespace {

NDArray randomArray(const Shape& shape, DataType dtype, std::mt19937& rng) {
  NDArray a = NDArray::empty(shape, dtype);
  auto* p = static_cast<uint8_t*>(a.data());
  for (size_t i = 0; i < a.nbytes(); ++i) p[i] = static_cast<uint8_t>(rng());
  return a;
}

ParamList sampleParams() {
  std::mt19937 rng(7);
  return {{"conv.weight", randomArray({4, 3, 3, 3}, DataType::float32(), rng)},
          {"bias", randomArray({4}, DataType::float64(), rng)},
          {"scalar", randomArray({}, DataType::int64(), rng)},
          {"empty", randomArray({0, 5}, DataType::int8(), rng)},
          {"mask", randomArray({7}, DataType::boolean(), rng)},
          {"half", randomArray({3}, DataType::float16(), rng)},
          {"vec", randomArray({2}, DataType::parse("float32x4"), rng)}};
}

// Offset of the first byte after the first tensor's name ("conv.weight"): its dtype code.
size_t firstDtypeOffset() { return 8 + 8 + 4 + std::strlen("conv.weight"); }

// Reads BYTES without the checksum, so the structural checks behind it can be reached.
ParamList loadUnchecked(const std::string& bytes) {
  ParamSource source;
  source.verifyChecksum = false;
  return readParams(bytes.data(), bytes.size(), source);
}

TEST(Params, RoundTripKeepsNamesOrderTypesShapesAndBytes) {
  ParamList params = sampleParams();
  std::string bytes = saveParams(params);
  ParamList back = loadParams(bytes);
  ASSERT_EQ(back.size(), params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& [name, a] = params[i];
    const auto& [backName, b] = back[i];
    EXPECT_EQ(backName, name);
    EXPECT_EQ(b.shape(), a.shape()) << name;
    EXPECT_EQ(b.dtype(), a.dtype()) << name;
    ASSERT_EQ(b.nbytes(), a.nbytes()) << name;
    EXPECT_EQ(std::memcmp(b.data(), a.data(), a.nbytes()), 0) << name;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u) << name;
  }
  EXPECT_EQ(saveParams(back), bytes);
  EXPECT_TRUE(loadParams(saveParams({})).empty());
}

TEST(Params, TruncationAtEveryLengthIsAnError) {
  std::string bytes = saveParams(sampleParams());
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string msg = test::errorOf([&] { loadParams(bytes.substr(0, n)); });
    EXPECT_TRUE(test::contains(msg, "params blob is")) << n << ": " << msg;
    msg = test::errorOf([&] { loadUnchecked(bytes.substr(0, n)); });
    EXPECT_TRUE(test::contains(msg, "params blob is")) << n << ": " << msg;
  }
}

TEST(Params, WrongMagicTrailingBytesAndDuplicates) {
  std::string bytes = saveParams(sampleParams());
  std::string bad = bytes;
  bad[0] = 'X';
  EXPECT_TRUE(test::contains(test::errorOf([&] { loadUnchecked(bad); }), "KILNPRM2"));
  EXPECT_TRUE(
      test::contains(test::errorOf([&] { loadUnchecked(bytes + "!"); }), "1 unexpected bytes"));
  NDArray a = NDArray::empty({1}, DataType::float32());
  std::string dup = saveParams({{"x", a}, {"x", a}});
  EXPECT_TRUE(
      test::contains(test::errorOf([&] { loadUnchecked(dup); }), "duplicate tensor name 'x'"));
}

TEST(Params, InvalidDtypeIsAnErrorWithOffset) {
  std::string bytes = saveParams(sampleParams());
  size_t at = firstDtypeOffset();
  ASSERT_EQ(bytes[at], static_cast<char>(kDLFloat));
  std::string bad = bytes;
  bad[at] = 99;
  std::string msg = test::errorOf([&] { loadUnchecked(bad); });
  EXPECT_TRUE(test::contains(msg, strCat("byte offset ", at))) << msg;
  EXPECT_TRUE(test::contains(msg, "conv.weight")) << msg;
  bad = bytes;
  bad[at + 1] = 12;  // 12-bit floats do not exist
  EXPECT_THROW(loadUnchecked(bad), Error);
  bad = bytes;
  bad[at + 2] = bad[at + 3] = 0;  // zero lanes
  EXPECT_THROW(loadUnchecked(bad), Error);
}

TEST(Params, ShapeAndByteCountMustAgree) {
  std::string bytes = saveParams(sampleParams());
  size_t dims = firstDtypeOffset() + 4 + 4;  // after dtype and ndim
  std::string bad = bytes;
  bad[dims] = 5;  // first dimension 4 -> 5: byte count no longer matches
  std::string msg = test::errorOf([&] { loadUnchecked(bad); });
  EXPECT_TRUE(test::contains(msg, "conv.weight")) << msg;
  EXPECT_TRUE(test::contains(msg, "needs")) << msg;
  bad = bytes;
  bad[dims + 7] = '\x80';  // negative dimension
  EXPECT_TRUE(test::contains(test::errorOf([&] { loadUnchecked(bad); }), "negative"));
  bad = bytes;
  bad[dims + 6] = 0x10;  // a huge dimension: rejected without allocating
  EXPECT_THROW(loadUnchecked(bad), Error);
  bad = bytes;
  bad[dims - 4] = 100;  // ndim 100
  EXPECT_TRUE(test::contains(test::errorOf([&] { loadUnchecked(bad); }), "dimensions"));
}

TEST(Params, ChecksumCatchesAnyChangedByte) {
  std::string bytes = saveParams(sampleParams());
  for (size_t at : {size_t{20}, bytes.size() / 2, bytes.size() - 9}) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    std::string msg = test::errorOf([&] { loadParams(bad); });
    EXPECT_TRUE(test::contains(msg, "is corrupt")) << at << ": " << msg;
  }
  EXPECT_EQ(paramsChecksum(bytes.data(), bytes.size()),
            paramsChecksum(saveParams(sampleParams()).data(), bytes.size()));
}

TEST(Params, AlignedBytesWithAnOwnerAreReadInPlaceAndReadOnly) {
  auto owner = std::make_shared<std::string>(saveParams(sampleParams()));
  ASSERT_EQ(reinterpret_cast<uintptr_t>(owner->data()) % 16, 0u);
  // A 64-byte aligned copy of the blob, as a mapped file or an artifact section provides.
  auto aligned =
      std::shared_ptr<void>(std::aligned_alloc(64, (owner->size() + 63) / 64 * 64), std::free);
  std::memcpy(aligned.get(), owner->data(), owner->size());
  ParamSource source;
  source.owner = aligned;
  ParamList list = readParams(aligned.get(), owner->size(), source);
  const char* begin = static_cast<const char*>(aligned.get());
  for (const auto& [name, array] : list) {
    const char* p = static_cast<const char*>(array.data());
    EXPECT_TRUE(p >= begin && p < begin + owner->size()) << name << " was copied";
    EXPECT_TRUE(array.readOnly()) << name;
  }
  NDArray other = NDArray::empty(list[0].second.shape(), list[0].second.dtype());
  EXPECT_TRUE(test::contains(test::errorOf([&] { list[0].second.copyFrom(other); }), "read-only"));
  // Without an owner the tensors are copies the caller may change.
  for (const auto& [name, array] : loadParams(*owner)) EXPECT_FALSE(array.readOnly()) << name;
}

TEST(Params, HugeCountsFailFastWithoutAllocating) {
  std::string bytes = saveParams({});
  for (int i = 0; i < 8; ++i) bytes[8 + i] = '\xff';
  std::string msg = test::errorOf([&] { loadUnchecked(bytes); });
  EXPECT_TRUE(test::contains(msg, "truncated")) << msg;
}

TEST(Params, RandomMutationsNeverCrash) {
  std::string original = saveParams(sampleParams());
  std::mt19937 rng(99);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = original;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    try {
      loadParams(bytes);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace kiln::runtime
