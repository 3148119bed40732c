// Tests for Value, PackedFunc and Module lookup: wrong types and missing functions are clear
// errors.
#include "kiln/runtime/packed_func.h"

#include "kiln/runtime/module.h"
#include "test_util.h"

namespace kiln::runtime {
namespace {

TEST(Value, HoldsEachKind) {
  EXPECT_TRUE(Value().isNone());
  EXPECT_EQ(Value(7).asInt(), 7);
  EXPECT_EQ(Value(int64_t(1) << 40).asInt(), int64_t(1) << 40);
  EXPECT_DOUBLE_EQ(Value(2.5).asDouble(), 2.5);
  EXPECT_DOUBLE_EQ(Value(3).asDouble(), 3.0);  // ints widen to doubles
  EXPECT_TRUE(Value(true).asBool());
  EXPECT_EQ(Value("text").asString(), "text");
  EXPECT_EQ(Value(Bytes{std::string("a\0b", 3)}).asBytes().data.size(), 3u);
  EXPECT_EQ(Value(Device::cpu(2)).asDevice(), Device::cpu(2));
  EXPECT_EQ(Value(DataType::int8()).asDataType(), DataType::int8());
  EXPECT_EQ(Value("float16").asDataType(), DataType::float16());
  EXPECT_EQ(Value(Json::parse("[1,2]")).asJson().size(), 2u);
  NDArray a = NDArray::empty({2}, DataType::float32());
  EXPECT_TRUE(Value(a).asNDArray().sameAs(a));
}

TEST(Value, WrongKindNamesExpectedAndActual) {
  EXPECT_EQ(test::errorOf([] { Value("s").asNDArray(); }), "expected an NDArray, got a string");
  EXPECT_EQ(test::errorOf([] { Value(1.5).asInt(); }), "expected an int, got a float");
  EXPECT_EQ(test::errorOf([] { Value().asString(); }), "expected a string, got none");
  EXPECT_EQ(test::errorOf([] { Value(3).asDevice(); }), "expected a Device, got an int");
  EXPECT_EQ(test::errorOf([] { Value("x").asBytes(); }), "expected bytes, got a string");
  EXPECT_EQ(test::errorOf([] { Value(Bytes{}).asModule(); }), "expected a Module, got bytes");
  EXPECT_EQ(test::errorOf([] { Value(Json()).asFunc(); }),
            "expected a PackedFunc, got a Json value");
  EXPECT_EQ(test::errorOf([] { Value(Device::cpu()).asJson(); }),
            "expected a Json value, got a Device");
  EXPECT_THROW(Value("nonsense").asDataType(), Error);
  EXPECT_STREQ(Value(NDArray()).typeName(), "NDArray");
}

TEST(PackedFunc, CallsWithConvertedArguments) {
  PackedFunc add([](const Args& a) {
    checkArgCount("add", a, 2);
    return Value(a[0].asInt() + a[1].asInt());
  });
  EXPECT_EQ(add(2, 40).asInt(), 42);
  EXPECT_EQ(test::errorOf([&] { add(1); }), "add: expected 2 arguments, got 1");
  EXPECT_EQ(test::errorOf([&] { add(1, "two"); }), "expected an int, got a string");
  PackedFunc nothing;
  EXPECT_FALSE(nothing);
  EXPECT_THROW(nothing(), Error);
  // Functions travel inside Values.
  Value v(add);
  EXPECT_EQ(v.asFunc()(1, 1).asInt(), 2);
}

TEST(PackedFunc, CheckArgCountSingular) {
  EXPECT_EQ(test::errorOf([] { checkArgCount("f", Args{}, 1); }), "f: expected 1 argument, got 0");
  EXPECT_NO_THROW(checkArgCount("f", Args{Value(1)}, 1));
}

class TestNode : public ModuleNode {
 public:
  explicit TestNode(std::string fn) : fn_(std::move(fn)) {}
  const char* typeKey() const override { return "test"; }
  PackedFunc getFunction(const std::string& name) override {
    if (name != fn_) return {};
    auto self = shared_from_this();  // functions may keep their module alive
    return PackedFunc([self, name](const Args&) { return Value(name); });
  }
  std::vector<std::string> functionNames() const override { return {fn_, "other"}; }

 private:
  std::string fn_;
};

TEST(Module, LookupAndMissingFunctionMessage) {
  Module m(std::make_shared<TestNode>("hello"));
  EXPECT_EQ(m["hello"]().asString(), "hello");
  EXPECT_FALSE(m.getFunction("bye"));
  EXPECT_EQ(test::errorOf([&] { m["bye"]; }),
            "module 'test' has no function 'bye' (it has: hello, other)");
  EXPECT_EQ(std::string(m.typeKey()), "test");
}

TEST(Module, ImportsAreSearchedOnRequest) {
  Module root(std::make_shared<TestNode>("a"));
  root.node()->imports.push_back(Module(std::make_shared<TestNode>("b")));
  EXPECT_FALSE(root.getFunction("b"));
  EXPECT_EQ(root.getFunction("b", true)().asString(), "b");
  EXPECT_EQ(root["b"]().asString(), "b");
  Value v(root);
  EXPECT_EQ(v.asModule()["a"]().asString(), "a");
}

TEST(Module, FunctionKeepsModuleAlive) {
  PackedFunc f;
  {
    Module m(std::make_shared<TestNode>("f"));
    f = m["f"];
  }
  EXPECT_EQ(f().asString(), "f");
}

TEST(Module, NullModuleLookupIsAnError) {
  Module m;
  EXPECT_FALSE(m.defined());
  EXPECT_THROW(m.getFunction("x"), Error);
}

}  // namespace
}  // namespace kiln::runtime
