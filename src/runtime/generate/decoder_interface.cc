// Which of a decoder's inputs and outputs play which role in the generation loop, read from the
// names and shapes exporters give them (Hugging Face's past_key_values.N.key / present.N.key,
// and the past_*/present_* spellings of other exporters).
#include <algorithm>

#include "kiln/runtime/generate.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? separator : "") + parts[i];
  return s;
}

struct Entry {
  std::string name;
  Shape shape, maxShape;  // maxShape empty when the entry has no bounded free dim
  DataType dtype;
};

std::vector<Entry> readEntries(const Json& info, const char* what) {
  std::vector<Entry> entries;
  for (const Json& e : info.asArray()) {
    if (e.contains("kind")) {
      throw Error(strCat("the decoder's ", what, " '", e.at("name").asString(), "' is a ",
                         e.at("kind").asString(), "; the generation loop gives and reads tensors"));
    }
    Entry entry{e.at("name").asString(), {}, {}, DataType::parse(e.at("dtype").asString())};
    for (const Json& d : e.at("shape").asArray()) entry.shape.push_back(d.asInt());
    if (e.contains("max_shape")) {
      for (const Json& d : e.at("max_shape").asArray()) entry.maxShape.push_back(d.asInt());
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

int64_t find(const std::vector<Entry>& entries, const std::string& name) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].name == name) return static_cast<int64_t>(i);
  }
  return -1;
}

std::string names(const std::vector<Entry>& entries) {
  std::vector<std::string> n;
  n.reserve(entries.size());
  for (const Entry& e : entries) n.push_back(e.name);
  return join(n, ", ");
}

bool isCacheInput(const std::string& name) { return name.find("past") != std::string::npos; }

// present.0.key for past_key_values.0.key; present_key_0 for past_key_0.
std::vector<std::string> presentNames(const std::string& past) {
  std::vector<std::string> candidates;
  for (const char* spelling : {"past_key_values", "past"}) {
    size_t at = past.find(spelling);
    if (at == std::string::npos) continue;
    std::string name = past;
    name.replace(at, std::char_traits<char>::length(spelling), "present");
    if (std::find(candidates.begin(), candidates.end(), name) == candidates.end()) {
      candidates.push_back(name);
    }
  }
  return candidates;
}

int64_t tokenInput(const std::vector<Entry>& inputs) {
  int64_t named = find(inputs, "input_ids");
  if (named >= 0) return named;
  int64_t found = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Entry& e = inputs[i];
    if (isCacheInput(e.name) || !e.dtype.isInt() || e.shape.size() != 2) continue;
    if (e.name == "attention_mask" || e.name == "position_ids") continue;
    if (found >= 0) {
      throw Error(
          strCat("the decoder has no input 'input_ids' and several integer inputs of rank "
                 "2 ('",
                 inputs[found].name, "', '", e.name, "'); name the token input 'input_ids'"));
    }
    found = static_cast<int64_t>(i);
  }
  if (found < 0) {
    throw Error(
        strCat("the decoder has no token input: expected 'input_ids' or one integer input "
               "[batch, sequence]; its inputs are: ",
               names(inputs)));
  }
  return found;
}

// The free dim other than the batch axis 0.
int64_t cacheAxis(const Entry& e) {
  int64_t axis = -1;
  for (size_t d = 1; d < e.shape.size(); ++d) {
    if (e.shape[d] != -1) continue;
    if (axis >= 0) {
      throw Error(strCat("cache input '", e.name, "' ", shapeStr(e.shape),
                         " has several free dims besides the batch; expected one, the cached "
                         "sequence"));
    }
    axis = static_cast<int64_t>(d);
  }
  if (axis < 0) {
    throw Error(strCat("cache input '", e.name, "' is ", shapeStr(e.shape),
                       ", with no free dim for the cached sequence; compile the decoder with its "
                       "past length symbolic (kiln compile --dim-bounds)"));
  }
  return axis;
}

CachePair cachePair(const std::vector<Entry>& inputs, const std::vector<Entry>& outputs, size_t i) {
  const Entry& in = inputs[i];
  CachePair pair;
  pair.input = static_cast<int64_t>(i);
  pair.inputName = in.name;
  std::vector<std::string> candidates = presentNames(in.name);
  for (const std::string& name : candidates) {
    pair.output = find(outputs, name);
    if (pair.output >= 0) break;
  }
  if (pair.output < 0) {
    throw Error(strCat("cache input '", in.name, "' has no matching output (expected '",
                       join(candidates, "' or '"), "'); the outputs are: ", names(outputs)));
  }
  pair.outputName = outputs[pair.output].name;
  pair.axis = cacheAxis(in);
  pair.emptyShape = in.shape;
  pair.emptyShape[0] = 1;
  pair.emptyShape[pair.axis] = 0;
  pair.dtype = in.dtype;
  if (!in.maxShape.empty()) pair.capacity = in.maxShape[pair.axis];
  const Entry& out = outputs[pair.output];
  if (out.dtype != in.dtype || out.shape.size() != in.shape.size()) {
    throw Error(strCat("cache output '", out.name, "' is ", out.dtype.str(), shapeStr(out.shape),
                       " but its input '", in.name, "' is ", in.dtype.str(), shapeStr(in.shape),
                       "; a present is fed back as the next past"));
  }
  return pair;
}

void checkBatch(const Entry& e) {
  if (!e.shape.empty() && e.shape[0] != 1 && e.shape[0] != -1) {
    throw Error(strCat("input '", e.name, "' has batch ", e.shape[0],
                       "; the generation loop runs one sequence (batch 1 or free)"));
  }
}

}  // namespace

DecoderInterface findDecoderInterface(const Json& inputInfo, const Json& outputInfo) {
  std::vector<Entry> inputs = readEntries(inputInfo, "input");
  std::vector<Entry> outputs = readEntries(outputInfo, "output");
  if (outputs.empty()) throw Error("the decoder has no outputs; expected logits");
  DecoderInterface d;
  d.tokens = tokenInput(inputs);
  const Entry& tokens = inputs[d.tokens];
  if (tokens.shape.size() != 2 || !tokens.dtype.isInt()) {
    throw Error(strCat("token input '", tokens.name, "' is ", tokens.dtype.str(),
                       shapeStr(tokens.shape), "; expected integers [batch, sequence]"));
  }
  d.tokenType = tokens.dtype;
  if (!tokens.maxShape.empty()) d.maxSequence = tokens.maxShape[1];
  d.logits = std::max<int64_t>(find(outputs, "logits"), 0);
  const Entry& logits = outputs[d.logits];
  if (logits.dtype != DataType::float32() ||
      (logits.shape.size() != 2 && logits.shape.size() != 3)) {
    throw Error(strCat("logits output '", logits.name, "' is ", logits.dtype.str(),
                       shapeStr(logits.shape),
                       "; expected float32 [batch, sequence, vocab] or [batch, vocab]"));
  }
  for (int64_t n : logits.shape) d.stepLogits.push_back(n < 0 ? 1 : n);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Entry& e = inputs[i];
    checkBatch(e);
    if (static_cast<int64_t>(i) == d.tokens) continue;
    if (e.name == "attention_mask" || e.name == "position_ids") {
      if (e.shape.size() != 2 || !e.dtype.isInt()) {
        throw Error(strCat("input '", e.name, "' is ", e.dtype.str(), shapeStr(e.shape),
                           "; expected integers [batch, length]"));
      }
      (e.name == "attention_mask" ? d.attentionMask : d.positionIds) = static_cast<int64_t>(i);
      (e.name == "attention_mask" ? d.maskType : d.positionType) = e.dtype;
    } else if (isCacheInput(e.name)) {
      d.cache.push_back(cachePair(inputs, outputs, i));
    } else {
      throw Error(strCat("the decoder's input '", e.name,
                         "' has no role in the generation loop, which gives the token ids "
                         "('input_ids'), 'attention_mask', 'position_ids' and the cache ('past*' "
                         "inputs fed from 'present*' outputs)"));
    }
  }
  return d;
}

std::string DecoderInterface::describe() const {
  std::string s = strCat("tokens: input ", tokens, ", logits: output ", logits);
  if (attentionMask >= 0) s += strCat(", attention mask: input ", attentionMask);
  if (positionIds >= 0) s += strCat(", positions: input ", positionIds);
  s += strCat("\ncache: ", cache.size(), " tensors");
  for (const CachePair& c : cache) {
    s += strCat("\n  ", c.inputName, " <- ", c.outputName, " (axis ", c.axis, ", holds ",
                c.capacity < 0 ? std::string("any number of") : std::to_string(c.capacity),
                " tokens)");
  }
  return s;
}

}  // namespace kiln::runtime
