// Session: the client of one server, with the executor helpers device tests need.
#include "kiln/remote/session.h"

#include "kiln/support/error.h"

namespace kiln::remote {

Session::Session(std::shared_ptr<runtime::rpc::Client> client, std::string deviceName,
                 std::function<void()> onClose)
    : client_(std::move(client)),
      deviceName_(std::move(deviceName)),
      onClose_(std::move(onClose)) {}

Session::~Session() { close(); }

bool Session::closed() const { return client_->closed(); }

void Session::close() {
  try {
    client_->close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): the connection is gone; the session is over
  }
  if (onClose_) {
    auto f = std::move(onClose_);
    onClose_ = nullptr;
    f();
  }
}

Json Session::info() { return client_->info(); }

std::string Session::upload(const std::string& localPath, const std::string& remoteName) {
  std::string name = remoteName;
  if (name.empty()) name = localPath.substr(localPath.find_last_of('/') + 1);
  client_->upload(localPath, name);
  return name;
}

runtime::Module Session::loadModule(const std::string& remoteName) {
  return client_->loadModule(remoteName);
}

runtime::Module Session::empty(const runtime::Shape& shape, runtime::DataType dtype) {
  return client_->allocTensor(shape, dtype);
}

void Session::copyToDevice(const runtime::Module& tensor, const runtime::NDArray& from) {
  client_->copyToRemote(tensor, from);
}

runtime::NDArray Session::copyFromDevice(const runtime::Module& tensor) {
  return client_->copyFromRemote(tensor);
}

namespace {

// MODEL's factory in LIB, checked to be of KIND ("graph", "aot") unless KIND is empty.
runtime::Module factoryOf(const runtime::Module& lib, const std::string& model,
                          const std::string& kind) {
  runtime::Module factory = lib["get_factory"](model).asModule();
  std::string key = factory.typeKey();  // "graph_factory", "aot_factory"
  std::string held = key.substr(0, key.find('_'));
  if (!kind.empty() && held != kind) {
    throw Error(strCat("model '", model, "' was compiled for the ", held, " executor, not the ",
                       kind,
                       " executor; use getExecutorFromFactory, or compile it with "
                       "--executor ",
                       kind));
  }
  return factory;
}

}  // namespace

runtime::Module Session::getExecutorFromFactory(const runtime::Module& lib,
                                                const std::string& model) {
  return factoryOf(lib, model, "")["create"](device()).asModule();
}

runtime::Module Session::getGraphExecutor(const runtime::Module& lib, const std::string& model) {
  return factoryOf(lib, model, "graph")["create"](device()).asModule();
}

runtime::Module Session::getAotExecutor(const runtime::Module& lib, const std::string& model) {
  return factoryOf(lib, model, "aot")["create"](device()).asModule();
}

runtime::Module Session::getExecutorFromFactory(const std::string& localPath,
                                                const std::string& model) {
  std::string name = localPath.substr(localPath.find_last_of('/') + 1);
  return getExecutorFromFactory(loadModule(upload(localPath, strCat(++uploads_, "-", name))),
                                model);
}

runtime::Module Session::getDebugExecutor(const runtime::Module& lib, const std::string& model) {
  return factoryOf(lib, model, "")["debug_create"](device()).asModule();
}

std::vector<double> Session::timeEvaluator(const runtime::Module& mod, const std::string& name,
                                           const runtime::Args& args, int repeat, int number) {
  Json j = client_->timeEvaluator(mod, name, args, repeat, number);
  std::vector<double> ms;
  for (const Json& t : j.at("times_ms").asArray()) ms.push_back(t.asDouble());
  return ms;
}

}  // namespace kiln::remote
