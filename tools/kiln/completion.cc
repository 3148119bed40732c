// Completion walks the words as the parser would (subcommands descend, options that take a value
// consume the next word) and lists what may come next; the shell script only relays.
#include "completion.h"

#include <iostream>

namespace kiln::cli {
namespace {

bool takesValue(const CLI::Option* opt) { return opt->get_type_size_max() > 0; }

const CLI::App* subcommandNamed(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

const char* kScript = R"(# bash completion for kiln. Load it with
#   source <(kiln completion bash)
# or save it as /etc/bash_completion.d/kiln. Candidates come from the kiln being completed,
# with the extensions of KILN_EXTENSION_PATH and of the --extension options typed so far.
_kiln_complete() {
  local IFS=$'\n'
  COMPREPLY=($("${COMP_WORDS[0]}" __complete "$COMP_CWORD" "${COMP_WORDS[@]}" 2>/dev/null))
}
complete -o bashdefault -o default -F _kiln_complete kiln
)";

}  // namespace

std::vector<std::string> completions(const CLI::App& app, const std::vector<std::string>& words,
                                     size_t cword) {
  const CLI::App* current = &app;
  bool valueNext = false;  // the word at cword is an option's value
  for (size_t i = 1; i < cword && i < words.size(); ++i) {
    const std::string& w = words[i];
    if (valueNext) {
      valueNext = false;
      continue;
    }
    if (w == "=") {  // bash splits --option=value at '='
      valueNext = true;
      continue;
    }
    if (startsWith(w, "-")) {
      const CLI::Option* opt = current->get_option_no_throw(w.substr(0, w.find('=')));
      valueNext = opt != nullptr && takesValue(opt) && w.find('=') == std::string::npos;
      continue;
    }
    if (const CLI::App* sub = subcommandNamed(*current, w)) current = sub;
  }
  std::vector<std::string> out;
  if (valueNext) return out;
  std::string typed = cword < words.size() ? words[cword] : "";
  if (startsWith(typed, "-")) {
    for (const CLI::Option* opt : current->get_options()) {
      for (const std::string& n : opt->get_lnames()) {
        if (startsWith("--" + n, typed)) out.push_back("--" + n);
      }
      for (const std::string& n : opt->get_snames()) {
        if (startsWith("-" + n, typed)) out.push_back("-" + n);
      }
    }
    return out;
  }
  for (const CLI::App* sub : current->get_subcommands({})) {
    if (startsWith(sub->get_name(), typed)) out.push_back(sub->get_name());
  }
  return out;
}

void addCompletionCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print a shell completion script: source <(kiln completion bash)");
  auto shell = std::make_shared<std::string>();
  cmd->add_option("shell", *shell, "The shell to complete for")
      ->check(CLI::IsMember({"bash"}))
      ->required();
  cmd->callback([shell] { std::cout << kScript; });  // SHELL lives as long as the option
}

}  // namespace kiln::cli
