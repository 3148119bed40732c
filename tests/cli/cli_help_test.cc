// Every subcommand's --help is complete: each option the parser knows is listed with its names, a
// description and its default, with and without extensions loaded.
#include <gtest/gtest.h>

#include "command_line.h"
#include "extension_options.h"

namespace kiln::test {
namespace {

// Checks APP's help and then every subcommand's, recursively; returns how many options it checked.
size_t checkHelp(const CLI::App& app, const std::string& path) {
  std::string help = app.help();
  size_t checked = 0;
  for (const CLI::Option* o : app.get_options()) {
    std::string label = path + " " + o->get_name();
    for (const std::string& n : o->get_lnames()) {
      EXPECT_NE(help.find("--" + n), std::string::npos) << label << "\n" << help;
    }
    for (const std::string& n : o->get_snames()) {
      EXPECT_NE(help.find("-" + n), std::string::npos) << label << "\n" << help;
    }
    if (o->get_lnames().empty() && o->get_snames().empty()) {
      EXPECT_NE(help.find(o->get_name()), std::string::npos) << label << "\n" << help;
    }
    EXPECT_FALSE(o->get_description().empty()) << label << " has no description";
    EXPECT_NE(help.find(o->get_description()), std::string::npos) << label << "\n" << help;
    if (!o->get_default_str().empty()) {  // CLI11 shows a default as TYPE=DEFAULT
      EXPECT_NE(help.find("=" + o->get_default_str()), std::string::npos)
          << label << " default " << o->get_default_str() << "\n"
          << help;
    }
    ++checked;
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    EXPECT_NE(help.find(sub->get_name()), std::string::npos)
        << path << " lists " << sub->get_name();
    EXPECT_FALSE(sub->get_description().empty()) << path << " " << sub->get_name();
    checked += checkHelp(*sub, path + " " + sub->get_name());
  }
  return checked;
}

TEST(CliHelp, EverySubcommandListsEveryOptionWithDescriptionAndDefault) {
  CLI::App app{"kiln"};
  cli::buildCommandLine(app, cli::loadContext({}));
  size_t checked = checkHelp(app, "kiln");
  EXPECT_GT(checked, 60u);  // the count guards against a walk that checks nothing
  for (const char* sub : {"compile", "run", "inspect", "compare", "rpc"}) {
    EXPECT_NO_THROW(app.get_subcommand(sub)) << sub;
  }
}

TEST(CliHelp, ExtensionsAddToTheHelpOfEveryCommandThatLoadsThem) {
  CLI::App app{"kiln"};
  cli::buildCommandLine(app, cli::loadContext({std::string(KILN_TEST_EXTENSIONS) + "/both"}));
  checkHelp(app, "kiln");
  for (CLI::App* sub : {app.get_subcommand("compile"), app.get_subcommand("run"),
                        app.get_subcommand("rpc")->get_subcommand("server")}) {
    std::string help = sub->help();
    EXPECT_NE(help.find("Backends loaded from extensions:"), std::string::npos) << help;
    EXPECT_NE(help.find("alpha  A test accelerator"), std::string::npos) << help;
    EXPECT_NE(help.find("beta  A test accelerator"), std::string::npos) << help;
  }
  CLI::App plain{"kiln"};
  cli::buildCommandLine(plain, cli::loadContext({}));
  EXPECT_EQ(plain.get_subcommand("compile")->help().find("Backends loaded"), std::string::npos);
}

}  // namespace
}  // namespace kiln::test
