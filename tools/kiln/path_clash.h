// Refuses an output path that is one of the command's inputs, so a slip such as
// `kiln compile m.onnx -o m.onnx` cannot destroy the model it reads.
#pragma once

#include <string>

namespace kiln::cli {

// True when A and B name the same file or folder (through links, `..` or a relative path), or
// would once the one that does not exist yet is created.
bool samePath(const std::string& a, const std::string& b);

// Throws UsageError "--outputs 'x.npz' is the --inputs file; ..." when OUTPUT and INPUT clash.
void refuseOverwrite(const std::string& outputOption, const std::string& output,
                     const std::string& inputOption, const std::string& input);

// Throws UsageError naming PATH's folder when it does not exist, before any work is done.
void requireOutputFolder(const std::string& path);

}  // namespace kiln::cli
