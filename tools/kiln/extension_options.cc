// Extensions are loaded before parsing because they add options; finding their paths is a plain
// scan of the arguments, so nothing is parsed twice and --help is built once, complete.
#include "extension_options.h"

namespace kiln::cli {

std::vector<std::string> extensionPaths(const char* envValue, int argc, const char* const* argv) {
  std::vector<std::string> paths;
  if (envValue != nullptr) paths = extension::splitExtensionPath(envValue);
  const std::string flag = "--extension";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg == flag && i + 1 < argc) {
      paths.emplace_back(argv[++i]);
    } else if (arg.rfind(flag + "=", 0) == 0) {
      paths.push_back(arg.substr(flag.size() + 1));
    }
  }
  return paths;
}

std::shared_ptr<driver::CompileContext> loadContext(const std::vector<std::string>& paths) {
  auto context = std::make_shared<driver::CompileContext>();
  for (const std::string& path : paths) {
    try {
      context->extensions().load(path);
    } catch (const Error& e) {
      throw ExtensionError(e.what());
    }
  }
  return context;
}

void addExtensionOption(CLI::App* cmd, const driver::CompileContext& context) {
  // The values were read before parsing (extensionPaths); the parser only has to accept them.
  cmd->add_option("--extension",
                  "Load the kiln extension (accelerator backends) at PATH: a .so "
                  "file or a folder of them; repeatable, and used together with "
                  "every entry of KILN_EXTENSION_PATH (colon-separated)")
      ->type_name("PATH")
      ->configurable(false);
  const std::vector<extension::Backend>& backends = context.extensions().backends();
  if (backends.empty()) return;
  std::string footer = "Backends loaded from extensions:";
  for (const extension::Backend& b : backends) {
    footer += strCat("\n  ", b.name, "  ", b.help, " (", b.file, ")");
  }
  cmd->footer(footer);
}

void addTargetAttrOptions(CLI::App* cmd, const driver::CompileContext& context,
                          const std::shared_ptr<driver::BackendAttrs>& values) {
  for (const extension::Backend& b : context.extensions().backends()) {
    for (const extension::TargetAttr& a : b.attrs) {
      std::string option = b.optionName(a);
      CLI::Validator typed(
          [a, option](std::string& value) {
            try {
              value = extension::checkAttrValue(a, value, option);
              return std::string();
            } catch (const Error& e) {
              return std::string(e.what());
            }
          },
          extension::attrTypeName(a.type));
      cmd->add_option_function<std::string>(
             option,
             [values, backend = b.name, attr = a.name](const std::string& v) {
               (*values)[backend][attr] = v;
             },
             strCat(a.help, " (backend ", b.name, " in --target)"))
          ->type_name(strCat("<", extension::attrTypeName(a.type), ">"))
          ->default_str(a.defaultValue)
          ->check(typed);
    }
  }
}

}  // namespace kiln::cli
