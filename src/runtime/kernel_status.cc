// Kernels report failures as KilnStatus codes (c_abi.h); users read sentences.
#include "kernel_status.h"

#include "kiln/runtime/backend_api.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

std::string kernelStatusText(int32_t status) {
  switch (status) {
    case KILN_STATUS_ERROR:
      return "the runtime could not run one of its parallel loops (status -1)";
    case KILN_STATUS_INDEX_OUT_OF_RANGE:
      return strCat("an index input holds a value outside the axis it indexes (status ", status,
                    "); ONNX makes an out-of-range index an error, so check the model's index "
                    "inputs");
    default:
      return strCat("it failed with status ", status,
                    ", which this runtime does not know (an artifact from a newer kiln?)");
  }
}

}  // namespace kiln::runtime
