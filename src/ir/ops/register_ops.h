// One registration function per op family, called from the registry's lazy initialisation: static
// initialisers in a static library are dropped by the linker when nothing references their file.
#pragma once

#include <functional>

#include "kiln/ir/op_registry.h"

namespace kiln::ir::ops {

using OpAdder = std::function<void(OpDef)>;

void registerConvOps(const OpAdder& add);
void registerConvTransposeOps(const OpAdder& add);
void registerPoolOps(const OpAdder& add);
void registerMatmulOps(const OpAdder& add);
void registerAttentionOps(const OpAdder& add);
void registerCacheOps(const OpAdder& add);
void registerUnaryOps(const OpAdder& add);
void registerBinaryOps(const OpAdder& add);
void registerNormalizationOps(const OpAdder& add);
void registerReduceOps(const OpAdder& add);
void registerReshapeOps(const OpAdder& add);
void registerShapeOps(const OpAdder& add);
void registerSliceOps(const OpAdder& add);
void registerGeneratorOps(const OpAdder& add);
void registerActivationOps(const OpAdder& add);
void registerVariadicOps(const OpAdder& add);
void registerPadOps(const OpAdder& add);
void registerSplitOps(const OpAdder& add);
void registerBlockOps(const OpAdder& add);
void registerBlockedLayoutOps(const OpAdder& add);
void registerOffloadOps(const OpAdder& add);
void registerTriluOps(const OpAdder& add);
void registerRuntimeExecutedOps(const OpAdder& add);
void registerIndexOps(const OpAdder& add);
void registerQuantizeOps(const OpAdder& add);
void registerTrainingOps(const OpAdder& add);
void registerEinsumOps(const OpAdder& add);
void registerRecurrentOps(const OpAdder& add);
void registerSpectralOps(const OpAdder& add);
void registerControlFlowOps(const OpAdder& add);
void registerSequenceOps(const OpAdder& add);
void registerStringOps(const OpAdder& add);

// Marks DEF as taking shapes known only at run time when the runtime executes the op and its own
// type inference holds for them (run_time_shapes.cc).
void attachRunTimeShapes(OpDef& def);

}  // namespace kiln::ir::ops
