// End-to-end tests of loadModule and the graph executor without the compiler: hand-written C
// kernels plus an artifact container built here are compiled with `cc` into a real shared library.
#include "kiln/runtime/graph_executor.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>

#include "allocation_counter.h"
#include "kiln/runtime/thread_pool.h"
#include "test_util.h"

namespace kiln::runtime {
namespace {

using test::contains;
using test::errorOf;

constexpr int kRows = 2;
constexpr int kCols = 4;
constexpr int kN = kRows * kCols;

// out = relu(x + y + w) with w broadcast over rows; "sum" = x + y is a second output.
// k_padd_w runs through the runtime's pool via __kiln_backend_api.
const char* kKernels = R"C(
#include <stdint.h>
#include "kiln/runtime/backend_api.h"

const KilnBackendApi* __kiln_backend_api = 0;

int32_t k_add(void* const* a) {
  const float* x = a[0]; const float* y = a[1]; float* o = a[2];
  for (int i = 0; i < 8; ++i) o[i] = x[i] + y[i];
  return 0;
}

typedef struct { const float* x; const float* w; float* o; } AddW;
static int32_t addw_body(int64_t begin, int64_t end, void* closure) {
  AddW* s = closure;
  for (int64_t i = begin; i < end; ++i) s->o[i] = s->x[i] + s->w[i % 4];
  return 0;
}
int32_t k_padd_w(void* const* a) {
  AddW s = {a[0], a[1], a[2]};
  if (!__kiln_backend_api || __kiln_backend_api->version != KILN_ABI_VERSION) return 99;
  return __kiln_backend_api->parallel_launch(addw_body, &s, 8);
}

int32_t k_relu(void* const* a) {
  const float* x = a[0]; float* o = a[1];
  for (int i = 0; i < 8; ++i) o[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}

int32_t k_fail(void* const* a) { (void)a; return 7; }

static int32_t fail_body(int64_t begin, int64_t end, void* closure) {
  (void)closure;
  return (begin <= 5 && 5 < end) ? 3 : 0;
}
int32_t k_pfail(void* const* a) {
  (void)a;
  return __kiln_backend_api->parallel_launch(fail_body, 0, 8);
}
)C";

Json tensor(const std::string& name, const Shape& shape, int64_t storage, int64_t offset = 0,
            const std::string& dtype = "float32") {
  Json t;
  t["name"] = name;
  Json s = Json::Array{};
  for (int64_t d : shape) s.push(Json(d));
  t["shape"] = s;
  t["dtype"] = dtype;
  t["storage"] = storage;
  if (storage >= 0) t["offset"] = offset;
  return t;
}

Json ids(std::initializer_list<int> list) {
  Json a = Json::Array{};
  for (int i : list) a.push(Json(i));
  return a;
}

Json kernel(const std::string& name, const std::string& symbol, std::initializer_list<int> args) {
  Json k;
  k["name"] = name;
  k["symbol"] = symbol;
  k["args"] = ids(args);
  return k;
}

Json storages(std::initializer_list<int> sizes) {
  Json a = Json::Array{};
  for (int s : sizes) {
    Json st;
    st["size"] = s;
    a.push(st);
  }
  return a;
}

// tensors: 0 x, 1 y, 2 w (param), 3 sum (storage 2), 4 t1 (storage 3 at offset 32), 5 out.
Json defaultMetadata() {
  Json m;
  m["storages"] = storages({32, 32, 32, 64, 32});
  m["tensors"] = Json::Array{tensor("x", {kRows, kCols}, 0),
                             tensor("y", {kRows, kCols}, 1),
                             tensor("w", {kCols}, -1),
                             tensor("sum", {kRows, kCols}, 2),
                             tensor("t1", {kRows, kCols}, 3, 32),
                             tensor("out", {kRows, kCols}, 4)};
  m["inputs"] = ids({0, 1});
  m["outputs"] = ids({5, 3});
  m["params"] = ids({2});
  m["kernels"] =
      Json::Array{kernel("add", "k_add", {0, 1, 3}), kernel("add_w", "k_padd_w", {3, 2, 4}),
                  kernel("relu", "k_relu", {4, 5})};
  return m;
}

// A one-kernel model over an input of 8 floats.
Json singleKernelMetadata(const std::string& symbol) {
  Json m;
  m["storages"] = storages({32, 32});
  m["tensors"] = Json::Array{tensor("in", {kN}, 0), tensor("out", {kN}, 1)};
  m["inputs"] = ids({0});
  m["outputs"] = ids({1});
  m["params"] = Json::Array{};
  m["kernels"] = Json::Array{kernel(symbol + "_node", symbol, {0, 1})};
  return m;
}

NDArray floats(const Shape& shape, const std::vector<float>& values) {
  return NDArray::fromBytes(shape, DataType::float32(), values.data(),
                            values.size() * sizeof(float));
}

std::vector<float> toVector(const NDArray& a) {
  return std::vector<float>(a.data<float>(), a.data<float>() + a.numel());
}

// The params bytes a test model views; kept alive until the test program ends.
std::string_view keepParams(std::string params) {
  static std::vector<std::unique_ptr<std::string>> kept;
  kept.push_back(std::make_unique<std::string>(std::move(params)));
  return *kept.back();
}

ArtifactModel model(const std::string& name, Json metadata, std::string params = "") {
  ArtifactModel m;
  m.name = name;
  m.executor = "graph";
  m.metadata = std::move(metadata);
  m.externalParams = params.empty();  // no weights: executors need load_params
  m.params = keepParams(std::move(params));
  m.paramsSize = m.params.size();
  return m;
}

std::string cArray(const std::string& bytes) {
  std::string s;
  for (unsigned char c : bytes) s += std::to_string(c) + ",";
  return s;
}

// A kernel that takes heap memory the way a careless kernel would: in[0] picks the allocator
// (0 malloc, 1 calloc, 2 realloc, 3 aligned_alloc, 4 posix_memalign). The calls go through
// volatile pointers so the compiler cannot drop the unused blocks.
const char* kHeapKernel = R"C(
#include <stdint.h>
#include <stdlib.h>

int32_t k_heap(void* const* a) {
  const float* in = a[0]; float* out = a[1];
  void* (*volatile pMalloc)(size_t) = malloc;
  void* (*volatile pCalloc)(size_t, size_t) = calloc;
  void* (*volatile pRealloc)(void*, size_t) = realloc;
  void* (*volatile pAligned)(size_t, size_t) = aligned_alloc;
  int (*volatile pPosix)(void**, size_t, size_t) = posix_memalign;
  void (*volatile pFree)(void*) = free;
  float* buf = 0;
  switch ((int)in[0]) {
    case 0: buf = pMalloc(8 * sizeof(float)); break;
    case 1: buf = pCalloc(8, sizeof(float)); break;
    case 2: buf = pRealloc(0, 8 * sizeof(float)); break;
    case 3: buf = pAligned(64, 64); break;
    case 4: if (pPosix((void**)&buf, 64, 64) != 0) return 5; break;
    default: return 6;
  }
  if (!buf) return 4;
  for (int i = 0; i < 8; ++i) buf[i] = in[i] * 2;
  for (int i = 0; i < 8; ++i) out[i] = buf[i];
  pFree(buf);
  return 0;
}
)C";

std::string librarySource(const Artifact& artifact, const char* kernels = kKernels) {
  std::string bytes = serializeArtifact(artifact);
  return std::string(kernels) + "\nconst unsigned char __kiln_artifact[] = {" + cArray(bytes) +
         "};\nconst unsigned long long __kiln_artifact_size = " + std::to_string(bytes.size()) +
         "ULL;\n";
}

class GraphExecutorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::ScratchDir("graph_executor_test");
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    weights_ = new std::vector<float>(kCols);
    for (float& v : *weights_) v = dist(rng);

    Artifact a;
    a.target = Json::parse(R"({"triple":"x86_64-pc-linux-gnu"})");
    a.models = {
        model("default", defaultMetadata(), saveParams({{"w", floats({kCols}, *weights_)}})),
        model("relu_only", singleKernelMetadata("k_relu")),
        model("failing", singleKernelMetadata("k_fail")),
        model("pfailing", singleKernelMetadata("k_pfail"))};
    build(a, "model.so");

    Artifact newer = a;
    newer.formatVersion = 7;
    newer.producer = "kiln 9.0.0";
    build(newer, "version7.so");

    // A library whose size symbol overstates its artifact array.
    std::string bytes = serializeArtifact(a);
    std::string lying = std::string(kKernels) + "const unsigned char __kiln_artifact[] = {" +
                        cArray(bytes) + "};\nconst unsigned long long __kiln_artifact_size = " +
                        std::to_string(bytes.size() + 4096) + "ULL;\n";
    ASSERT_EQ(test::compileSharedLibrary(lying, dir_->file("lying.so")), "");

    std::string err =
        test::compileSharedLibrary("int unrelated(void) { return 1; }\n", dir_->file("plain.so"));
    ASSERT_EQ(err, "");
  }

  static void TearDownTestSuite() {
    delete dir_;
    delete weights_;
  }

  static void build(const Artifact& a, const std::string& name) {
    std::string err = test::compileSharedLibrary(librarySource(a), dir_->file(name));
    ASSERT_EQ(err, "") << err;
  }

  void SetUp() override {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    x_.resize(kN);
    y_.resize(kN);
    for (float& v : x_) v = dist(rng);
    for (float& v : y_) v = dist(rng);
  }

  void TearDown() override { ThreadPool::global().setNumThreads(ThreadPool::defaultNumThreads()); }

  static std::string path(const std::string& name) { return dir_->file(name); }

  // relu(x + y + w), computed independently of the kernels.
  std::vector<float> expected(const std::vector<float>& w) const {
    std::vector<float> out(kN);
    for (int i = 0; i < kN; ++i) out[i] = std::max(0.0f, (x_[i] + y_[i]) + w[i % kCols]);
    return out;
  }

  Module executor(const Module& lib) const {
    Module ex = lib["default"](Device::cpu()).asModule();
    ex["set_input"]("x", floats({kRows, kCols}, x_));
    ex["set_input"](1, floats({kRows, kCols}, y_));
    return ex;
  }

  static void expectNear(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << i;
  }

  static inline test::ScratchDir* dir_ = nullptr;
  static inline std::vector<float>* weights_ = nullptr;
  std::vector<float> x_, y_;
};

TEST_F(GraphExecutorTest, RunsTheModelAndComputesTheRightNumbers) {
  Module lib = loadModule(path("model.so"));
  EXPECT_STREQ(lib.typeKey(), "library");
  Module ex = executor(lib);
  EXPECT_STREQ(ex.typeKey(), "graph_executor");
  ex["run"]();
  expectNear(toVector(ex["get_output"](0).asNDArray()), expected(*weights_));
  std::vector<float> sum(kN);
  for (int i = 0; i < kN; ++i) sum[i] = x_[i] + y_[i];
  expectNear(toVector(ex["get_output"](1).asNDArray()), sum);
}

TEST_F(GraphExecutorTest, SameResultsForEveryPoolSize) {
  Module lib = loadModule(path("model.so"));
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool::global().setNumThreads(threads);
    Module ex = executor(lib);
    ex["run"]();
    expectNear(toVector(ex["get_output"](0).asNDArray()), expected(*weights_));
  }
}

TEST_F(GraphExecutorTest, GetOutputReturnsACopyOrFillsTheGivenArray) {
  Module lib = loadModule(path("model.so"));
  Module ex = executor(lib);
  ex["run"]();
  NDArray first = ex["get_output"](0).asNDArray();
  std::vector<float> before = toVector(first);
  for (float& v : x_) v += 10.0f;
  ex["set_input"]("x", floats({kRows, kCols}, x_));
  ex["run"]();
  EXPECT_EQ(toVector(first), before);  // earlier result untouched by the second run
  NDArray out = NDArray::empty({kRows, kCols}, DataType::float32());
  NDArray returned = ex["get_output"](0, out).asNDArray();
  EXPECT_TRUE(returned.sameAs(out));
  expectNear(toVector(out), expected(*weights_));
  NDArray wrong = NDArray::empty({kN}, DataType::float32());
  EXPECT_THROW(ex["get_output"](0, wrong), Error);
  std::string msg = errorOf([&] { ex["get_output"](2); });
  EXPECT_TRUE(contains(msg, "output index 2 is out of range")) << msg;
  EXPECT_THROW(ex["get_output"](-1), Error);
}

TEST_F(GraphExecutorTest, InfoFunctionsDescribeInputsAndOutputsButNotWeights) {
  Module ex = loadModule(path("model.so"))["default"](Device::cpu()).asModule();
  EXPECT_EQ(ex["get_num_inputs"]().asInt(), 2);
  EXPECT_EQ(ex["get_num_outputs"]().asInt(), 2);
  EXPECT_EQ(ex["get_input_index"]("x").asInt(), 0);
  EXPECT_EQ(ex["get_input_index"]("y").asInt(), 1);
  EXPECT_EQ(ex["get_input_index"]("w").asInt(), -1);
  EXPECT_EQ(ex["get_input_index"]("nope").asInt(), -1);
  Json in = ex["get_input_info"]().asJson();
  EXPECT_EQ(in.dump(), R"([{"dtype":"float32","name":"x","shape":[2,4]},)"
                       R"({"dtype":"float32","name":"y","shape":[2,4]}])");
  Json out = ex["get_output_info"]().asJson();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].at("name").asString(), "out");
  EXPECT_EQ(out[1].at("name").asString(), "sum");
  EXPECT_EQ(out[1].at("shape")[1].asInt(), kCols);
}

TEST_F(GraphExecutorTest, SetInputErrorsNameWhatWasExpected) {
  Module ex = loadModule(path("model.so"))["default"](Device::cpu()).asModule();
  EXPECT_EQ(errorOf([&] {
              ex["set_input"]("x", NDArray::empty({2, 5}, DataType::float32()));
            }),
            "set_input('x'): expected float32[2,4], got float32[2,5]");
  EXPECT_EQ(errorOf([&] {
              ex["set_input"](1, NDArray::empty({2, 4}, DataType::int32()));
            }),
            "set_input('y'): expected float32[2,4], got int32[2,4]");
  std::string msg = errorOf([&] {
    ex["set_input"]("z", NDArray::empty({2, 4}, DataType::float32()));
  });
  EXPECT_TRUE(contains(msg, "no input named 'z'")) << msg;
  EXPECT_TRUE(contains(msg, "x, y")) << msg;
  msg = errorOf([&] { ex["set_input"]("w", NDArray::empty({4}, DataType::float32())); });
  EXPECT_TRUE(contains(msg, "no input named 'w'")) << msg;
  msg = errorOf([&] { ex["set_input"](2, NDArray::empty({2, 4}, DataType::float32())); });
  EXPECT_TRUE(contains(msg, "input index 2 is out of range")) << msg;
  EXPECT_THROW(ex["set_input"](-1, NDArray::empty({2, 4}, DataType::float32())), Error);
  EXPECT_THROW(ex["set_input"]("x", "not an array"), Error);
  EXPECT_THROW(ex["set_input"]("x"), Error);
  EXPECT_THROW(ex["set_input"](1.5, NDArray::empty({2, 4}, DataType::float32())), Error);
  EXPECT_EQ(errorOf([&] { ex["run"](1); }), "run: expected 0 arguments, got 1");
  msg = errorOf([&] { ex["no_such_function"]; });
  EXPECT_TRUE(contains(msg, "module 'graph_executor' has no function 'no_such_function'")) << msg;
  EXPECT_TRUE(contains(msg, "set_input")) << msg;
}

TEST_F(GraphExecutorTest, GetInputReturnsWhatWasSet) {
  Module ex = executor(loadModule(path("model.so")));
  EXPECT_EQ(toVector(ex["get_input"]("y").asNDArray()), y_);
  EXPECT_EQ(toVector(ex["get_input"](0).asNDArray()), x_);
}

TEST_F(GraphExecutorTest, LoadParamsIsCopyOnWrite) {
  Module lib = loadModule(path("model.so"));
  Module a = executor(lib);
  Module b = executor(lib);
  std::vector<float> w2 = {1.0f, -1.0f, 0.5f, 2.0f};
  a["load_params"](Bytes{saveParams({{"w", floats({kCols}, w2)}})});
  a["run"]();
  b["run"]();
  expectNear(toVector(a["get_output"](0).asNDArray()), expected(w2));
  // The factory's weights and the other executor's are untouched.
  expectNear(toVector(b["get_output"](0).asNDArray()), expected(*weights_));
  Module c = executor(lib);
  c["run"]();
  expectNear(toVector(c["get_output"](0).asNDArray()), expected(*weights_));
}

TEST_F(GraphExecutorTest, LoadParamsChecksNamesShapesAndBytes) {
  Module ex = executor(loadModule(path("model.so")));
  std::string msg = errorOf([&] {
    ex["load_params"](Bytes{saveParams({{"w", NDArray::empty({5}, DataType::float32())}})});
  });
  EXPECT_EQ(msg, "load_params('w'): expected float32[4], got float32[5]");
  msg = errorOf([&] {
    ex["load_params"](Bytes{saveParams({{"v", NDArray::empty({4}, DataType::float32())}})});
  });
  EXPECT_TRUE(contains(msg, "no parameter named 'v'")) << msg;
  EXPECT_TRUE(contains(msg, "its parameters are: w")) << msg;
  EXPECT_THROW(ex["load_params"](Bytes{"garbage"}), Error);
  EXPECT_THROW(ex["load_params"]("a string, not bytes"), Error);
  // A failed load changes nothing.
  ex["run"]();
  expectNear(toVector(ex["get_output"](0).asNDArray()), expected(*weights_));
}

TEST_F(GraphExecutorTest, GetParamsAndRemoveParams) {
  Module lib = loadModule(path("model.so"));
  Module factory = lib["get_factory"]("default").asModule();
  EXPECT_STREQ(factory.typeKey(), "graph_factory");
  Bytes params = factory["get_params"]().asBytes();
  ParamList list = loadParams(params.data);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].first, "w");
  EXPECT_EQ(toVector(list[0].second), *weights_);

  Module bare = factory["remove_params"]().asModule();
  EXPECT_STREQ(bare.typeKey(), "graph_factory");
  EXPECT_TRUE(loadParams(bare["get_params"]().asBytes().data).empty());
  Module ex = bare["create"](Device::cpu()).asModule();
  ex["set_input"]("x", floats({kRows, kCols}, x_));
  ex["set_input"]("y", floats({kRows, kCols}, y_));
  std::string msg = errorOf([&] { ex["run"](); });
  EXPECT_TRUE(contains(msg, "parameters not loaded")) << msg;
  EXPECT_TRUE(contains(msg, "w")) << msg;
  ex["load_params"](params);
  ex["run"]();
  expectNear(toVector(ex["get_output"](0).asNDArray()), expected(*weights_));
  // The original factory still has its weights.
  Module full = factory["default"](Device::cpu()).asModule();
  full["set_input"]("x", floats({kRows, kCols}, x_));
  full["set_input"]("y", floats({kRows, kCols}, y_));
  EXPECT_NO_THROW(full["run"]());
  EXPECT_EQ(factory["list_models"]().asJson().dump(), R"(["default"])");
}

TEST_F(GraphExecutorTest, ShareParamsUsesTheOtherExecutorsArrays) {
  Module lib = loadModule(path("model.so"));
  Module owner = executor(lib);
  std::vector<float> w2 = {-3.0f, 3.0f, 0.0f, 1.0f};
  owner["load_params"](Bytes{saveParams({{"w", floats({kCols}, w2)}})});
  Module bare = lib["get_factory"]("default").asModule()["remove_params"]().asModule();
  Module user = bare["create"](Device::cpu()).asModule();
  user["set_input"]("x", floats({kRows, kCols}, x_));
  user["set_input"]("y", floats({kRows, kCols}, y_));
  user["share_params"](owner);
  user["run"]();
  expectNear(toVector(user["get_output"](0).asNDArray()), expected(w2));
  std::string msg = errorOf([&] { user["share_params"](lib); });
  EXPECT_TRUE(contains(msg, "expected a graph_executor module, got 'library'")) << msg;
  // Sharing from an executor that has no weights is an error, not a null pointer.
  Module empty = bare["create"](Device::cpu()).asModule();
  EXPECT_THROW(user["share_params"](empty), Error);
  Module other = lib["relu_only"](Device::cpu()).asModule();
  EXPECT_THROW(user["share_params"](other), Error);
}

TEST_F(GraphExecutorTest, RunAllocatesNothing) {
  Module ex = executor(loadModule(path("model.so")));
  PackedFunc run = ex["run"];
  run();  // warm up: the pool and everything lazy exist now
  long before = kiln::test::allocationCount();
  for (int i = 0; i < 100; ++i) run.callPacked(Args{});
  EXPECT_EQ(kiln::test::allocationCount(), before);
}

TEST_F(GraphExecutorTest, AllocationCounterSeesKernelsCallingTheCAllocators) {
  // The counter behind RunAllocatesNothing must see a kernel that takes memory from any C
  // allocator, not only operator new: each run of this kernel is counted.
  Artifact a;
  a.target = Json::parse(R"({"triple":"x86_64-pc-linux-gnu"})");
  a.models = {model("heap", singleKernelMetadata("k_heap"))};
  std::string err = test::compileSharedLibrary(librarySource(a, kHeapKernel), path("heap.so"));
  ASSERT_EQ(err, "") << err;
  Module ex = loadModule(path("heap.so"))["heap"](Device::cpu()).asModule();
  const char* names[] = {"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign"};
  for (int which = 0; which < 5; ++which) {
    std::vector<float> in(kN, 1.5f);
    in[0] = static_cast<float>(which);
    ex["set_input"](0, floats({kN}, in));
    PackedFunc run = ex["run"];
    run();
    long before = kiln::test::allocationCount();
    for (int i = 0; i < 10; ++i) run.callPacked(Args{});
    EXPECT_GE(kiln::test::allocationCount() - before, 10) << names[which] << " was not counted";
    std::vector<float> out = toVector(ex["get_output"](0).asNDArray());
    EXPECT_EQ(out[1], 3.0f) << names[which];
  }
}

TEST_F(GraphExecutorTest, FailingKernelsAreNamedWithTheirStatus) {
  Module lib = loadModule(path("model.so"));
  Module ex = lib["failing"](Device::cpu()).asModule();
  std::string msg = errorOf([&] { ex["run"](); });
  EXPECT_TRUE(contains(msg, "kernel 'k_fail_node'")) << msg;
  EXPECT_TRUE(contains(msg, "status 7")) << msg;
  for (int threads : {1, 4}) {
    ThreadPool::global().setNumThreads(threads);
    Module p = lib["pfailing"](Device::cpu()).asModule();
    msg = errorOf([&] { p["run"](); });
    EXPECT_TRUE(contains(msg, "kernel 'k_pfail_node'")) << msg;
    EXPECT_TRUE(contains(msg, "status 3")) << threads << ": " << msg;
  }
}

TEST_F(GraphExecutorTest, SeveralModelsInOneLibrary) {
  Module lib = loadModule(path("model.so"));
  EXPECT_EQ(lib["list_models"]().asJson().dump(),
            R"(["default","relu_only","failing","pfailing"])");
  Module relu = lib["relu_only"](Device::cpu()).asModule();
  relu["set_input"]("in", floats({kN}, x_));
  relu["run"]();
  std::vector<float> want(kN);
  for (int i = 0; i < kN; ++i) want[i] = std::max(0.0f, x_[i]);
  EXPECT_EQ(toVector(relu["get_output"](0).asNDArray()), want);
  std::string msg = errorOf([&] { lib["get_factory"]("nope"); });
  EXPECT_TRUE(contains(msg, "no model named 'nope'")) << msg;
  EXPECT_TRUE(contains(msg, "default, relu_only")) << msg;
  msg = errorOf([&] { lib["nope"]; });
  EXPECT_TRUE(contains(msg, "module 'library' has no function 'nope'")) << msg;
  EXPECT_EQ(lib["get_target"]().asJson().at("triple").asString(), "x86_64-pc-linux-gnu");
  EXPECT_EQ(lib["get_producer"]().asString(), producerVersion());
}

TEST_F(GraphExecutorTest, ExecutorsKeepTheLibraryAlive) {
  Module ex;
  {
    Module lib = loadModule(path("model.so"));
    ex = executor(lib);
  }
  ex["run"]();
  expectNear(toVector(ex["get_output"](0).asNDArray()), expected(*weights_));
}

TEST_F(GraphExecutorTest, OnlyCpuDevices) {
  Module lib = loadModule(path("model.so"));
  std::string msg = errorOf([&] { lib["default"](Device{kDLCUDA, 0}); });
  EXPECT_TRUE(contains(msg, "cpu")) << msg;
  EXPECT_THROW(lib["default"](), Error);
  EXPECT_THROW(lib["default"]("cpu"), Error);
}

TEST_F(GraphExecutorTest, OtherFormatVersionIsAClearError) {
  std::string msg = errorOf([&] { loadModule(path("version7.so")); });
  EXPECT_EQ(msg, strCat("artifact '", path("version7.so"),
                        "' was written with container format version 7 by kiln 9.0.0; this "
                        "runtime (",
                        producerVersion(), ") reads format version ", kArtifactFormatVersion));
}

TEST_F(GraphExecutorTest, OverstatedArtifactSizeIsCaughtBeforeReading) {
  std::string msg = errorOf([&] { loadModule(path("lying.so")); });
  EXPECT_TRUE(contains(msg, "lying.so")) << msg;
  EXPECT_TRUE(contains(msg, "__kiln_artifact_size says")) << msg;
}

TEST_F(GraphExecutorTest, LibrariesWithoutAnArtifactAndMissingFiles) {
  std::string msg = errorOf([&] { loadModule(path("plain.so")); });
  EXPECT_TRUE(contains(msg, "not a kiln artifact")) << msg;
  EXPECT_TRUE(contains(msg, path("plain.so"))) << msg;
  msg = errorOf([&] { loadModule(path("missing.so")); });
  EXPECT_TRUE(contains(msg, path("missing.so"))) << msg;
  EXPECT_TRUE(contains(msg, "no such file")) << msg;
  // A file that is not a shared library at all.
  writeFileAtomic(path("text.so"), std::string("not an ELF file"));
  msg = errorOf([&] { loadModule(path("text.so")); });
  EXPECT_TRUE(contains(msg, "not a shared library")) << msg;
  EXPECT_TRUE(contains(msg, "text.so")) << msg;
}

TEST_F(GraphExecutorTest, SharedLibrarySymbolLookup) {
  SharedLibrary lib(path("model.so"));
  EXPECT_NE(lib.findSymbol("k_add"), nullptr);
  EXPECT_EQ(lib.findSymbol("k_nope"), nullptr);
  std::string msg = errorOf([&] { lib.getSymbol("k_nope"); });
  EXPECT_TRUE(contains(msg, "has no symbol 'k_nope'")) << msg;
  EXPECT_TRUE(contains(msg, "model.so")) << msg;
}

// Metadata errors, checked through makeGraphFactory on the already-built library.
class GraphMetadataTest : public GraphExecutorTest {
 protected:
  std::string factoryError(const Json& metadata, const std::string& params = "") {
    auto lib = std::make_shared<SharedLibrary>(path("model.so"));
    return errorOf([&] { makeGraphFactory(lib, model("m", metadata, params)); });
  }

  // An executor of METADATA over the built library, with weights w = 0.5. Loading the library as
  // a module first points its kernels at the runtime's pool.
  Module executorFor(const Json& metadata) {
    loaded_ = loadModule(path("model.so"));
    auto lib = std::make_shared<SharedLibrary>(path("model.so"));
    std::string params = saveParams({{"w", floats({kCols}, std::vector<float>(kCols, 0.5f))}});
    Module factory = makeGraphFactory(lib, model("m", metadata, params));
    return factory["create"](Device::cpu()).asModule();
  }

  Module loaded_;
};

TEST_F(GraphMetadataTest, ValidMetadataBuildsAFactory) {
  EXPECT_EQ(factoryError(defaultMetadata()), "<no error>");
}

TEST_F(GraphMetadataTest, MissingKernelSymbolIsNamed) {
  Json m = defaultMetadata();
  m["kernels"].asArray()[1]["symbol"] = "k_missing";
  std::string msg = factoryError(m);
  EXPECT_TRUE(contains(msg, "model 'm'")) << msg;
  EXPECT_TRUE(contains(msg, "kernels[1].symbol")) << msg;
  EXPECT_TRUE(contains(msg, "k_missing")) << msg;
}

TEST_F(GraphMetadataTest, OutOfRangeIdsOffsetsAndSizesAreRejected) {
  struct Case {
    std::function<void(Json&)> edit;
    std::string where;
  };
  std::vector<Case> cases = {
      {[](Json& m) { m["tensors"].asArray()[4]["offset"] = 40; }, "tensors[4].offset"},
      {[](Json& m) { m["tensors"].asArray()[4]["offset"] = -1; }, "tensors[4].offset"},
      {[](Json& m) { m["tensors"].asArray()[0]["storage"] = 9; }, "tensors[0].storage"},
      {[](Json& m) {
         m["tensors"].asArray()[0]["shape"] = ids({2, -4});
       },
       "tensors[0].shape"},
      {[](Json& m) { m["tensors"].asArray()[0]["dtype"] = "float31"; }, "tensors[0].dtype"},
      {[](Json& m) {
         m["inputs"] = ids({0, 6});
       },
       "inputs[1]"},
      {[](Json& m) {
         m["inputs"] = ids({0, 2});
       },
       "inputs[1]"},  // a parameter as input
      {[](Json& m) {
         m["inputs"] = ids({0, 0});
       },
       "inputs[1]"},  // duplicate name
      {[](Json& m) {
         m["params"] = ids({2, 3});
       },
       "params[1]"},  // has storage
      {[](Json& m) { m["params"] = ids({}); }, "tensors[2].storage"},
      {[](Json& m) {
         m["kernels"].asArray()[0]["args"] = ids({0, 1, 99});
       },
       "kernels[0].args"},
      {[](Json& m) { m["storages"].asArray()[0]["size"] = "big"; }, "storages[0].size"},
      {[](Json& m) { m.asObject().erase("outputs"); }, "outputs"},
      {[](Json& m) { m["kernels"] = Json(3); }, "kernels"},
  };
  for (const Case& c : cases) {
    Json m = defaultMetadata();
    c.edit(m);
    std::string msg = factoryError(m);
    EXPECT_TRUE(contains(msg, "at " + c.where + ":")) << c.where << ": " << msg;
  }
}

// Tensors sized at run time (storage -2) reach only runtime ops, which must be ops this runtime
// executes.
TEST_F(GraphMetadataTest, RunTimeSizedTensorsAndRuntimeOpsAreChecked) {
  auto runTimeSized = [](Json& m, size_t t) {
    m["tensors"].asArray()[t]["storage"] = -2;
    m["tensors"].asArray()[t]["shape"] = ids({-1, kCols});
  };
  struct Case {
    std::function<void(Json&)> edit;
    std::string where, what;
  };
  std::vector<Case> cases = {
      {[](Json& m) { m["tensors"].asArray()[4]["storage"] = -2; }, "tensors[4].storage",
       "but a static shape"},
      {[&](Json& m) { runTimeSized(m, 4); }, "kernels[1].args",
       "its argument 't1' is sized at run time"},
      // An input may be sized at run time (a control-flow body's), but not read by compiled code.
      {[&](Json& m) { runTimeSized(m, 0); }, "kernels[0].args",
       "its argument 'x' is sized at run time"},
      {[](Json& m) {
         Json op;
         op["op"] = "NoSuchOp";
         m["kernels"].asArray()[2]["runtime_op"] = op;
       },
       "kernels[2].runtime_op.op", "'NoSuchOp' is not one this runtime executes"},
      {[](Json& m) {
         Json op;
         op["op"] = "Relu";
         op["attrs"] = Json(4);
         m["kernels"].asArray()[2]["runtime_op"] = op;
       },
       "kernels[2].runtime_op.attrs", "expected an object"},
  };
  for (const Case& c : cases) {
    Json m = defaultMetadata();
    c.edit(m);
    std::string msg = factoryError(m);
    EXPECT_TRUE(contains(msg, "at " + c.where + ":")) << c.where << ": " << msg;
    EXPECT_TRUE(contains(msg, c.what)) << c.where << ": " << msg;
  }
}

// A runtime op's output sized at run time: allocated when the op runs, read with get_output.
TEST_F(GraphMetadataTest, RuntimeOpsRunOnRunTimeSizedTensors) {
  Json m = defaultMetadata();
  m["tensors"].asArray()[5]["storage"] = -2;
  m["tensors"].asArray()[5]["shape"] = ids({-1, -1});
  Json op;
  op["op"] = "Relu";
  m["kernels"].asArray()[2]["runtime_op"] = op;
  Module ex = executorFor(m);
  ex["set_input"]("x", floats({kRows, kCols}, std::vector<float>(kN, -1.0f)));
  ex["set_input"]("y", floats({kRows, kCols}, std::vector<float>(kN, 3.0f)));
  ex["run"]();
  NDArray out = ex["get_output"](0).asNDArray();
  EXPECT_EQ(out.shape(), (Shape{kRows, kCols}));
  // relu(x + y + w): compare with the compiled path of the same model.
  Module compiled = executorFor(defaultMetadata());
  compiled["set_input"]("x", floats({kRows, kCols}, std::vector<float>(kN, -1.0f)));
  compiled["set_input"]("y", floats({kRows, kCols}, std::vector<float>(kN, 3.0f)));
  compiled["run"]();
  EXPECT_EQ(toVector(out), toVector(compiled["get_output"](0).asNDArray()));
}

TEST_F(GraphMetadataTest, WeightsMustMatchTheGraph) {
  std::string msg = factoryError(defaultMetadata(),
                                 saveParams({{"w", NDArray::empty({3}, DataType::float32())}}));
  EXPECT_TRUE(contains(msg, "float32[3]")) << msg;
  EXPECT_TRUE(contains(msg, "float32[4]")) << msg;
  msg = factoryError(defaultMetadata(),
                     saveParams({{"q", NDArray::empty({4}, DataType::float32())}}));
  EXPECT_TRUE(contains(msg, "'q'")) << msg;
  msg = factoryError(defaultMetadata(), "not params");
  EXPECT_TRUE(contains(msg, "invalid weights")) << msg;
}

}  // namespace
}  // namespace kiln::runtime
