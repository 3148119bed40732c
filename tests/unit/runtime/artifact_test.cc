// Tests for the artifact container: round trips, and every kind of bad input is a kiln::Error
// (truncation at every length, wrong magic, other format versions, newer producers, mutations).
#include "kiln/runtime/artifact.h"

#include <array>
#include <cstdio>
#include <random>

#include "test_util.h"

namespace kiln::runtime {
namespace {

// The weights the sample's first model views; they outlive every artifact the tests build.
const std::string& sampleParamsBytes() {
  static const std::string kBytes = [] {
    float w[3] = {1.5f, -2.0f, 3.25f};
    return saveParams({{"w", NDArray::fromBytes({3}, DataType::float32(), w, sizeof(w))}});
  }();
  return kBytes;
}

Artifact sampleArtifact() {
  Artifact a;
  a.target = Json::parse(R"({"triple":"x86_64-linux-gnu","cpu":"skylake","features":"+avx2"})");
  ArtifactModel m1;
  m1.name = "default";
  m1.executor = "graph";
  m1.metadata = Json::parse(R"({"storages":[{"size":64}],"kernels":[],"big":9007199254740993})");
  m1.signature = Json::parse(R"({"inputs":[],"outputs":[],"workspace_bytes":64,"num_params":1})");
  m1.params = sampleParamsBytes();
  m1.paramsSize = m1.params.size();
  m1.paramsChecksum = paramsChecksum(m1.params.data(), m1.params.size());
  ArtifactModel m2;
  m2.name = "second";
  m2.executor = "graph";
  m2.metadata = Json::parse(R"({"note":"\u00e9"})");
  m2.signature = Json::parse(R"({"inputs":[],"outputs":[],"workspace_bytes":0,"num_params":0})");
  m2.externalParams = true;
  m2.paramsSize = 1234;
  m2.paramsChecksum = 99;
  a.models = {m1, m2};
  return a;
}

// "kiln MAJOR.MINOR.PATCH" of this runtime, as numbers.
std::array<int, 3> runtimeVersion() {
  std::array<int, 3> v{};
  EXPECT_EQ(std::sscanf(producerVersion().c_str(), "kiln %d.%d.%d", &v[0], &v[1], &v[2]), 3);
  return v;
}

std::string withProducer(const std::string& producer) {
  Artifact a = sampleArtifact();
  a.producer = producer;
  return serializeArtifact(a);
}

TEST(Artifact, ProducerVersionNamesThisKiln) { EXPECT_EQ(producerVersion(), "kiln " KILN_VERSION); }

TEST(Artifact, RoundTrip) {
  Artifact a = sampleArtifact();
  std::string bytes = serializeArtifact(a);
  ASSERT_EQ(bytes.compare(0, 8, "KILNARTF"), 0);
  Artifact b = parseArtifact(bytes.data(), bytes.size(), "lib.so");
  EXPECT_EQ(b.formatVersion, kArtifactFormatVersion);
  EXPECT_EQ(b.producer, producerVersion());
  EXPECT_EQ(b.target.dump(), a.target.dump());
  ASSERT_EQ(b.models.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(b.models[i].name, a.models[i].name);
    EXPECT_EQ(b.models[i].executor, a.models[i].executor);
    EXPECT_EQ(b.models[i].metadata.dump(), a.models[i].metadata.dump());
    EXPECT_EQ(b.models[i].signature.dump(), a.models[i].signature.dump());
    EXPECT_EQ(b.models[i].params, a.models[i].params);
    EXPECT_EQ(b.models[i].externalParams, a.models[i].externalParams);
    EXPECT_EQ(b.models[i].paramsSize, a.models[i].paramsSize);
    EXPECT_EQ(b.models[i].paramsChecksum, a.models[i].paramsChecksum);
  }
  // The embedded weights start 64-byte aligned within the container.
  EXPECT_EQ((b.models[0].params.data() - bytes.data()) % 64, 0);
  EXPECT_EQ(b.models[0].metadata.at("big").asInt(), 9007199254740993);
  EXPECT_EQ(serializeArtifact(b), bytes);
}

TEST(Artifact, TruncationAtEveryLengthIsAnError) {
  std::string bytes = serializeArtifact(sampleArtifact());
  for (size_t n = 0; n < bytes.size(); ++n) {
    // A fresh heap copy of exactly n bytes, so reading past it would be caught by ASan.
    std::vector<char> prefix(bytes.begin(), bytes.begin() + static_cast<long>(n));
    std::string msg = test::errorOf([&] { parseArtifact(prefix.data(), n, "cut.so"); });
    EXPECT_TRUE(test::contains(msg, "cut.so")) << n << ": " << msg;
    if (n >= 12) {
      EXPECT_TRUE(test::contains(msg, "byte offset")) << n << ": " << msg;
    }
  }
}

TEST(Artifact, WrongMagicIsNotAnArtifact) {
  std::string bytes = serializeArtifact(sampleArtifact());
  bytes[3] = 'X';
  std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "x.so"); });
  EXPECT_TRUE(test::contains(msg, "'x.so' is not a kiln artifact")) << msg;
  msg = test::errorOf([&] { parseArtifact("", 0, "empty.so"); });
  EXPECT_TRUE(test::contains(msg, "not a kiln artifact")) << msg;
}

TEST(Artifact, OtherFormatVersionNamesBothVersionsAndTheProducer) {
  Artifact a = sampleArtifact();
  a.formatVersion = 7;
  a.producer = "kiln 9.0.0";
  std::string bytes = serializeArtifact(a);
  std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "x.so"); });
  EXPECT_EQ(msg, strCat("artifact 'x.so' was written with container format version 7 by kiln "
                        "9.0.0; this runtime (",
                        producerVersion(), ") reads format version ", kArtifactFormatVersion));
  // Even a version field followed by garbage gives the version message, not a crash.
  std::string cut = bytes.substr(0, 14);
  msg = test::errorOf([&] { parseArtifact(cut.data(), cut.size(), "x.so"); });
  EXPECT_TRUE(test::contains(msg, "format version 7")) << msg;
}

TEST(Artifact, NewerProducerIsRejectedNamingBothVersions) {
  auto [major, minor, patch] = runtimeVersion();
  for (const std::string& newer :
       {strCat("kiln ", major, ".", minor + 1, ".0"), strCat("kiln ", major + 1, ".0.0")}) {
    std::string bytes = withProducer(newer);
    std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "n.so"); });
    EXPECT_TRUE(test::contains(msg, newer)) << msg;
    EXPECT_TRUE(test::contains(msg, producerVersion())) << msg;
    EXPECT_TRUE(test::contains(msg, "newer")) << msg;
  }
}

TEST(Artifact, SameMinorOrOlderProducerIsAccepted) {
  auto [major, minor, patch] = runtimeVersion();
  std::vector<std::string> ok = {strCat("kiln ", major, ".", minor, ".", patch + 5),
                                 strCat("kiln ", major, ".", minor, ".", patch, "-dev")};
  if (minor > 0) ok.push_back(strCat("kiln ", major, ".", minor - 1, ".9"));
  if (major > 0) ok.push_back(strCat("kiln ", major - 1, ".99.0"));
  for (const std::string& producer : ok) {
    std::string bytes = withProducer(producer);
    EXPECT_NO_THROW(parseArtifact(bytes.data(), bytes.size(), "o.so")) << producer;
  }
}

TEST(Artifact, UnrecognisedProducerIsAnError) {
  for (const char* producer : {"", "tvm 0.1.0", "kiln", "kiln x.y.z", "kiln 0.1"}) {
    std::string bytes = withProducer(producer);
    std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "p.so"); });
    EXPECT_TRUE(test::contains(msg, "producer")) << producer << ": " << msg;
  }
}

TEST(Artifact, TrailingBytesAndDuplicateModelsAreErrors) {
  std::string bytes = serializeArtifact(sampleArtifact()) + "xyz";
  std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "t.so"); });
  EXPECT_TRUE(test::contains(msg, "3 unexpected bytes")) << msg;

  Artifact a = sampleArtifact();
  a.models[1].name = "default";
  bytes = serializeArtifact(a);
  msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "d.so"); });
  EXPECT_TRUE(test::contains(msg, "duplicate model name 'default'")) << msg;

  a.models[1].name = "";
  bytes = serializeArtifact(a);
  EXPECT_THROW(parseArtifact(bytes.data(), bytes.size(), "e.so"), Error);
}

TEST(Artifact, MalformedMetadataJsonNamesTheField) {
  Artifact a = sampleArtifact();
  std::string bytes = serializeArtifact(a);
  std::string metadata = a.models[0].metadata.dump();
  size_t at = bytes.find(metadata);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 1] = '?';  // {? ... : no longer JSON
  std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "m.so"); });
  EXPECT_TRUE(test::contains(msg, "executor metadata")) << msg;
  EXPECT_TRUE(test::contains(msg, "invalid JSON at byte 1")) << msg;
}

TEST(Artifact, HugeLengthFieldsDoNotAllocateOrCrash) {
  std::string bytes = serializeArtifact(sampleArtifact());
  // The producer length field sits at offset 12.
  for (int i = 0; i < 4; ++i) bytes[12 + i] = '\xff';
  std::string msg = test::errorOf([&] { parseArtifact(bytes.data(), bytes.size(), "h.so"); });
  EXPECT_TRUE(test::contains(msg, "truncated")) << msg;
  EXPECT_TRUE(test::contains(msg, "byte offset 16")) << msg;
}

TEST(Artifact, RandomMutationsNeverCrash) {
  std::string original = serializeArtifact(sampleArtifact());
  std::mt19937 rng(42);
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = original;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xff);
    }
    try {
      parseArtifact(bytes.data(), bytes.size(), "fuzz.so");
      ++parsed;
    } catch (const Error&) {
    }
  }
  // Some mutations land in payload bytes (weights, names) and still parse.
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace kiln::runtime
