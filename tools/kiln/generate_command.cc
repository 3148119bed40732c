// `kiln generate DECODER.so --prompt-ids 1,2,3`: run a decoder's prompt, then one step per new
// token over its key/value cache, and report the tokens and their speed.
#include <climits>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "kiln/runtime/generate.h"
#include "kiln/support/error.h"
#include "run_place.h"

namespace kiln::cli {
namespace {

struct GenerateArgs {
  std::string artifact, modelName = "default", params;
  std::vector<int64_t> prompt, stopIds;
  int64_t maxNewTokens = 32;
  int warmup = 0;
  bool greedy = false, json = false, verbose = false, noVerify = false;
  int threads = 0;
  runtime::SamplingOptions sampling;
  PlaceOptions place;
};

bool drawsTokens(const CLI::App& cmd) {
  return cmd.count("--top-k") + cmd.count("--top-p") + cmd.count("--temperature") > 0;
}

void checkSampling(const GenerateArgs& args, const CLI::App& cmd) {
  bool sampled = drawsTokens(cmd);
  if (args.greedy && sampled) {
    throw UsageError(
        "--greedy picks the most likely token; it excludes --top-k, --top-p and "
        "--temperature, which draw one");
  }
  if (!sampled && cmd.count("--seed") > 0) {
    throw UsageError(
        "--seed seeds the draws of --top-k, --top-p or --temperature; greedy "
        "decoding draws nothing");
  }
}

void generate(GenerateArgs& args, const CLI::App& cmd) {
  checkSampling(args, cmd);
  args.sampling.greedy = !drawsTokens(cmd);
  applyThreads(args.threads, args.place);
  RunPlace place(args.place, args.artifact, args.params, !args.noVerify);
  runtime::Generator generator(place.createExecutor(args.modelName, false));
  if (args.verbose) std::cout << generator.decoder().describe() << "\n";

  runtime::GenerateOptions options;
  options.maxNewTokens = args.maxNewTokens;
  options.sampling = args.sampling;
  options.stopIds = args.stopIds;
  for (int i = 0; i < args.warmup; ++i) generator.generate(args.prompt, options);
  if (!args.json) {
    options.onToken = [first = true](int64_t t) mutable {
      std::cout << (first ? "tokens: " : " ") << t << std::flush;
      first = false;
    };
  }
  runtime::GenerateResult result = generator.generate(args.prompt, options);
  if (args.json) {
    std::cout << runtime::generateReportJson(result).dump() << "\n";
  } else {
    std::cout << "\n" << runtime::formatGenerateReport(result);
    if (place.description() != "the local CPU") {
      std::cout << "(times include the round trips to " << place.description() << ")\n";
    }
  }
}

}  // namespace

void addGenerateCommand(CLI::App& app,
                        const std::shared_ptr<const driver::CompileContext>& context) {
  auto args = std::make_shared<GenerateArgs>();
  args->place.extensions = context->extensions().files();
  CLI::App* cmd = app.add_subcommand(
      "generate",
      "Generate tokens with a decoder compiled with bounded sequence and cache lengths "
      "(--dim-bounds): the prompt runs once (prefill), then one step per new token, each step's "
      "present keys and values fed back as the next step's past. Token ids in, token ids out");
  cmd->add_option("artifact", args->artifact, "The compiled decoder (.so)")->required();
  cmd->add_option("--prompt-ids", args->prompt, "The prompt's token ids, comma-separated")
      ->required()
      ->delimiter(',');
  cmd->add_option("--max-new-tokens", args->maxNewTokens,
                  "Tokens to generate (fewer when a --stop-ids token comes first)")
      ->check(CLI::Range(int64_t{1}, int64_t{INT_MAX}).description("a count >= 1"))
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup,
                  "Untimed generations of the same prompt first (the first run after loading "
                  "also pages the weights in and starts the worker threads)")
      ->check(CLI::Range(0, 100).description("0 to 100"))
      ->capture_default_str();
  cmd->add_flag("--greedy", args->greedy,
                "Pick the most likely token each step (the default unless --top-k, --top-p or "
                "--temperature is given)");
  cmd->add_option("--top-k", args->sampling.topK,
                  "Draw each token among the K most likely (0: among all)")
      ->check(CLI::Range(int64_t{0}, int64_t{INT_MAX}).description("a count >= 0"));
  cmd->add_option("--top-p", args->sampling.topP,
                  "Draw among the fewest most likely tokens whose probability reaches P")
      ->check(CLI::Range(0.0, 1.0).description("a number in (0, 1]"));
  cmd->add_option("--temperature", args->sampling.temperature,
                  "Divide the logits by T before drawing (below 1: surer, above 1: more varied)")
      ->check(CLI::PositiveNumber.description("a number > 0"));
  cmd->add_option("--seed", args->sampling.seed,
                  "Seed of the draws: the same seed, model and prompt give the same tokens")
      ->capture_default_str();
  cmd->add_option("--stop-ids", args->stopIds,
                  "Stop after generating any of these token ids (comma-separated; e.g. the "
                  "end-of-sequence id)")
      ->delimiter(',');
  cmd->add_flag("--json", args->json,
                "Print one JSON object instead: tokens, prefill and decode tokens/s, time to first "
                "token, per-token latency statistics");
  cmd->add_flag("--verbose", args->verbose,
                "Print which inputs and outputs are the tokens, logits and cache first");
  addModelOptions(cmd, args->modelName, args->params, args->threads, args->noVerify);
  addPlaceOptions(cmd, args->place);
  cmd->callback([args, cmd] { generate(*args, *cmd); });
}

}  // namespace kiln::cli
