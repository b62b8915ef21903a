// DesugaringFileSystem: a VFS layer that shows Clang desugared .cfa/.hfa
// files.
//
// Every read of a file whose name ends in .cfa or .hfa goes through the
// extension lexer once; the result (text, source map, declared types,
// lexical errors) is cached and kept for the later stages, keyed by the
// file's absolute path. status() reports the desugared size so Clang's
// FileManager and the buffer agree. Other files pass through untouched.
#ifndef CFACC_DESUGARING_FILE_SYSTEM_H
#define CFACC_DESUGARING_FILE_SYSTEM_H

#include "ExtensionLexer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <memory>

namespace cfacc {

class DesugaringFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  explicit DesugaringFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Underlying);

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &Path) override;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &Path) override;

  // The desugared form of a file read so far, or null.
  const DesugaredFile *lookup(llvm::StringRef Path) const;
  // Names of the thread/coroutine/monitor types of every file read so far.
  const llvm::StringSet<> &declaredTypeNames() const { return TypeNames; }
  // Those declared with `monitor` or `thread` (a thread is a monitor): also
  // known where the type is incomplete (a forward declaration).
  const llvm::StringSet<> &monitorTypeNames() const { return MonitorTypeNames; }
  // Absolute, dot-free spelling used as the cache key.
  std::string canonicalPath(llvm::StringRef Path) const;
  // Desugars Path whatever its extension (the file `cfacc -x cfa` names).
  void addExtensionSource(llvm::StringRef Path) { ExtraSources.insert(canonicalPath(Path)); }

private:
  bool isExtensionSource(llvm::StringRef Path) const;
  const DesugaredFile *desugar(const llvm::Twine &Path);
  llvm::StringMap<std::unique_ptr<DesugaredFile>> Cache;
  llvm::StringSet<> TypeNames, MonitorTypeNames;
  llvm::StringSet<> ExtraSources;
};

} // namespace cfacc
#endif
