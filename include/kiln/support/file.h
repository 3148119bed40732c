// Whole-file reads and atomic writes, with errors that name the path and the reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

// Reads a whole file; throws kiln::Error naming the path and errno text when it cannot.
std::vector<uint8_t> readFile(const std::string& path);
std::string readTextFile(const std::string& path);

// Writes to PATH.tmp then renames over PATH, so a failed write never leaves a corrupt file.
void writeFileAtomic(const std::string& path, const void* data, size_t size);
inline void writeFileAtomic(const std::string& path, const std::string& text) {
  writeFileAtomic(path, text.data(), text.size());
}

bool fileExists(const std::string& path);
bool isDirectory(const std::string& path);
// Creates DIR and its parents; throws kiln::Error when it cannot.
void makeDirectories(const std::string& path);

}  // namespace kiln
