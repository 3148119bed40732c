// NumPy .npy/.npz files: the CLI's exchange format for named input and output arrays.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/runtime/ndarray.h"

namespace kiln::cli {

using NamedArrays = std::vector<std::pair<std::string, runtime::NDArray>>;

// Reads every array of an .npz archive (stored or deflated entries, as np.savez and
// np.savez_compressed write them). Throws kiln::Error naming the file and the entry on anything
// malformed or unsupported (Fortran order, object arrays); ZIP64 archives (numpy writes them for
// entries of 2 GiB and more) are read. The file is mapped, and arrays
// of stored entries are views of the mapping (no copy); it is unmapped when the last goes.
NamedArrays readNpz(const std::string& path);
// The same for an archive already in memory (SIZE bytes at DATA); ORIGIN names it in errors.
NamedArrays parseNpz(const void* data, size_t size, const std::string& origin);
// Writes an uncompressed .npz (what np.savez writes), atomically, streaming each array's bytes
// to the file (no copy of the arrays is made). Throws kiln::Error for duplicate names.
void writeNpz(const std::string& path, const NamedArrays& arrays);

// One .npy payload, as bytes (version 1.0-3.0, little-endian, C order). Throws kiln::Error
// starting with ORIGIN on anything malformed, unsupported or larger than BYTES holds.
// Text is NumPy's fixed-width unicode ('<U8': 8 UTF-32 code units per element, NUL-padded),
// which kiln holds as a string array (UTF-8).
struct NpyView {
  runtime::Shape shape;
  runtime::DataType dtype;
  const char* data = nullptr;  // inside BYTES: the array's elements
  size_t bytes = 0;
  size_t chars = 0;  // text: code units per element
};
NpyView parseNpyView(std::string_view bytes, const std::string& origin);
// A new array holding V's elements (text decoded; ORIGIN names it in errors).
runtime::NDArray arrayOfNpy(const NpyView& v, const std::string& origin);
// The same, copied into a new array.
runtime::NDArray parseNpy(std::string_view bytes, const std::string& origin);
// The .npy header (magic, version, dict, padding) that precedes ARRAY's bytes.
std::string npyHeader(const runtime::NDArray& array);
// A string array's .npy elements (UTF-32, as wide as its longest element); throws kiln::Error
// naming an element that is not valid UTF-8.
std::string npyText(const runtime::NDArray& array);
std::string serializeNpy(const runtime::NDArray& array);

}  // namespace kiln::cli
