/* The C ABI between kiln and an extension: a shared library that adds backends (accelerator
 * plug-ins) to the compile contexts that load it. An extension exports:
 *
 *   uint32_t kiln_extension_api_version(void);
 *       returns KILN_ABI_VERSION (kiln/runtime/c_abi.h) as the extension saw it when it was
 *       built; kiln refuses an extension of another version before calling anything else in it.
 *   KilnStatus kiln_extension_register(const KilnExtensionHost* host, KilnExtensionRegistrar* r);
 *       describes its backends through host->add_backend(r, &backend), once per backend; returns
 *       KILN_STATUS_OK, or KILN_STATUS_ERROR after host->set_error(r, "what went wrong") to
 *       refuse loading.
 *   const KilnBackendRuntime* kiln_backend_runtime(const char* backend);
 *       the runtime part (kiln/runtime/offload_api.h), which runs what the backend compiled; it
 *       may also live in a separate library, built for the device that runs the model.
 *
 * A backend claims chains of nodes through its patterns (a chain of op types, then a predicate
 * that reads the matched nodes through KilnGraphApi), compiles each claimed chain into a payload
 * (bytes of its own format, stored in the artifact), and its runtime part turns a payload into
 * something it runs; or it compiles the chain into an object file that kiln links into the
 * artifact, which then runs without the extension. Only backends named in --target partition, in
 * the order named, once.
 *
 * Everything an extension passes to kiln (names, help, tables) is read during the call and
 * copied (c_abi.h's ownership rule); the library stays loaded as long as a context that loaded it
 * exists. Statuses and the version are c_abi.h's. Plain C99, so an
 * extension may be written in C or any language with a C FFI, and built without kiln's libraries.
 */
#ifndef KILN_EXTENSION_EXTENSION_API_H_
#define KILN_EXTENSION_EXTENSION_API_H_

#include <stdint.h>

#include "kiln/runtime/offload_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* KILN_EXTENSION_SYMBOL_VERSION: see offload_api.h. */
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

typedef struct KilnNode KilnNode;   /* a node of the graph being partitioned: opaque */
typedef struct KilnMatch KilnMatch; /* a chain of nodes a pattern matched */

/* A tensor as a node sees it. */
typedef struct KilnTensorInfo {
  const char* dtype; /* "float32", "float16", "int64", "int8", "bool", ... */
  int32_t rank;
  const int64_t* shape; /* RANK dims, all known */
  const void* data;     /* its values when it is a constant (weights), dense row-major; else NULL */
} KilnTensorInfo;

/* How a predicate or a compile function reads the nodes of a match; valid during that call only,
 * as are the pointers it returns. Attributes are the node's ONNX attributes as written in the
 * model, except that kiln may have made defaults explicit: read them with ONNX's defaults. */
typedef struct KilnGraphApi {
  const char* (*op)(const KilnNode* n);     /* "Conv" */
  const char* (*name)(const KilnNode* n);   /* the model's name for it */
  int32_t (*num_inputs)(const KilnNode* n); /* omitted optional inputs counted */
  int32_t (*num_outputs)(const KilnNode* n);
  /* Fill *OUT and return 0; 1 when input K is an omitted optional input; -1 when K is out of
   * range. */
  int32_t (*input)(const KilnNode* n, int32_t k, KilnTensorInfo* out);
  int32_t (*output)(const KilnNode* n, int32_t k, KilnTensorInfo* out);
  /* Attributes: 0 and *OUT set when present with that type; 1 when absent; -1 when present with
   * another type. */
  int32_t (*attr_int)(const KilnNode* n, const char* name, int64_t* out);
  int32_t (*attr_float)(const KilnNode* n, const char* name, double* out);
  int32_t (*attr_ints)(const KilnNode* n, const char* name, const int64_t** values, int32_t* count);
  int32_t (*attr_string)(const KilnNode* n, const char* name, const char** out);
  /* The value of the backend's target attribute NAME (the --target-<backend>-<name> option, or its
   * default) in canonical text ("true", "4", "0.5"); NULL when the backend has no such attribute.
   */
  const char* (*target_attr)(const KilnMatch* m, const char* name);
  /* For the compile function: the payload of the match (copied; a later call replaces it), and
   * why the match cannot be compiled (the compile then fails naming the nodes). */
  void (*set_payload)(const KilnMatch* m, const void* data, uint64_t size);
  void (*set_error)(const KilnMatch* m, const char* message);
  /* For a compile function that emits code into the artifact instead of a payload: OBJECT (SIZE
   * bytes, copied) is a relocatable ELF object for the model's target (target_triple) defining
   * ENTRY, a global function of default visibility with the kernel ABI
   *     int32_t ENTRY(void* const* args);   args as for KilnBackendRuntime.run; 0 or a status
   * kiln links it into the artifact under a name of its own and makes every other symbol the
   * object defines local, so the objects of different partitions never clash; it may call libc
   * and libm. Such a partition needs no runtime library. Replaces a payload set before, and the
   * other way round. */
  void (*set_object)(const KilnMatch* m, const void* object, uint64_t size, const char* entry);
  /* The LLVM target triple the model is compiled for, e.g. "x86_64-pc-linux-gnu". */
  const char* (*target_triple)(const KilnMatch* m);
} KilnGraphApi;

/* A chain of nodes a pattern matched, producer first: node i+1 reads the single output of node
 * i, which nothing else reads. The partition becomes one kernel whose arguments are its inputs
 * (every present input of every node that is not produced inside the chain, node by node, input
 * by input; constants included) followed by the last node's output. */
struct KilnMatch {
  const KilnGraphApi* api;
  const KilnNode* const* nodes;
  uint32_t num_nodes;
  const char* pattern;      /* the name of the pattern that matched */
  const int32_t* arg_index; /* per node, per input, flattened (node 0's inputs first): the input's
                               position among the kernel's arguments, or -1 (produced inside the
                               chain, or omitted) */
  uint32_t num_args;        /* inputs plus the one output */
  void* host;               /* kiln's */
};

/* A question, not a status: non-zero to claim MATCH. USER_DATA is the backend's. */
typedef int32_t (*KilnPredicateFn)(void* user_data, const KilnMatch* match);
/* Compiles MATCH into a payload for the backend's runtime (api->set_payload) or into an object
 * linked into the artifact (api->set_object); returns KILN_STATUS_OK, or KILN_STATUS_ERROR after
 * api->set_error. */
typedef KilnStatus (*KilnCompileFn)(void* user_data, const KilnMatch* match);

/* What a backend claims. CHAIN lists op types, producer first, separated by spaces; an element
 * may list alternatives ("MatMul|Gemm") and end in '?' when it may be absent ("Conv Add? Relu").
 * Matching is greedy: the longest chain the predicate accepts is claimed. */
typedef struct KilnPattern {
  const char* name; /* [a-z][a-z0-9_]*: shown by kiln compile --dump-offloads */
  const char* chain;
  KilnPredicateFn predicate; /* NULL: every match is claimed */
} KilnPattern;

/* A backend as an extension describes it. STRUCT_SIZE is sizeof(KilnBackend) as the extension
 * saw it, so that fields appended in later versions are recognised as absent. */
typedef struct KilnBackend {
  uint32_t struct_size;
  const char* name; /* [a-z][a-z0-9_]*, unique among the loaded backends; not "llvm" */
  const char* help; /* one sentence: what it offloads, where to */
  const KilnTargetAttr* attrs;
  uint32_t num_attrs;
  /* Patterns, tried in order at every node (the first that claims a node wins). */
  const KilnPattern* patterns;
  uint32_t num_patterns;
  KilnCompileFn compile; /* required when there are patterns */
  void* user_data;       /* passed to the predicates and the compile function */
  /* kiln passes (names of the compile context's pipeline, e.g. "fold-batch-norm") to run before
   * and after this backend partitions, when it is named in --target. */
  const char* const* passes_before;
  uint32_t num_passes_before;
  const char* const* passes_after;
  uint32_t num_passes_after;
} KilnBackend;

typedef struct KilnExtensionRegistrar KilnExtensionRegistrar; /* opaque: kiln's side of a load */

/* The functions kiln offers an extension, valid during kiln_extension_register. */
typedef struct KilnExtensionHost {
  uint32_t api_version; /* KILN_ABI_VERSION of the kiln loading it */
  /* Adds a backend; returns KILN_STATUS_OK, or KILN_STATUS_ERROR when it is refused (a name
   * already taken, a malformed table): the extension should then return KILN_STATUS_ERROR from
   * kiln_extension_register. */
  KilnStatus (*add_backend)(KilnExtensionRegistrar* r, const KilnBackend* backend);
  /* Says why kiln_extension_register fails; kiln reports MESSAGE naming the extension's file. */
  void (*set_error)(KilnExtensionRegistrar* r, const char* message);
} KilnExtensionHost;

typedef uint32_t (*KilnExtensionVersionFn)(void);
typedef KilnStatus (*KilnExtensionRegisterFn)(const KilnExtensionHost* host,
                                              KilnExtensionRegistrar* registrar);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
}
#endif

#endif /* KILN_EXTENSION_EXTENSION_API_H_ */
