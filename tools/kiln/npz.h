// NumPy .npy/.npz files: the CLI's exchange format for named input and output arrays.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kiln/runtime/ndarray.h"

namespace kiln::cli {

using NamedArrays = std::vector<std::pair<std::string, runtime::NDArray>>;

// Reads every array of an .npz archive (stored or deflated entries, as np.savez and
// np.savez_compressed write them). Throws kiln::Error naming the file and the entry on anything
// malformed or unsupported (Fortran order, object arrays, ZIP64).
NamedArrays readNpz(const std::string& path);
// The same for an archive already in memory (SIZE bytes at DATA); ORIGIN names it in errors.
NamedArrays parseNpz(const void* data, size_t size, const std::string& origin);
// Writes an uncompressed .npz (what np.savez writes), atomically.
void writeNpz(const std::string& path, const NamedArrays& arrays);

// One .npy payload, as bytes (version 1.0-3.0, little-endian, C order). Throws kiln::Error
// starting with ORIGIN on anything malformed, unsupported or larger than BYTES holds.
runtime::NDArray parseNpy(const std::string& bytes, const std::string& origin);
std::string serializeNpy(const runtime::NDArray& array);

}  // namespace kiln::cli
