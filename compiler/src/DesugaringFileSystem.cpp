// DesugaringFileSystem: see DesugaringFileSystem.h.
#include "DesugaringFileSystem.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace cfacc {
namespace {

// A read-only file whose contents are the desugared text.
class DesugaredVirtualFile : public llvm::vfs::File {
public:
  DesugaredVirtualFile(llvm::vfs::Status S, llvm::StringRef Text, std::string Name)
      : S(std::move(S)), Text(Text), Name(std::move(Name)) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return S; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
  getBuffer(const llvm::Twine &, int64_t, bool, bool) override {
    return llvm::MemoryBuffer::getMemBuffer(Text, Name, /*RequiresNullTerminator=*/true);
  }
  std::error_code close() override { return {}; }

private:
  llvm::vfs::Status S;
  llvm::StringRef Text;
  std::string Name;
};

} // namespace

DesugaringFileSystem::DesugaringFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Underlying)
    : ProxyFileSystem(std::move(Underlying)) {}

std::string DesugaringFileSystem::canonicalPath(llvm::StringRef Path) const {
  llvm::SmallString<256> Abs(Path);
  getUnderlyingFS().makeAbsolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

bool DesugaringFileSystem::isExtensionSource(llvm::StringRef Path) const {
  return isExtensionSourceName(Path) || (!ExtraSources.empty() && ExtraSources.contains(canonicalPath(Path)));
}

const DesugaredFile *DesugaringFileSystem::lookup(llvm::StringRef Path) const {
  auto It = Cache.find(canonicalPath(Path));
  return It == Cache.end() ? nullptr : It->second.get();
}

const DesugaredFile *DesugaringFileSystem::desugar(const llvm::Twine &Path) {
  std::string Spelled = Path.str();
  std::string Key = canonicalPath(Spelled);
  auto It = Cache.find(Key);
  if (It != Cache.end())
    return It->second.get();
  auto Buffer = getUnderlyingFS().getBufferForFile(Spelled);
  if (!Buffer)
    return nullptr;
  auto Result = std::make_unique<DesugaredFile>(desugarExtensions((*Buffer)->getBuffer(), Spelled));
  for (const DeclaredExtensionType &T : Result->Types) {
    TypeNames.insert(T.Name);
    if (T.Keyword != AggregateKeyword::Coroutine)
      MonitorTypeNames.insert(T.Name);
  }
  return (Cache[Key] = std::move(Result)).get();
}

llvm::ErrorOr<llvm::vfs::Status> DesugaringFileSystem::status(const llvm::Twine &Path) {
  auto S = getUnderlyingFS().status(Path);
  if (!S || !S->isRegularFile() || !isExtensionSource(Path.str()))
    return S;
  const DesugaredFile *D = desugar(Path);
  if (!D)
    return S;
  return llvm::vfs::Status::copyWithNewSize(*S, D->Text.size());
}

llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
DesugaringFileSystem::openFileForRead(const llvm::Twine &Path) {
  std::string Spelled = Path.str();
  if (!isExtensionSource(Spelled))
    return getUnderlyingFS().openFileForRead(Path);
  auto S = status(Spelled);
  if (!S)
    return S.getError();
  const DesugaredFile *D = desugar(Spelled);
  if (!D)
    return std::make_error_code(std::errc::io_error);
  return std::unique_ptr<llvm::vfs::File>(
      std::make_unique<DesugaredVirtualFile>(*S, D->Text, Spelled));
}

} // namespace cfacc
