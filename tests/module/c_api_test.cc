// The C ABI: a compiled model loaded, created, fed, run and read through kiln/runtime/c_api.h
// alone, with the errors it reports.
#include "kiln/runtime/c_api.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

KilnValue intValue(int64_t v) {
  KilnValue x{};
  x.type_code = kKilnInt;
  x.v.v_int = v;
  return x;
}

// A string value borrowing S, which must outlive the value.
KilnValue textValue(const std::string& s) {
  KilnValue x{};
  x.type_code = kKilnString;
  x.v.v_str = {s.data(), s.size()};
  return x;
}

KilnValue cpuDevice() {
  KilnValue x{};
  x.type_code = kKilnDevice;
  x.v.v_device = {kDLCPU, 0};
  return x;
}

// Calls MOD[NAME](ARGS); fails the test on an error.
KilnValue call(KilnModuleHandle mod, const char* name, const std::vector<KilnValue>& args) {
  KilnFunctionHandle f = nullptr;
  EXPECT_EQ(kiln_module_get_function(mod, name, &f), 0) << kiln_get_last_error();
  KilnValue result{};
  EXPECT_EQ(kiln_function_call(f, args.data(), static_cast<int32_t>(args.size()), &result), 0)
      << name << ": " << kiln_get_last_error();
  kiln_function_free(f);
  return result;
}

// Sets the MLP executor EXEC's input to X (borrowed: float32[batch, in]), runs it and returns
// output 0.
KilnValue runMlpOn(const KilnValue& exec, const Mlp& m, std::vector<float>& x) {
  int64_t shape[] = {m.batch, m.in};
  DLTensor input{};
  input.data = x.data();
  input.device = {kDLCPU, 0};
  input.ndim = 2;
  input.dtype = {kDLFloat, 32, 1};
  input.shape = shape;
  KilnValue tensor{};
  tensor.type_code = kKilnTensor;
  tensor.v.v_tensor = &input;
  call(exec.v.v_module, "set_input", {intValue(0), tensor});
  call(exec.v.v_module, "run", {});
  return call(exec.v.v_module, "get_output", {intValue(0)});
}

TEST(CApi, RunsACompiledModel) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(2, 8, 16, 4, 3);
  auto graph = buildMlp(m, "");
  std::string path = dir + "/mlp.so";
  driver::compileGraph(*graph, path, {});

  EXPECT_EQ(kiln_api_version(), KILN_ABI_VERSION);
  KilnModuleHandle lib = nullptr;
  ASSERT_EQ(kiln_module_load(path.c_str(), &lib), 0) << kiln_get_last_error();
  KilnValue exec = call(lib, "default", {cpuDevice()});
  ASSERT_EQ(exec.type_code, kKilnModule);
  kiln_module_free(lib);  // the executor keeps the library alive

  KilnValue count = call(exec.v.v_module, "get_num_inputs", {});
  EXPECT_EQ(count.type_code, kKilnInt);
  EXPECT_EQ(count.v.v_int, 1);

  std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), 9);
  KilnValue out = runMlpOn(exec, m, x);
  ASSERT_EQ(out.type_code, kKilnTensor);
  ASSERT_EQ(out.v.v_tensor->ndim, 2);
  EXPECT_EQ(out.v.v_tensor->shape[1], m.out);
  const auto* y = static_cast<const float*>(out.v.v_tensor->data);
  std::vector<float> got(y, y + m.batch * m.out);
  EXPECT_LT(relativeError(got, referenceMlp(m, x)), 1e-5);
  kiln_value_release(&out);
  EXPECT_EQ(out.type_code, kKilnNone);

  KilnValue info = call(exec.v.v_module, "get_input_info", {});
  ASSERT_EQ(info.type_code, kKilnJson);
  EXPECT_NE(std::string(info.v.v_str.data, info.v.v_str.size).find("float32"), std::string::npos);
  kiln_value_release(&info);
  kiln_value_release(&exec);
}

// c_abi.h's ownership rule: a tensor result taken out of its value is the caller's, freed by its
// own deleter, and outlives the executor and library it came from.
TEST(CApi, ATakenTensorOutlivesItsExecutorAndFreesWithItsDeleter) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(2, 8, 16, 4, 5);
  auto graph = buildMlp(m, "");
  std::string path = dir + "/mlp.so";
  driver::compileGraph(*graph, path, {});
  KilnModuleHandle lib = nullptr;
  ASSERT_EQ(kiln_module_load(path.c_str(), &lib), KILN_STATUS_OK) << kiln_get_last_error();
  KilnValue exec = call(lib, "default", {cpuDevice()});
  std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), 4);
  KilnValue out = runMlpOn(exec, m, x);

  DLManagedTensor* managed = nullptr;
  KilnValue notATensor = intValue(3);
  EXPECT_EQ(kiln_value_take_tensor(&notATensor, &managed), KILN_STATUS_ERROR);
  EXPECT_NE(std::string(kiln_get_last_error()).find("expected a tensor"), std::string::npos)
      << kiln_get_last_error();
  EXPECT_EQ(notATensor.type_code, kKilnInt);
  ASSERT_EQ(kiln_value_take_tensor(&out, &managed), KILN_STATUS_OK) << kiln_get_last_error();
  EXPECT_EQ(out.type_code, kKilnNone);
  kiln_value_release(&out);
  kiln_value_release(&exec);
  kiln_module_free(lib);

  ASSERT_NE(managed, nullptr);
  ASSERT_EQ(managed->dl_tensor.ndim, 2);
  EXPECT_EQ(managed->dl_tensor.shape[1], m.out);
  const auto* y = static_cast<const float*>(managed->dl_tensor.data);
  EXPECT_LT(relativeError(std::vector<float>(y, y + m.batch * m.out), referenceMlp(m, x)), 1e-5);
  managed->deleter(managed);
}

// A sequence in and out: kKilnTensorList arguments borrow the caller's tensors; a list result
// owns copies until kiln_value_release.
TEST(CApi, SequencesCrossAsTensorLists) {
  auto graph = ir::parseGraph(R"(graph rev(%s: seq(float32[?])) opset 16 {
  %p = const int64[] [0]
  %last = SequenceAt(%s, %p)
  %t = SequenceInsert(%s, %last)
  return %t
})");
  std::string path = scratchDir() + "/seq.so";
  driver::compileGraph(*graph, path, {});
  KilnModuleHandle lib = nullptr;
  ASSERT_EQ(kiln_module_load(path.c_str(), &lib), 0) << kiln_get_last_error();
  KilnValue exec = call(lib, "default", {cpuDevice()});
  kiln_module_free(lib);

  std::vector<float> a = {1, 2, 3}, b = {4};
  int64_t sa[] = {3}, sb[] = {1};
  DLTensor ta{}, tb{};
  for (auto [t, data, shape] : {std::tuple{&ta, a.data(), sa}, std::tuple{&tb, b.data(), sb}}) {
    t->data = data;
    t->device = {kDLCPU, 0};
    t->ndim = 1;
    t->dtype = {kDLFloat, 32, 1};
    t->shape = shape;
  }
  DLTensor* items[] = {&ta, &tb};
  KilnValue list{};
  list.type_code = kKilnTensorList;
  list.v.v_list = {items, 2};
  call(exec.v.v_module, "set_input", {intValue(0), list});
  call(exec.v.v_module, "run", {});
  KilnValue out = call(exec.v.v_module, "get_output", {intValue(0)});
  ASSERT_EQ(out.type_code, kKilnTensorList);
  ASSERT_EQ(out.v.v_list.size, 3);
  const DLTensor* third = out.v.v_list.items[2];
  ASSERT_EQ(third->shape[0], 3);
  EXPECT_EQ(std::vector<float>(static_cast<const float*>(third->data),
                               static_cast<const float*>(third->data) + 3),
            a);
  kiln_value_release(&out);
  EXPECT_EQ(out.type_code, kKilnNone);

  KilnFunctionHandle f = nullptr;
  ASSERT_EQ(kiln_module_get_function(exec.v.v_module, "set_input", &f), 0);
  KilnValue bad{};
  bad.type_code = kKilnTensorList;
  bad.v.v_list = {nullptr, 2};
  KilnValue args[] = {intValue(0), bad};
  KilnValue result{};
  EXPECT_EQ(kiln_function_call(f, args, 2, &result), -1);
  EXPECT_NE(std::string(kiln_get_last_error()).find("a tensor list of size 2 with NULL items"),
            std::string::npos)
      << kiln_get_last_error();
  kiln_function_free(f);
  kiln_value_release(&exec);
}

TEST(CApi, ErrorsSayWhatWasWrong) {
  KilnModuleHandle lib = nullptr;
  EXPECT_EQ(kiln_module_load("/no/such/model.so", &lib), -1);
  EXPECT_EQ(lib, nullptr);
  EXPECT_NE(std::string(kiln_get_last_error()).find("/no/such/model.so"), std::string::npos)
      << kiln_get_last_error();

  std::string dir = scratchDir();
  Mlp m = randomMlp(1, 4, 4, 2, 1);
  auto graph = buildMlp(m, "");
  std::string path = dir + "/mlp.so";
  driver::compileGraph(*graph, path, {});
  ASSERT_EQ(kiln_module_load(path.c_str(), &lib), 0) << kiln_get_last_error();
  KilnFunctionHandle f = nullptr;
  EXPECT_EQ(kiln_module_get_function(lib, "no_such_function", &f), -1);
  EXPECT_NE(std::string(kiln_get_last_error()).find("no_such_function"), std::string::npos);

  ASSERT_EQ(kiln_module_get_function(lib, "default", &f), 0);
  KilnValue result{};
  std::string cpu = "cpu";           // outlives the call: a KilnValue borrows its text
  KilnValue wrong = textValue(cpu);  // a string where a device is expected
  EXPECT_EQ(kiln_function_call(f, &wrong, 1, &result), -1);
  EXPECT_NE(std::string(kiln_get_last_error()).find("expected a Device, got a string"),
            std::string::npos)
      << kiln_get_last_error();
  KilnValue bad{};
  bad.type_code = 99;
  EXPECT_EQ(kiln_function_call(f, &bad, 1, &result), -1);
  EXPECT_NE(std::string(kiln_get_last_error()).find("type code 99"), std::string::npos);
  EXPECT_EQ(kiln_function_call(f, nullptr, 1, &result), -1);
  kiln_function_free(f);
  kiln_module_free(lib);
}

}  // namespace
}  // namespace kiln::test
