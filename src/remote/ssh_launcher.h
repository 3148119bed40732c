// The ssh launcher (launcher.h): a Linux board reached with OpenSSH's ssh and scp.
#pragma once

#include <memory>
#include <string>

#include "kiln/remote/launcher.h"

namespace kiln::remote {

// DEVICE is "ssh:[USER@]HOST[:PORT]"; throws kiln::Error saying what was expected otherwise.
std::unique_ptr<Launcher> makeSshLauncher(const std::string& device,
                                          const LauncherOptions& options);

}  // namespace kiln::remote
