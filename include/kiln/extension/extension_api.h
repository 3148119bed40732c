/* The C ABI between kiln and an extension: a shared library that adds backends (accelerator
 * plug-ins) to the compile contexts that load it. An extension exports two functions:
 *
 *   uint32_t kiln_extension_api_version(void);
 *       returns KILN_EXTENSION_API_VERSION as the extension saw it when it was built; kiln refuses
 *       an extension of another version before calling anything else in it.
 *   int32_t kiln_extension_register(const KilnExtensionHost* host, KilnExtensionRegistrar* r);
 *       describes its backends through host->add_backend(r, &backend), once per backend; returns
 *       0, or non-zero after host->set_error(r, "what went wrong") to refuse loading.
 *
 * Everything an extension passes to kiln (names, help, tables) is read during the call and
 * copied; the library stays loaded as long as a context that loaded it exists. Plain C99, so an
 * extension may be written in C or any language with a C FFI, and built without kiln's libraries.
 */
#ifndef KILN_EXTENSION_EXTENSION_API_H_
#define KILN_EXTENSION_EXTENSION_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever the ABI changes; kiln loads only extensions of its own version. */
#define KILN_EXTENSION_API_VERSION 1u

#define KILN_EXTENSION_SYMBOL_VERSION "kiln_extension_api_version"
#define KILN_EXTENSION_SYMBOL_REGISTER "kiln_extension_register"

/* NOLINTBEGIN(readability-identifier-naming) */

/* The type of a target attribute: the value of --target-<backend>-<name> is checked against it. */
typedef enum KilnAttrType {
  KILN_ATTR_BOOL = 0,   /* true/false (also 1/0, yes/no, on/off) */
  KILN_ATTR_INT = 1,    /* a 64-bit integer */
  KILN_ATTR_FLOAT = 2,  /* a double */
  KILN_ATTR_STRING = 3, /* any text */
} KilnAttrType;

/* A target attribute of a backend: how a user tunes what the backend does. It becomes the option
 * --target-<backend>-<name> of the subcommands that compile, listed in their --help. */
typedef struct KilnTargetAttr {
  const char* name;          /* [a-z][a-z0-9-]*: the option's tail */
  KilnAttrType type;         /* the value's type */
  const char* default_value; /* as text, valid for TYPE: "true", "4", "0.5", "fast" */
  const char* help;          /* one sentence for --help */
} KilnTargetAttr;

/* A backend as an extension describes it. STRUCT_SIZE is sizeof(KilnBackend) as the extension
 * saw it, so that fields appended in later versions are recognised as absent. */
typedef struct KilnBackend {
  uint32_t struct_size;
  const char* name; /* [a-z][a-z0-9_]*, unique among the loaded backends; not "llvm" */
  const char* help; /* one sentence: what it offloads, where to */
  const KilnTargetAttr* attrs;
  uint32_t num_attrs;
} KilnBackend;

typedef struct KilnExtensionRegistrar KilnExtensionRegistrar; /* opaque: kiln's side of a load */

/* The functions kiln offers an extension, valid during kiln_extension_register. */
typedef struct KilnExtensionHost {
  uint32_t api_version; /* KILN_EXTENSION_API_VERSION of the kiln loading it */
  /* Adds a backend; returns 0, or -1 when it is refused (a name already taken, a malformed
   * table): the extension should then return non-zero from kiln_extension_register. */
  int32_t (*add_backend)(KilnExtensionRegistrar* r, const KilnBackend* backend);
  /* Says why kiln_extension_register fails; kiln reports MESSAGE naming the extension's file. */
  void (*set_error)(KilnExtensionRegistrar* r, const char* message);
} KilnExtensionHost;

typedef uint32_t (*KilnExtensionVersionFn)(void);
typedef int32_t (*KilnExtensionRegisterFn)(const KilnExtensionHost* host,
                                           KilnExtensionRegistrar* registrar);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
}
#endif

#endif /* KILN_EXTENSION_EXTENSION_API_H_ */
