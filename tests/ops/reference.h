// The operator tests' oracle: kiln's plain reference implementations (kiln/ir/reference.h).
#pragma once

#include "kiln/ir/reference.h"
#include "op_harness.h"
