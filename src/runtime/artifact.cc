// The artifact container: how a compiled library describes itself, so a runtime can refuse bytes it
// does not understand with a clear message instead of misreading them.
//
// Layout (all integers little-endian; str = u32 length + bytes; blob = u64 length + bytes):
//
//   offset 0   "KILNARTF"                  8 bytes of magic
//   offset 8   u32 format version          kArtifactFormatVersion of the writer
//   offset 12  str producer                "kiln 0.1.0"
//   -- the three fields above keep this position in every format version, so any runtime can
//      name the version and producer of an artifact it cannot read --
//   str target                             JSON text: {"triple":..., "cpu":..., "features":...}
//   u32 model count
//   per model:
//     str  name                            "default"
//     str  executor                        "graph", "aot"
//     str  signature                       JSON text: inputs, outputs, workspace (artifact.h)
//     str  metadata                        JSON text, schema per executor
//     u8   params placement                0: embedded below, 1: external file
//     u64  params checksum                 paramsChecksum() of the weights
//     u64  params size                     bytes of the weights, embedded or not
//     zero bytes up to the next multiple of 64 from the container's start
//     params bytes                         saveParams() bytes; none when external
//   nothing after the last model.
//
// The padding puts every weight 64-byte aligned in memory when the container is (the compiler
// aligns its symbol), so the runtime hands weights out in place.
#include "kiln/runtime/artifact.h"

#include <cstdio>
#include <set>

#include "byte_stream.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'A', 'R', 'T', 'F'};

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
};

// Parses "kiln MAJOR.MINOR.PATCH"; false when PRODUCER has another form.
bool parseProducer(const std::string& producer, Version& v) {
  char tail = 0;
  return std::sscanf(producer.c_str(), "kiln %d.%d.%d%c", &v.major, &v.minor, &v.patch, &tail) >=
             3 &&
         (tail == 0 || tail == '-' || tail == '+');
}

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

void checkProducer(const ByteReader& in, const std::string& producer, const std::string& origin) {
  Version theirs, ours;
  if (!parseProducer(producer, theirs)) {
    in.fail(strCat("unrecognised producer '", printable(producer),
                   "'; expected 'kiln MAJOR.MINOR.PATCH'"));
  }
  parseProducer(producerVersion(), ours);
  if (theirs.major > ours.major || (theirs.major == ours.major && theirs.minor > ours.minor)) {
    throw Error(strCat("artifact '", origin, "' was produced by ", producer,
                       ", which is newer than this runtime (", producerVersion(),
                       "); use a runtime of kiln ", theirs.major, ".", theirs.minor,
                       " or later, or recompile the model with ", producerVersion()));
  }
}

Json parseJsonField(const ByteReader& in, size_t at, const std::string& text, const char* field) {
  try {
    return Json::parse(text);
  } catch (const Error& e) {
    in.failAt(at, strCat(field, ": ", e.what()));
  }
}

constexpr size_t kParamsAlignment = 64;

size_t padding(size_t offset) {
  return (kParamsAlignment - offset % kParamsAlignment) % kParamsAlignment;
}

ArtifactModel readModel(ByteReader& in) {
  ArtifactModel m;
  m.name = in.str("model name");
  if (m.name.empty()) in.fail("empty model name");
  m.executor = in.str("executor kind");
  size_t signatureAt = in.offset();
  m.signature = parseJsonField(in, signatureAt, in.str("model signature"), "model signature");
  size_t metadataAt = in.offset();
  m.metadata = parseJsonField(in, metadataAt, in.str("executor metadata"), "executor metadata");
  size_t placementAt = in.offset();
  uint8_t placement = in.u8("params placement");
  if (placement > 1) {
    in.failAt(placementAt, strCat("params placement ", int(placement), "; expected 0 or 1"));
  }
  m.externalParams = placement == 1;
  m.paramsChecksum = in.u64("params checksum");
  m.paramsSize = in.u64("params size");
  in.raw(padding(in.offset()), "params alignment");
  if (!m.externalParams) {
    const uint8_t* bytes = in.raw(m.paramsSize, "params");
    m.params = std::string_view(reinterpret_cast<const char*>(bytes), m.paramsSize);
  }
  return m;
}

}  // namespace

std::string producerVersion() { return "kiln " KILN_VERSION; }

std::string serializeArtifact(const Artifact& artifact) {
  ByteWriter out;
  out.raw(kMagic, sizeof(kMagic));
  out.u32(artifact.formatVersion);
  out.str(artifact.producer);
  out.str(artifact.target.dump());
  out.u32(static_cast<uint32_t>(artifact.models.size()));
  static const char kZeros[kParamsAlignment] = {};
  for (const ArtifactModel& m : artifact.models) {
    out.str(m.name);
    out.str(m.executor);
    out.str(m.signature.dump());
    out.str(m.metadata.dump());
    out.u8(m.externalParams ? 1 : 0);
    out.u64(m.paramsChecksum);
    out.u64(m.externalParams ? m.paramsSize : m.params.size());
    out.raw(kZeros, padding(out.size()));
    if (!m.externalParams) out.raw(m.params.data(), m.params.size());
  }
  return out.take();
}

Artifact parseArtifact(const void* data, size_t size, const std::string& origin) {
  ByteReader in(data, size, strCat("artifact '", origin, "'"));
  if (size < sizeof(kMagic) || std::memcmp(data, kMagic, sizeof(kMagic)) != 0) {
    throw Error(strCat("'", origin,
                       "' is not a kiln artifact: it does not start with the magic "
                       "bytes \"KILNARTF\""));
  }
  in.raw(sizeof(kMagic), "magic");
  Artifact a;
  a.formatVersion = in.u32("format version");
  if (a.formatVersion != kArtifactFormatVersion) {
    std::string producer = "an unknown producer";
    try {
      producer = printable(in.str("producer"));
    } catch (const Error&) {
    }
    throw Error(strCat("artifact '", origin, "' was written with container format version ",
                       a.formatVersion, " by ", producer, "; this runtime (", producerVersion(),
                       ") reads format version ", kArtifactFormatVersion));
  }
  a.producer = in.str("producer");
  checkProducer(in, a.producer, origin);
  size_t targetAt = in.offset();
  a.target = parseJsonField(in, targetAt, in.str("target"), "target");
  uint32_t count = in.u32("model count");
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    size_t at = in.offset();
    a.models.push_back(readModel(in));
    if (!names.insert(a.models.back().name).second) {
      in.failAt(at, strCat("duplicate model name '", printable(a.models.back().name), "'"));
    }
  }
  if (in.remaining() != 0)
    in.fail(strCat(in.remaining(), " unexpected bytes after the last model"));
  return a;
}

}  // namespace kiln::runtime
