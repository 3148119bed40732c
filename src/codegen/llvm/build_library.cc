// The whole back end in order: split the kernels into shards, compile the shards (and write the
// artifact object) on separate threads, dump the IR, link. Each step lives in its own file; this
// one only sequences them.
#include "kiln/codegen/llvm/build_library.h"

#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <functional>
#include <thread>
#include <unordered_set>

#include "archive_objects.h"
#include "compile_shard.h"
#include "embed_artifact.h"
#include "embed_weights.h"
#include "emit_entry.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/temp_path.h"
#include "link_shared_library.h"
#include "object_kernel.h"
#include "partition_kernels.h"
#include "run_concurrently.h"
#include "target_machine.h"

namespace kiln::codegen {
namespace {

int threadCount(const BuildOptions& options) {
  if (options.threads < 0) {
    throw Error(strCat("code generation threads is ", options.threads,
                       "; expected 0 (one per core) or a positive count"));
  }
  if (options.threads > 0) return options.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Kernels in different shards would only clash in the linker; catch it here, as one module did.
void checkKernelNames(const std::vector<tir::PrimFunc>& funcs,
                      const std::vector<EntryFunction>& entries,
                      const std::vector<ObjectKernel>& objects) {
  std::unordered_set<std::string> seen = {KILN_SYMBOL_BACKEND_API, KILN_SYMBOL_ARTIFACT,
                                          KILN_SYMBOL_ARTIFACT_SIZE};
  for (const tir::PrimFunc& f : funcs) {
    KILN_CHECK(seen.insert(f.name).second, "kernel symbol '", f.name,
               "' is defined twice or clashes with a kiln symbol");
  }
  for (const ObjectKernel& k : objects) {
    KILN_CHECK(seen.insert(k.symbol).second, "object kernel symbol '", k.symbol,
               "' is defined twice or clashes with a kernel");
  }
  for (const EntryFunction& e : entries) {
    KILN_CHECK(seen.insert(e.symbol).second, "entry symbol '", e.symbol,
               "' is defined twice or clashes with a kernel");
    for (const EntryCall& c : e.calls) {
      KILN_CHECK(seen.count(c.kernel), "entry '", e.symbol, "' calls '", c.kernel,
                 "', which is not a kernel of the library");
    }
  }
}

// The shards' modules one after another; each is valid on its own, the file as a whole is not.
void dumpShards(const std::vector<std::string>& shardIrs, const std::string& path) {
  std::string text;
  for (size_t i = 0; i < shardIrs.size(); ++i) {
    text += strCat("; ==== kiln code generation shard ", i + 1, " of ", shardIrs.size(), " ====\n",
                   shardIrs[i], "\n");
  }
  writeFileAtomic(path, text);
}

// Compiles the kernel shards, the entry functions and EXTRA (an object of the caller's) on separate
// threads into SCRATCH, writes the dumps, and returns the object files, the backends' object
// kernels (checked first, so that their faults surface before any code generation) among them.
std::vector<std::string> compileObjects(const std::vector<tir::PrimFunc>& funcs,
                                        const std::vector<EntryFunction>& entries,
                                        const std::string& extraName,
                                        const std::function<void(const std::string& path)>& extra,
                                        const BuildOptions& options, const TempPath& scratch) {
  int threads = threadCount(options);
  checkKernelNames(funcs, entries, options.objects);
  std::vector<std::vector<size_t>> shards = partitionKernels(funcs, threads);
  auto file = [&](const std::string& name) { return scratch.path() + "/" + name; };
  std::vector<std::string> objects;
  for (size_t i = 0; i < options.objects.size(); ++i) {
    objects.push_back(file(strCat("object_kernel.", i, ".o")));
    writeObjectKernel(options.objects[i], options.target.triple, objects.back());
  }
  std::vector<ShardJob> jobs(shards.size());
  std::vector<ShardText> texts(shards.size());
  std::vector<std::function<void()>> tasks;
  for (size_t s = 0; s < shards.size(); ++s) {
    for (size_t i : shards[s]) jobs[s].funcs.push_back(funcs[i]);
    jobs[s].api = s == 0 ? BackendApiSlot::kDefine : BackendApiSlot::kDeclare;
    jobs[s].objectPath = file(strCat("kernels.", s, ".o"));
    // The dump shows the kernels only; the artifact bytes would drown them.
    jobs[s].keepIr = !options.dumpLlvmPath.empty();
    jobs[s].keepAsm = !options.dumpAsmPath.empty();
    objects.push_back(jobs[s].objectPath);
    tasks.push_back([&, s] { texts[s] = compileShard(jobs[s], options.target, options.optLevel); });
  }
  std::string entryIr;
  if (!entries.empty()) {
    objects.push_back(file("entries.o"));
    tasks.push_back([&, path = objects.back()] {
      entryIr = emitEntryObject(entries, options.target, options.optLevel, path,
                                !options.dumpLlvmPath.empty());
    });
  }
  objects.push_back(file(extraName));
  tasks.push_back([&, path = objects.back()] { extra(path); });
  runConcurrently(tasks, threads > 1);

  std::vector<std::string> irs, assembly;
  for (ShardText& t : texts) {
    irs.push_back(std::move(t.ir));
    assembly.push_back(std::move(t.assembly));
  }
  if (!entryIr.empty()) irs.push_back(std::move(entryIr));
  if (!options.dumpLlvmPath.empty()) dumpShards(irs, options.dumpLlvmPath);
  if (!options.dumpAsmPath.empty()) dumpShards(assembly, options.dumpAsmPath);
  return objects;
}

}  // namespace

void buildSharedLibrary(const std::vector<tir::PrimFunc>& funcs, const std::string& artifact,
                        const BuildOptions& options, const std::string& outputPath) {
  buildSharedLibrary(funcs, {}, artifact, options, outputPath);
}

void buildSharedLibrary(const std::vector<tir::PrimFunc>& funcs,
                        const std::vector<EntryFunction>& entries, const std::string& artifact,
                        const BuildOptions& options, const std::string& outputPath) {
  threadCount(options);
  // Created first, on this thread, so a bad target or opt level fails before any work starts.
  std::unique_ptr<llvm::TargetMachine> artifactTm =
      createTargetMachine(options.target, options.optLevel);
  // Objects and the link log live in a scratch folder that goes away on error and on SIGINT.
  TempPath scratch = TempPath::folder("kiln-codegen");
  std::vector<std::string> objects = compileObjects(
      funcs, entries, "artifact.o",
      [&](const std::string& path) { emitArtifactObject(artifact, *artifactTm, path); }, options,
      scratch);
  linkSharedLibrary(objects, options.target.triple, outputPath, scratch.path() + "/link.log");
}

void writeLlvmIr(const std::vector<tir::PrimFunc>& funcs, const std::vector<EntryFunction>& entries,
                 const BuildOptions& options, const std::string& outputPath) {
  threadCount(options);
  BuildOptions withIr = options;
  withIr.dumpLlvmPath = outputPath;
  TempPath scratch = TempPath::folder("kiln-codegen");
  compileObjects(
      funcs, entries, "nothing.o", [](const std::string&) {}, withIr, scratch);
}

void buildStaticLibrary(const std::vector<tir::PrimFunc>& funcs,
                        const std::vector<EntryFunction>& entries,
                        const std::vector<WeightTable>& weights, const BuildOptions& options,
                        const std::string& outputPath) {
  threadCount(options);
  std::unique_ptr<llvm::TargetMachine> weightsTm =
      createTargetMachine(options.target, options.optLevel);
  TempPath scratch = TempPath::folder("kiln-codegen");
  std::vector<std::string> objects = compileObjects(
      funcs, entries, "weights.o",
      [&](const std::string& path) { emitWeightsObject(weights, *weightsTm, path); }, options,
      scratch);
  archiveObjects(objects, outputPath, scratch.path() + "/ar.log");
}

}  // namespace kiln::codegen
