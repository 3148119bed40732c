// Checks of an artifact's file before the dynamic loader maps it: a truncated copy would crash the
// loader (SIGBUS) and a flipped bit would run silently, so both become clear errors here.
#pragma once

#include <cstddef>
#include <string>

namespace kiln::runtime {

// Throws kiln::Error naming ORIGIN when the bytes are not a little-endian ELF file, when a header,
// segment or section they declare lies past their end (an interrupted copy), or, with CHECKSUM,
// when the checksum trailer sealArtifactFile() wrote is missing or does not match, naming the
// sections whose bytes changed.
void verifyArtifactBytes(const void* data, size_t size, const std::string& origin, bool checksum);
// The same for a file, mapped read-only (never through the dynamic loader).
void verifyArtifactFile(const std::string& path, bool checksum);

// Appends the checksum trailer to the ELF file at PATH: an XXH64 of every byte before it, and one
// of each loaded section, so a mismatch can say what changed. The compiler calls it once, after
// linking and before the file is renamed into place.
void sealArtifactFile(const std::string& path);

}  // namespace kiln::runtime
