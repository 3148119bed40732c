// Reads only the section headers, .dynsym and its string table: all that is needed to count
// exports, without depending on binutils being installed.
#include "elf_symbols.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace kiln::codegen::testing {
namespace {

template <typename T>
bool readAt(const std::string& file, uint64_t offset, T* out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::map<std::string, int> definedDynamicSymbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string file = buf.str();
  std::map<std::string, int> counts;
  Elf64_Ehdr header;
  if (!readAt(file, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64) {
    ADD_FAILURE() << path << " is not a 64-bit ELF file";
    return counts;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (!readAt(file, header.e_shoff + i * header.e_shentsize, &sections[i])) {
      ADD_FAILURE() << path << ": truncated section header " << i;
      return counts;
    }
  }
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    if (strtab.sh_offset > file.size() || file.size() - strtab.sh_offset < strtab.sh_size) continue;
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!readAt(file, symtab.sh_offset + at, &sym) || sym.st_name >= strtab.sh_size) break;
      if (sym.st_shndx == SHN_UNDEF) continue;
      const char* name = file.data() + strtab.sh_offset + sym.st_name;
      ++counts[std::string(name, strnlen(name, strtab.sh_size - sym.st_name))];
    }
  }
  return counts;
}

}  // namespace kiln::codegen::testing
