// cfacc: entry point. Everything is in Driver.cpp.
#include "Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int Argc, char **Argv) {
  llvm::InitLLVM Init(Argc, Argv);
  return cfacc::runDriver(Argc, Argv);
}
