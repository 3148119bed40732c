// Dropout's value rule, which the compiler (on constants) and the runtime (on values known only
// at run time) must agree on: kiln computes Dropout only where it is the identity.
#pragma once

namespace kiln::runtime {

// Dropout's ratio when input 1 is omitted.
inline constexpr double kDropoutDefaultRatio = 0.5;

// Whether Dropout with TRAINING and RATIO is the identity (Y = X, its mask all true): inference
// mode, or training mode with ratio 0. Anything else draws random masks, which kiln refuses.
inline bool dropoutIsIdentity(bool training, double ratio) { return !training || ratio == 0; }

}  // namespace kiln::runtime
