/* A test backend, "objgen", that emits code into the artifact: for every float32 Mul, optionally
 * followed by an Add, whose operands all have the output's shape, it writes a C function
 * specialised to the element count, compiles it with the C compiler its `cc` attribute names, and
 * hands kiln the object. Its `fault` attribute makes it hand over a broken object instead, so that
 * tests can check kiln refuses each kind clearly. Every object also defines a global helper of the
 * same name, which only links because kiln makes it local to its partition. Built with
 * OBJGEN_PASSES, it asks for the passes observe-before and observe-after around its partitioning
 * (a test adds them to its compile context). */
#define _POSIX_C_SOURCE 200809L /* NOLINT(bugprone-reserved-identifier): mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kiln/extension/extension_api.h"

static const KilnTargetAttr kAttrs[] = {
    {"cc", KILN_ATTR_STRING, "cc", "The C compiler that builds the kernels"},
    {"fault", KILN_ATTR_STRING, "none",
     "none, or the fault to commit: text, no-entry, hidden, shared"},
};

static int64_t elements(const KilnTensorInfo* t) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < t->rank; ++i) n *= t->shape[i];
  return n;
}

/* Every tensor of the chain is float32 with the output's element count and rank. */
static int32_t objgenAccepts(void* user_data, const KilnMatch* m) {
  const KilnGraphApi* api = m->api;
  KilnTensorInfo out, t;
  uint32_t i;
  int32_t k;
  (void)user_data;
  api->output(m->nodes[m->num_nodes - 1], 0, &out);
  for (i = 0; i < m->num_nodes; ++i) {
    for (k = 0; k < api->num_inputs(m->nodes[i]); ++k) {
      if (api->input(m->nodes[i], k, &t) != 0) return 0;
      if (strcmp(t.dtype, "float32") != 0 || t.rank != out.rank) return 0;
      if (elements(&t) != elements(&out)) return 0;
    }
  }
  return strcmp(out.dtype, "float32") == 0;
}

/* The kernel's C source: y = a * b, or y = a * b + c. */
static void writeSource(FILE* f, const KilnMatch* m, int64_t n, const char* entry,
                        const char* visibility) {
  const int32_t* at = m->arg_index;
  fprintf(f, "#include <stdint.h>\n");
  fprintf(f, "int64_t objgen_count(void) { return %lld; }\n", (long long)n);
  fprintf(f, "%sint32_t %s(void* const* args) {\n", visibility, entry);
  fprintf(f, "  const float* a = (const float*)args[%d];\n", at[0]);
  fprintf(f, "  const float* b = (const float*)args[%d];\n", at[1]);
  fprintf(f, "  float* y = (float*)args[%u];\n", m->num_args - 1);
  fprintf(f, "  for (int64_t i = 0; i < objgen_count(); ++i) {\n    y[i] = a[i] * b[i];\n");
  if (m->num_nodes == 2) {
    /* the Add's other operand: whichever of its inputs is not the Mul's output */
    fprintf(f, "    y[i] += ((const float*)args[%d])[i];\n", at[2] >= 0 ? at[2] : at[3]);
  }
  fprintf(f, "  }\n  return 0;\n}\n");
}

/* Reads PATH into a malloc'd buffer; NULL on failure. */
static char* readFile(const char* path, long* size) {
  FILE* f = fopen(path, "rb");
  char* data = NULL;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc((size_t)*size);
    if (data != NULL && fread(data, 1, (size_t)*size, f) != (size_t)*size) {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  return data;
}

static int32_t objgenCompile(void* user_data, const KilnMatch* m) {
  const KilnGraphApi* api = m->api;
  const char* fault = api->target_attr(m, "fault");
  KilnTensorInfo out;
  char dir[] = "/tmp/kiln-objgen-XXXXXX";
  char src[64], obj[64], log[64], command[512];
  char* data;
  long size = 0;
  int32_t status = 1;
  FILE* f;
  (void)user_data;
  if (strcmp(fault, "text") == 0) {
    api->set_object(m, "this is not an object", 21, "objgen_kernel");
    return 0;
  }
  if (mkdtemp(dir) == NULL) {
    api->set_error(m, "cannot create a scratch folder under /tmp");
    return 1;
  }
  snprintf(src, sizeof src, "%s/k.c", dir);
  snprintf(obj, sizeof obj, "%s/k.o", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  api->output(m->nodes[m->num_nodes - 1], 0, &out);
  f = fopen(src, "w");
  if (f != NULL) {
    writeSource(f, m, elements(&out), "objgen_kernel",
                strcmp(fault, "hidden") == 0 ? "__attribute__((visibility(\"hidden\"))) " : "");
    fclose(f);
    snprintf(command, sizeof command, "%s %s -O2 -fPIC -o %s %s 2>%s", api->target_attr(m, "cc"),
             strcmp(fault, "shared") == 0 ? "-shared -nostdlib" : "-c", obj, src, log);
    if (system(command) == 0 && (data = readFile(obj, &size)) != NULL) {
      api->set_object(m, data, (uint64_t)size,
                      strcmp(fault, "no-entry") == 0 ? "objgen_missing" : "objgen_kernel");
      free(data);
      status = 0;
    } else {
      api->set_error(m, "the C compiler failed");
    }
  } else {
    api->set_error(m, "cannot write the kernel's source");
  }
  unlink(src);
  unlink(obj);
  unlink(log);
  rmdir(dir);
  return status;
}

static const KilnPattern kPatterns[] = {{"mul_add", "Mul Add?", objgenAccepts}};

#ifdef OBJGEN_PASSES
static const char* const kBefore[] = {"observe-before"};
static const char* const kAfter[] = {"observe-after"};
#define OBJGEN_BEFORE kBefore, 1
#define OBJGEN_AFTER kAfter, 1
#else
#define OBJGEN_BEFORE NULL, 0
#define OBJGEN_AFTER NULL, 0
#endif

/* The C ABI's names, snake_case: */
/* NOLINTBEGIN(readability-identifier-naming) */
uint32_t kiln_extension_api_version(void) { return KILN_ABI_VERSION; }

int32_t kiln_extension_register(const KilnExtensionHost* host, KilnExtensionRegistrar* r) {
  KilnBackend backend = {sizeof(KilnBackend),
                         "objgen",
                         "Mul (+ Add) as C compiled into the artifact",
                         kAttrs,
                         2,
                         kPatterns,
                         1,
                         objgenCompile,
                         NULL,
                         OBJGEN_BEFORE,
                         OBJGEN_AFTER};
  return host->add_backend(r, &backend) == 0 ? 0 : 1;
}
/* NOLINTEND(readability-identifier-naming) */
