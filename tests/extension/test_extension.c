/* One test extension, built several times with different definitions (CMakeLists.txt): a backend
 * named TEST_BACKEND with two target attributes, or one that is broken in a way the loader must
 * refuse (TEST_API_VERSION, TEST_REFUSE, TEST_NO_HELP, TEST_BAD_ATTR_TYPE). */
#include <stddef.h>

#include "kiln/extension/extension_api.h"

#ifndef TEST_API_VERSION
#define TEST_API_VERSION KILN_ABI_VERSION
#endif

static const KilnTargetAttr kAttrs[] = {
    {"tile", KILN_ATTR_INT, "4", "Rows of the accelerator's tile"},
#ifdef TEST_NO_HELP
    {"mode", KILN_ATTR_STRING, "fast", ""},
#elif defined(TEST_BAD_ATTR_TYPE)
    {"mode", (KilnAttrType)4, "fast", "A type code no kiln knows"},
#else
    {"mode", KILN_ATTR_STRING, "fast", "How hard the accelerator tries"},
#endif
};

/* The C ABI's names, snake_case: */
/* NOLINTBEGIN(readability-identifier-naming) */
uint32_t kiln_extension_api_version(void) { return TEST_API_VERSION; }

int32_t kiln_extension_register(const KilnExtensionHost* host, KilnExtensionRegistrar* r) {
#ifdef TEST_REFUSE
  (void)kAttrs;
  host->set_error(r, "the accelerator's driver is not installed");
  return 1;
#else
  KilnBackend backend = {sizeof(KilnBackend),
                         TEST_BACKEND,
                         "A test accelerator",
                         kAttrs,
                         2,
                         NULL,
                         0,
                         NULL,
                         NULL,
                         NULL,
                         0,
                         NULL,
                         0};
  return host->add_backend(r, &backend) == 0 ? 0 : 1;
#endif
}
/* NOLINTEND(readability-identifier-naming) */
