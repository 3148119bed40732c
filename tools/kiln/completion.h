// Shell completion: `kiln completion bash` prints a script that asks `kiln __complete` for the
// candidates, so completion knows exactly what the parser knows, extensions' options included.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kiln::cli {

// The hidden command the script calls: `kiln __complete CWORD WORD0 WORD1 ...` (bash's COMP_CWORD
// and COMP_WORDS).
inline constexpr const char* kCompleteCommand = "__complete";

// The candidates for WORDS[CWORD] (WORDS[0] is the program): the subcommands or options of the
// subcommand the earlier words select, starting with what was typed. Empty where a value or a
// positional argument goes, so the shell completes file names.
std::vector<std::string> completions(const CLI::App& app, const std::vector<std::string>& words,
                                     size_t cword);

// `kiln completion bash`.
void addCompletionCommand(CLI::App& app);

}  // namespace kiln::cli
