// Maps a code generation target to what the default schedules need to know about it.
#include "kiln/driver/target_model.h"

#include <unistd.h>

namespace kiln::driver {

kernel::TargetModel targetModelOf(const codegen::Target& target) {
  kernel::TargetModel m;
  std::string isa = target.isaName();
  if (isa == "avx512" || isa == "avx512vl") {  // avx512vl: AVX-512 cores at 256 bits
    m = kernel::TargetModel::avx512();
  } else if (isa == "avx2" || isa == "avx") {
    m = kernel::TargetModel::avx2();
  } else if (isa == "neon" || isa == "sse") {
    m = kernel::TargetModel::neon();
  } else {
    m = kernel::TargetModel::scalar();
  }
  m.isa = isa;
  m.lanes = target.vectorLanes();
  m.vectorRegisters = target.vectorRegisters();
  m.broadcastFromMemory = isa != "neon";
  if (isa == "avx") m.fmaLatency = 3;  // no FMA: a multiply and an add in flight
  const codegen::Target host = codegen::Target::host();
  if (target.triple == host.triple && target.cpu == host.cpu) {
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 > 0) m.l2Bytes = l2;
  }
  return m;
}

}  // namespace kiln::driver
