// Translator: stage 1 of cfacc. Parses one .cfa file with Clang (through
// the DesugaringFileSystem, so the file and the .hfa headers it includes are
// desugared as Clang reads them), runs the AST lowering passes and returns
// the emitted C: the main file's text and the text of every .hfa header it
// used, keyed by absolute path (stage 2 maps them over the originals with a
// VFS overlay). Diagnostics are printed, mapped to the original sources.
#ifndef CFACC_TRANSLATOR_H
#define CFACC_TRANSLATOR_H

#include <map>
#include <string>
#include <vector>

namespace cfacc {

struct Translation {
  bool Success = false;
  std::string MainText;                      // emitted C of the .cfa file
  std::map<std::string, std::string> Headers; // absolute path -> emitted C
};

// ClangArgs: preprocessor and language flags (-I, -D, -std=, -W..., ...).
// IncludeDir: directory holding cfa/prelude.h and the runtime headers.
Translation translateFile(const std::string &Path, const std::vector<std::string> &ClangArgs,
                          const std::string &IncludeDir);

} // namespace cfacc
#endif
