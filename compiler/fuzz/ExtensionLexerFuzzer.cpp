// libFuzzer target over the extension lexer: any input must desugar
// without crashing, and the result must keep its invariants: the source
// map covers the output exactly, maps every output offset inside the
// input, and every original line is still there (the prologue adds three
// lines, after the leading directives; desugaring never adds or removes a
// newline of the input).
#include "ExtensionLexer.h"
#include "LeadingDirectives.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Input(reinterpret_cast<const char *>(Data), Size);
  cfacc::DesugaredFile D = cfacc::desugarExtensions(Input, "fuzz.cfa");
  if (D.Map.outputSize() != D.Text.size())
    abort();
  for (size_t Off = 0; Off < D.Text.size(); Off += 1 + Off / 8)
    if (D.Map.toOriginal(static_cast<unsigned>(Off)) > Input.size())
      abort();
  for (const cfacc::LexicalError &E : D.Errors)
    if (E.Offset > Input.size() || D.Map.toOutput(E.Offset) > D.Text.size())
      abort();
  size_t InLines = std::count(Input.begin(), Input.end(), '\n');
  size_t OutLines = std::count(D.Text.begin(), D.Text.end(), '\n');
  // A file made only of leading directives whose last line has no newline
  // gets one before the prologue.
  bool EndsInDirective = !Input.empty() && Input.back() != '\n' &&
                         cfacc::leadingDirectivesEnd(Input) == Input.size();
  if (OutLines != InLines + 3 + (EndsInDirective ? 1 : 0))
    abort();
  return 0;
}
