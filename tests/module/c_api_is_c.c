/* kiln/runtime/c_api.h must compile as C99 on its own: this file is built, never run. */
#include "kiln/runtime/c_api.h"

int kiln_c_api_is_c(void) { /* NOLINT(readability-identifier-naming): a C name */
  KilnValue v = {kKilnInt, {0}};
  v.v.v_int = kiln_api_version();
  return (int)v.v.v_int;
}
