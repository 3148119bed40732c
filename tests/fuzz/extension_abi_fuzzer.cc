// An extension is code kiln did not write: whatever its registration hands to kiln (names, help,
// attribute types and defaults, pattern chains, counts that do not match their arrays, another
// API version) must become backends that pass every check, or a kiln::Error naming what is wrong.
// The fuzzer's bytes describe the backends a registration adds through kiln's host table.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "kiln/extension/extension_api.h"
#include "kiln/extension/extensions.h"
#include "kiln/support/error.h"

namespace {

// The fuzzer's bytes, read one field at a time; past the end everything reads as zero.
struct Bytes {
  const uint8_t* data;
  size_t size, at = 0;
  uint8_t byte() { return at < size ? data[at++] : 0; }
  // Text of up to 31 bytes (NULs included), or null when the first byte says so.
  const char* text(std::deque<std::string>& keep) {
    uint8_t head = byte();
    if (head == 0xFF) return nullptr;
    std::string s;
    for (int i = 0, n = head % 32; i < n; ++i) s += static_cast<char>(byte());
    keep.push_back(s);
    return keep.back().c_str();
  }
};

Bytes* gInput = nullptr;

int32_t compileNothing(void*, const KilnMatch*) { return 1; }

uint32_t version() {
  uint8_t b = gInput->byte();
  return b < 250 ? KILN_ABI_VERSION : b;
}

int32_t registerBackends(const KilnExtensionHost* host, KilnExtensionRegistrar* r) {
  Bytes& in = *gInput;
  std::deque<std::string> texts;
  int backends = 1 + in.byte() % 3;
  for (int k = 0; k < backends; ++k) {
    std::vector<KilnTargetAttr> attrs(in.byte() % 4);
    for (KilnTargetAttr& a : attrs) {
      a.name = in.text(texts);
      a.type = static_cast<KilnAttrType>(static_cast<int>(in.byte() % 6) - 1);
      a.default_value = in.text(texts);
      a.help = in.text(texts);
    }
    std::vector<KilnPattern> patterns(in.byte() % 3);
    for (KilnPattern& p : patterns) p = {in.text(texts), in.text(texts), nullptr};
    std::vector<const char*> passes(in.byte() % 3);
    for (const char*& p : passes) p = in.text(texts);
    uint8_t flags = in.byte();
    KilnBackend b{};
    b.struct_size = (flags & 1) ? sizeof(KilnBackend) - 8 : sizeof(KilnBackend);
    b.name = in.text(texts);
    b.help = in.text(texts);
    b.attrs = (flags & 2) ? nullptr : attrs.data();
    b.num_attrs = static_cast<uint32_t>(attrs.size());
    b.patterns = (flags & 4) ? nullptr : patterns.data();
    b.num_patterns = static_cast<uint32_t>(patterns.size());
    b.compile = (flags & 8) ? nullptr : compileNothing;
    b.passes_before = (flags & 16) ? nullptr : passes.data();
    b.num_passes_before = static_cast<uint32_t>(passes.size());
    b.passes_after = passes.data();
    b.num_passes_after = (flags & 32) ? static_cast<uint32_t>(passes.size()) : 0;
    if (host->add_backend(r, (flags & 64) ? nullptr : &b) != 0) return 1;
  }
  if (in.byte() == 0xEE) host->set_error(r, in.text(texts));
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  gInput = &in;
  kiln::extension::ExtensionSet set;
  try {
    set.registerExtension("fuzz.so", version, registerBackends);
    // What was kept passed the checks: named, with help, and its attributes' defaults typed.
    for (const kiln::extension::Backend& b : set.backends()) {
      if (b.name.empty() || b.help.empty() || b.name == "llvm") __builtin_trap();
      if (!b.patterns.empty() && b.compile == nullptr) __builtin_trap();
    }
  } catch (const kiln::Error&) {
    if (!set.backends().empty()) __builtin_trap();  // a refused extension keeps nothing
  }
  gInput = nullptr;
  return 0;
}
