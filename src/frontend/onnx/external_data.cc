// External data: the location checked to stay inside the model's folder, the file mapped once,
// each tensor a view of its byte range.
#include "external_data.h"

#include <charconv>
#include <filesystem>
#include <optional>

#include "kiln/support/error.h"
#include "tensor_convert.h"

namespace kiln::frontend::onnx {
namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

uint64_t readCount(const std::string& key, const std::string& text, const std::string& what) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw Error(
        strCat(what, ": external data ", key, " '", text, "' is not a whole number of bytes"));
  }
  return v;
}

Entry entryOf(const ::onnx::TensorProto& proto, const std::string& what) {
  Entry e;
  for (const auto& kv : proto.external_data()) {
    if (kv.key() == "location") e.location = kv.value();
    if (kv.key() == "offset") e.offset = readCount("offset", kv.value(), what);
    if (kv.key() == "length") e.length = readCount("length", kv.value(), what);
  }
  if (e.location.empty()) throw Error(strCat(what, ": external data has no location"));
  return e;
}

// Whether PATH, made absolute and normal, lies inside DIR (also absolute and normal).
bool inside(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

}  // namespace

bool isExternal(const ::onnx::TensorProto& proto) {
  return proto.data_location() == ::onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0;
}

std::shared_ptr<const MappedFile> ExternalData::fileFor(const std::string& location,
                                                        const std::string& what) {
  if (baseDir_.empty()) {
    throw Error(strCat(what, " stores its data in external file '", location,
                       "', but the model was given as bytes, with no folder to find it in; "
                       "import the model from its file"));
  }
  fs::path rel(location);
  fs::path base = fs::weakly_canonical(fs::absolute(baseDir_));
  fs::path path = fs::weakly_canonical(base / rel);
  // A model names files beside itself: an absolute path or one leading out of its folder (by
  // '..' or a symbolic link) could make kiln read any file the user can.
  if (rel.is_absolute() || !inside(path, base)) {
    throw Error(strCat(what, " stores its data in '", location, "', outside the model's folder '",
                       base.string(), "'; external data must lie beside the model"));
  }
  auto it = files_.find(path.string());
  if (it != files_.end()) return it->second;
  if (!fs::is_regular_file(path)) {
    throw Error(strCat(what, " stores its data in '", location, "', which does not exist in '",
                       base.string(), "' (expected a file beside the model)"));
  }
  auto file = std::make_shared<const MappedFile>(path.string());
  files_.emplace(path.string(), file);
  return file;
}

runtime::NDArray ExternalData::load(const ::onnx::TensorProto& proto, const std::string& what) {
  Entry e = entryOf(proto, what);
  runtime::DataType dtype = dataTypeFromOnnx(proto.data_type(), what);
  if (dtype.isString()) throw Error(strCat(what, " is a STRING tensor; ONNX keeps strings inline"));
  runtime::Shape shape(proto.dims().begin(), proto.dims().end());
  auto numel = static_cast<uint64_t>(checkedNumel(shape, what));
  uint64_t bytes = numel * dtype.bytes();
  if (dtype.bytes() != 0 && bytes / dtype.bytes() != numel) {
    throw Error(strCat(what, " has shape ", runtime::shapeStr(shape), ", too large to hold"));
  }
  std::string type = dtype.str() + runtime::shapeStr(shape);
  if (e.length && *e.length != bytes) {
    throw Error(strCat(what, " has external data length ", *e.length, "; its type ", type,
                       " needs ", bytes, " bytes"));
  }
  std::shared_ptr<const MappedFile> file = fileFor(e.location, what);
  if (e.offset > file->size() || bytes > file->size() - e.offset) {
    throw Error(strCat(what, " (", type, ", ", bytes, " bytes) reads '", e.location, "' from byte ",
                       e.offset, ", past its end (", file->size(), " bytes)"));
  }
  // ONNX stores little-endian data, which is what every target kiln runs on holds in memory.
  return runtime::NDArray::fromExternal(shape, dtype, file->data() + e.offset, bytes, file,
                                        /*readOnly=*/true);
}

}  // namespace kiln::frontend::onnx
