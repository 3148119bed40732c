// JSON option files through CLI11's own config machinery, so that a value from a file is parsed,
// checked and converted exactly as the same value given on the command line, and only applies to
// an option the command line left unset.
#include "config_file.h"

#include <iterator>
#include <sstream>

#include "kiln/support/error.h"
#include "kiln/support/json.h"

namespace kiln::cli {
namespace {

std::string scalarText(const Json& v, const std::string& key) {
  if (v.isString()) return v.asString();
  if (v.isBool()) return v.asBool() ? "true" : "false";
  if (v.isNumber()) return v.dump();
  throw CLI::FileError(strCat("--config: '", key, "' has the value ", v.dump(),
                              "; expected a string, number, boolean or an array of them"));
}

std::string optionList(const CLI::App& app) {
  std::string names;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_lnames().empty() || !o->get_configurable()) continue;
    names += (names.empty() ? "" : ", ") + o->get_lnames().front();
  }
  return names;
}

class JsonConfig : public CLI::Config {
 public:
  explicit JsonConfig(const CLI::App* app) : app_(app) {}

  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    std::string text{std::istreambuf_iterator<char>(input), std::istreambuf_iterator<char>()};
    Json root;
    try {
      root = Json::parse(text);
    } catch (const Error& e) {
      throw CLI::FileError(strCat("--config: the file is not valid JSON: ", e.what()));
    }
    if (!root.isObject()) {
      throw CLI::FileError(
          "--config: expected a JSON object of subcommands, e.g. {\"compile\": {\"opt-level\": "
          "2}}");
    }
    std::vector<CLI::ConfigItem> items;
    walk(*app_, root, {}, items);
    return items;
  }

  std::string to_config(const CLI::App* app, bool defaults, bool, std::string) const override {
    return toJson(*app, defaults).dump(2) + "\n";
  }

 private:
  const CLI::App* app_;

  // A key holding an object names a subcommand of APP; any other key an option of APP.
  static void walk(const CLI::App& app, const Json& section,
                   const std::vector<std::string>& parents, std::vector<CLI::ConfigItem>& items) {
    std::string where = parents.empty() ? "kiln" : strCat("'", join(parents), "'");
    for (const auto& [key, value] : section.asObject()) {
      std::vector<std::string> path = parents;
      path.push_back(key);
      if (value.isObject()) {
        const CLI::App* sub = findSubcommand(app, key);
        if (sub == nullptr) {
          throw CLI::FileError(strCat("--config: ", where, " has no subcommand '", key, "'"));
        }
        walk(*sub, value, path, items);
        continue;
      }
      const CLI::Option* opt = app.get_option_no_throw("--" + key);
      if (opt == nullptr || !opt->get_configurable()) {
        throw CLI::FileError(strCat("--config: ", where, " has no option --", key,
                                    " that a file may set; its options: ", optionList(app)));
      }
      CLI::ConfigItem item;
      item.parents = parents;
      item.name = key;
      if (value.isArray()) {
        for (const Json& v : value.asArray()) item.inputs.push_back(scalarText(v, join(path)));
      } else {
        item.inputs.push_back(scalarText(value, join(path)));
      }
      items.push_back(std::move(item));
    }
  }

  static const CLI::App* findSubcommand(const CLI::App& app, const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == name) return sub;
    }
    return nullptr;
  }

  static std::string join(const std::vector<std::string>& path) {
    std::string out;
    for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
    return out;
  }

  // The options that have a value (or a default, with DEFAULTS), as a file would give them.
  static Json toJson(const CLI::App& app, bool defaults) {
    Json out = Json::Object{};
    for (const CLI::Option* o : app.get_options()) {
      if (o->get_lnames().empty() || !o->get_configurable()) continue;
      std::vector<std::string> values = o->results();
      if (values.empty() && defaults && !o->get_default_str().empty()) {
        values = {o->get_default_str()};
      }
      if (values.empty()) continue;
      Json& slot = out[o->get_lnames().front()];
      if (values.size() == 1) {
        slot = values.front();
      } else {
        for (const std::string& v : values) slot.push(v);
      }
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
      Json section = toJson(*sub, defaults);
      if (!section.asObject().empty()) out[sub->get_name()] = std::move(section);
    }
    return out;
  }
};

void addSubcommandConfigOptions(CLI::App& app, CLI::Option* config) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->add_option_function<std::string>(
           "--config", [config](const std::string& file) { config->add_result(file); },
           "Read option defaults from this JSON file (see `kiln --help`); options given on the "
           "command line win")
        ->type_name("FILE.json")
        ->check(CLI::ExistingFile.description(""))
        ->configurable(false)
        ->trigger_on_parse();
    addSubcommandConfigOptions(*sub, config);
  }
}

}  // namespace

void addConfigOption(CLI::App& app) {
  app.config_formatter(std::make_shared<JsonConfig>(&app));
  CLI::Option* config = app.set_config(
      "--config", "",
      "Read option defaults from this JSON file: one object per subcommand, keyed by long option "
      "names without dashes, e.g. {\"compile\": {\"opt-level\": 2}, \"rpc\": {\"server\": "
      "{\"port\": 9000}}}. Options given on the command line win; of several files, the last "
      "given wins. Every subcommand accepts --config too");
  config->type_name("FILE.json")->check(CLI::ExistingFile.description(""));
  addSubcommandConfigOptions(app, config);
}

}  // namespace kiln::cli
