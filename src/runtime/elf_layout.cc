// Reads ELF headers field by field from untrusted bytes: a truncated or corrupt artifact must give
// an error that says so, never a read past the end.
#include "elf_layout.h"

#include <elf.h>

#include <bit>
#include <cstring>

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

struct Reader {
  const unsigned char* data;
  uint64_t size;
  const std::string& origin;

  [[noreturn]] void truncated(const std::string& what, uint64_t end) const {
    throw Error(strCat("artifact '", origin, "' is truncated or corrupt: ", what,
                       " extends to byte ", end, " but the file has ", size,
                       " bytes (an interrupted copy?); copy or compile it again"));
  }
  // True when [offset, offset + bytes) lies inside the file, without overflowing.
  bool holds(uint64_t offset, uint64_t bytes) const {
    return offset <= size && bytes <= size - offset;
  }
  void need(const std::string& what, uint64_t offset, uint64_t bytes) const {
    if (!holds(offset, bytes)) {
      uint64_t end = offset + bytes < offset ? UINT64_MAX : offset + bytes;
      truncated(what, end);
    }
  }
  template <typename T>
  T read(uint64_t offset) const {
    T value;
    std::memcpy(&value, data + offset, sizeof(T));
    return value;
  }
};

template <typename Ehdr, typename Phdr, typename Shdr>
ElfLayout readLayout(const Reader& in) {
  in.need("the ELF header", 0, sizeof(Ehdr));
  auto eh = in.read<Ehdr>(0);
  ElfLayout layout;
  layout.machine = eh.e_machine;
  layout.is64 = sizeof(Ehdr) == sizeof(Elf64_Ehdr);
  if (eh.e_phnum != 0 && eh.e_phentsize != sizeof(Phdr)) {
    throw Error(strCat("artifact '", in.origin, "' is corrupt: program header entries are ",
                       eh.e_phentsize, " bytes, expected ", sizeof(Phdr)));
  }
  in.need("the program header table", eh.e_phoff, uint64_t(eh.e_phnum) * sizeof(Phdr));
  for (uint32_t i = 0; i < eh.e_phnum; ++i) {
    auto ph = in.read<Phdr>(eh.e_phoff + uint64_t(i) * sizeof(Phdr));
    ElfRegion r{strCat("segment ", i), i, ph.p_offset, ph.p_filesz, ph.p_type == PT_LOAD};
    in.need(strCat(r.loaded ? "loadable " : "", r.name), r.offset, r.size);
    layout.segments.push_back(r);
  }
  if (eh.e_shnum == 0) return layout;
  if (eh.e_shentsize != sizeof(Shdr)) {
    throw Error(strCat("artifact '", in.origin, "' is corrupt: section header entries are ",
                       eh.e_shentsize, " bytes, expected ", sizeof(Shdr)));
  }
  in.need("the section header table", eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Shdr));
  auto section = [&](uint32_t i) { return in.read<Shdr>(eh.e_shoff + uint64_t(i) * sizeof(Shdr)); };
  Shdr names{};
  if (eh.e_shstrndx < eh.e_shnum) names = section(eh.e_shstrndx);
  bool haveNames = names.sh_type == SHT_STRTAB && in.holds(names.sh_offset, names.sh_size);
  for (uint32_t i = 0; i < eh.e_shnum; ++i) {
    Shdr sh = section(i);
    if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL) continue;
    std::string name = strCat("section ", i);
    if (haveNames && sh.sh_name < names.sh_size) {
      const char* s = reinterpret_cast<const char*>(in.data + names.sh_offset + sh.sh_name);
      name = std::string(s, strnlen(s, names.sh_size - sh.sh_name));
    }
    ElfRegion r{name, i, sh.sh_offset, sh.sh_size, (sh.sh_flags & SHF_ALLOC) != 0};
    in.need(strCat("section '", name, "'"), r.offset, r.size);
    layout.sections.push_back(r);
  }
  return layout;
}

}  // namespace

ElfLayout readElfLayout(const void* data, uint64_t size, const std::string& origin) {
  Reader in{static_cast<const unsigned char*>(data), size, origin};
  if (size < EI_NIDENT || std::memcmp(data, ELFMAG, SELFMAG) != 0) {
    throw Error(strCat("'", origin,
                       "' is not a shared library: it does not start with an ELF "
                       "header (",
                       size, " bytes)"));
  }
  if (in.data[EI_DATA] != ELFDATA2LSB || std::endian::native != std::endian::little) {
    throw Error(strCat("'", origin,
                       "' is a big-endian ELF file (or this is a big-endian host); kiln reads "
                       "little-endian artifacts only"));
  }
  switch (in.data[EI_CLASS]) {
    case ELFCLASS64:
      return readLayout<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr>(in);
    case ELFCLASS32:
      return readLayout<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr>(in);
    default:
      throw Error(strCat("'", origin, "' has ELF class ", int(in.data[EI_CLASS]),
                         "; expected 1 (32-bit) or 2 (64-bit)"));
  }
}

}  // namespace kiln::runtime
