// Driver: cfacc's cc-like command line (see Driver.cpp).
#ifndef CFACC_DRIVER_H
#define CFACC_DRIVER_H

namespace cfacc {
// Runs cfacc; returns the process exit status.
int runDriver(int Argc, char **Argv);
} // namespace cfacc
#endif
