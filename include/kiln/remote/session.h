// A session: a connection to one started device that runs code there (uploads, modules, tensors,
// executors, timing, profiles) and does no setup. It closes deterministically: close() or its
// destructor ends the server's session, which removes every uploaded file.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "kiln/runtime/module.h"
#include "kiln/runtime/rpc/client.h"

namespace kiln::remote {

class Session {
 public:
  // ON_CLOSE runs once after the connection is closed (a launcher stops the session's server).
  Session(std::shared_ptr<runtime::rpc::Client> client, std::string deviceName,
          std::function<void()> onClose = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& deviceName() const { return deviceName_; }
  runtime::Device device() const { return runtime::Device::cpu(); }
  Json info();

  // Copies LOCAL_PATH into the session folder as REMOTE_NAME (default: its file name); returns
  // the remote name. A library already loaded cannot be replaced under its name (the loader
  // would keep the old one): loading the replacement is refused.
  std::string upload(const std::string& localPath, const std::string& remoteName = "");
  runtime::Module loadModule(const std::string& remoteName);

  // Tensors on the device: allocate, fill from and read back to host arrays.
  runtime::Module empty(const runtime::Shape& shape, runtime::DataType dtype);
  void copyToDevice(const runtime::Module& tensor, const runtime::NDArray& from);
  runtime::NDArray copyFromDevice(const runtime::Module& tensor);

  // Executors of model MODEL of a loaded library: of the kind the library holds
  // (getExecutorFromFactory), or of one kind, with an error naming the kind it holds otherwise.
  runtime::Module getExecutorFromFactory(const runtime::Module& lib,
                                         const std::string& model = "default");
  runtime::Module getGraphExecutor(const runtime::Module& lib,
                                   const std::string& model = "default");
  runtime::Module getAotExecutor(const runtime::Module& lib, const std::string& model = "default");
  // Uploads the artifact at LOCAL_PATH (under a name of its own, so artifacts with one file name
  // never clash), loads it and creates MODEL's executor.
  runtime::Module getExecutorFromFactory(const std::string& localPath,
                                         const std::string& model = "default");
  // The debug executor of MODEL, for profiles (graph executor libraries).
  runtime::Module getDebugExecutor(const runtime::Module& lib,
                                   const std::string& model = "default");

  // Times MOD[NAME](ARGS) on the device: one untimed call, then REPEAT measurements of NUMBER
  // calls; the mean of each measurement, in milliseconds.
  std::vector<double> timeEvaluator(const runtime::Module& mod, const std::string& name,
                                    const runtime::Args& args, int repeat, int number);

  // Ends the session; idempotent.
  void close();
  bool closed() const;
  runtime::rpc::Client& client() { return *client_; }

 private:
  std::shared_ptr<runtime::rpc::Client> client_;
  std::string deviceName_;
  std::function<void()> onClose_;
  int uploads_ = 0;  // artifacts uploaded by getExecutorFromFactory(path)
};

}  // namespace kiln::remote
